import { runWorker } from '@platform/service';
import { storageWorker } from './storage-worker.module';

void runWorker(storageWorker);
