import { ASSET_SOURCES_ACCESS, type FeedCharacterEncoding, type FeedContentType, type FeedCsvSeparator, type FeedUrlType } from '@contracts/domain';
import { assetSourcesV1 as v1 } from '@contracts/proto';
import { callTimeLeftMs } from '@platform/grpc';
import type { Logger } from '@platform/logging';
import { unaryHandlers, type CallGuard } from '@platform/service';
import type { FeedProcessService } from './feed-process.service';
import { splitUrlConfig } from './feed-source.grpc';
import type { FeedReadInput } from './feed-source.rules';

// The service refuses values outside the enumerations, so the casts only carry what it checks.
function toReadInput(request: v1.ProcessFeedRequest): FeedReadInput {
  const { urlConfig, secrets } = splitUrlConfig(request.urlConfig);
  return {
    location: { urlType: request.urlType as FeedUrlType, url: request.url, fileId: request.fileId || null, urlConfig },
    secrets,
    format: {
      contentType: request.contentType as FeedContentType,
      characterEncoding: request.characterEncoding as FeedCharacterEncoding,
      csvSeparator: request.csvSeparator as FeedCsvSeparator,
      firstRowIsHeader: request.firstRowIsHeader,
      cdp: request.cdp,
      customCode: request.customCode ?? null,
      feedConfig: null,
    },
  };
}

/** Kept back from the caller's deadline for sending the answer: a feed host that does not answer is told as such, not as the caller's timeout. */
const ANSWER_MARGIN_MS = 300;
const readBudgetMs = (timeLeftMs: number | undefined) => (timeLeftMs === undefined ? undefined : Math.max(1, timeLeftMs - ANSWER_MARGIN_MS));

export function feedProcessGrpc({
  logger,
  guard,
  feedProcess,
}: {
  logger: Logger;
  guard: CallGuard;
  feedProcess: FeedProcessService;
}): Pick<v1.AssetSourcesServiceServer, 'processFeed'> {
  return unaryHandlers(v1.AssetSourcesServiceService, ASSET_SOURCES_ACCESS, logger, {
    processFeed: async (request, call) => {
      guard.account(call, request.accountId);
      const { config, sample, cdpLogs, hostKeyFingerprint, warnings } = await feedProcess.process(request.accountId, toReadInput(request), {
        timeoutMs: readBudgetMs(callTimeLeftMs(call)),
      });
      return { configJson: JSON.stringify(config), sampleJson: JSON.stringify(sample), cdpLogs, hostKeyFingerprint, warnings };
    },
  });
}
