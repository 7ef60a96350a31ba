import { runGrpcService } from '@platform/service';
import { taggingTrackersService } from './tagging-trackers.module';

void runGrpcService(taggingTrackersService);
