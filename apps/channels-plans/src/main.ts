import { runGrpcService } from '@platform/service';
import { channelsPlansService } from './channels-plans.module';

void runGrpcService(channelsPlansService);
