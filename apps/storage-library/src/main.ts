import { runGrpcService } from '@platform/service';
import { storageLibraryService } from './storage-library.module';

void runGrpcService(storageLibraryService);
