import { runGrpcService } from '@platform/service';
import { templatesService } from './templates.module';

void runGrpcService(templatesService);
