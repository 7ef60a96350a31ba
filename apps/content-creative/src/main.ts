import { runGrpcService } from '@platform/service';
import { contentCreativeService } from './content-creative.module';

void runGrpcService(contentCreativeService);
