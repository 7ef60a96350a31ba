import { runWorker } from '@platform/service';
import { exportRenderer } from './export-renderer.module';

void runWorker(exportRenderer);
