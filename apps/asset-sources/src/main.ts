import { runGrpcService } from '@platform/service';
import { assetSourcesService } from './asset-sources.module';

void runGrpcService(assetSourcesService);
