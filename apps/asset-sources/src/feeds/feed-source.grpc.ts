import {
  ASSET_SOURCES_ACCESS,
  FEED_REPORT_PAGE_ROWS,
  type FeedCharacterEncoding,
  type FeedContentType,
  type FeedCsvSeparator,
  type FeedFrequency,
  type FeedMissingRowPolicy,
  type FeedUrlType,
} from '@contracts/domain';
import { assetSourcesV1 as v1 } from '@contracts/proto';
import { validationFailed } from '@platform/errors';
import type { Logger } from '@platform/logging';
import { unaryHandlers, type CallGuard } from '@platform/service';
import { fromSpecialColumns, toSpecialColumns } from '../sources/asset-source.grpc';
import type { FeedConfig } from './feed-reading';
import type { FeedRunRecord, FeedSecrets, FeedSourceInput, FeedSourceRecord, FeedUrlSettings } from './feed-source.model';
import type { PeerOf } from '@platform/grpc';
import type { StorageLibraryPeer } from '../peers/storage-library.peer';
import type { FeedSourceService } from './feed-source.service';

function parseFeedConfig(json: string | undefined): FeedConfig | null {
  if (json === undefined) return null;
  try {
    const config = JSON.parse(json) as unknown;
    if (typeof config === 'object' && config !== null && !Array.isArray(config)) return config as FeedConfig;
  } catch {
    // answered below
  }
  throw validationFailed([{ pointer: '/feedConfig', code: 'INVALID_TYPE', detail: 'feedConfig must be the config object process answered.' }]);
}

/** urlConfig as a request carries it, split into what is stored in the clear and the secrets the service seals. */
export function splitUrlConfig(c: v1.FeedUrlConfig = {}): { urlConfig: FeedUrlSettings; secrets: FeedSecrets } {
  return {
    urlConfig: {
      additionalParams: c.additionalParams,
      httpMethod: c.httpMethod as 'GET' | 'POST' | undefined,
      portNumber: c.portNumber,
      endpoint: c.endpoint,
      region: c.region,
      hostKeyFingerprint: c.hostKeyFingerprint,
    },
    secrets: { username: c.username, password: c.password, accessKey: c.accessKey, secretKey: c.secretKey, privateKey: c.privateKey },
  };
}

// The service refuses values outside the enumerations, so the casts only carry what it checks.
export function toFeedInput(f: v1.FeedSourceFields): FeedSourceInput {
  const { urlConfig, secrets } = splitUrlConfig(f.urlConfig);
  return {
    definition: { assetSourceName: f.assetSourceName, columnNames: f.columnNames, columns: toSpecialColumns(f.columns), contentType: null },
    location: { urlType: f.urlType as FeedUrlType, url: f.url, fileId: f.fileId ?? null, urlConfig },
    secrets,
    format: {
      contentType: f.contentType as FeedContentType,
      characterEncoding: f.characterEncoding as FeedCharacterEncoding,
      csvSeparator: f.csvSeparator as FeedCsvSeparator,
      firstRowIsHeader: f.firstRowIsHeader,
      cdp: f.cdp,
      customCode: f.customCode ?? null,
      feedConfig: parseFeedConfig(f.feedConfigJson),
    },
    schedule: {
      isScheduled: f.isScheduled,
      frequency: (f.frequency as FeedFrequency | undefined) ?? null,
      startTime: f.startTime ?? null,
      endDate: f.endDate ?? null,
    },
    policies: { missingRowPolicy: f.missingRowPolicy as FeedMissingRowPolicy | undefined, shrinkGuardPercent: f.shrinkGuardPercent },
  };
}

/** A feed source's settings as answered: the secret members by name only. */
export function toFeedSettings(feed: FeedSourceRecord): v1.FeedSettings {
  return {
    urlType: feed.location.urlType,
    url: feed.location.url,
    fileId: feed.location.fileId ?? undefined,
    additionalParams: feed.location.urlConfig.additionalParams,
    httpMethod: feed.location.urlConfig.httpMethod,
    portNumber: feed.location.urlConfig.portNumber,
    endpoint: feed.location.urlConfig.endpoint,
    region: feed.location.urlConfig.region,
    hostKeyFingerprint: feed.location.urlConfig.hostKeyFingerprint,
    credentialsSet: feed.secretsSet,
    contentType: feed.format.contentType,
    characterEncoding: feed.format.characterEncoding,
    csvSeparator: feed.format.csvSeparator,
    firstRowIsHeader: feed.format.firstRowIsHeader,
    cdp: feed.format.cdp,
    customCode: feed.format.customCode ?? undefined,
    isScheduled: feed.schedule.isScheduled,
    frequency: feed.schedule.frequency ?? undefined,
    startTime: feed.schedule.startTime ?? undefined,
    endDate: feed.schedule.endDate ?? undefined,
    nextRunTime: feed.nextRunAt?.toISOString(),
    missingRowPolicy: feed.policies.missingRowPolicy,
    shrinkGuardPercent: feed.policies.shrinkGuardPercent,
    heldQueueId: feed.held?.queueId,
    heldReason: feed.held?.reason,
    servingQueueId: feed.applied.queueId ?? undefined,
    disabledRows: feed.disabledRows,
    pendingColumns: feed.pendingColumns
      ? { columnNames: feed.pendingColumns.columnNames, columns: fromSpecialColumns(feed.pendingColumns.columns) }
      : undefined,
  };
}

const toRun = (run: FeedRunRecord): v1.FeedRun => ({
  queueId: run.queueId,
  assetSourceId: run.assetSourceId,
  trigger: run.trigger,
  status: run.status,
  message: run.message,
  rowsRead: run.rowsRead,
  rowsStored: run.rowsStored,
  duplicateKeys: run.duplicateKeys,
  emptyKeys: run.emptyKeys,
  rejectedRows: run.rejectedRows,
  createdTime: run.createdAt.toISOString(),
  finishedTime: run.finishedAt?.toISOString(),
  cancelRequestedTime: run.cancelRequestedAt?.toISOString(),
  supersededBy: run.supersededBy ?? undefined,
});

export function feedSourceGrpc({
  logger,
  guard,
  feedSources,
  storageLibrary,
}: {
  logger: Logger;
  guard: CallGuard;
  feedSources: FeedSourceService;
  storageLibrary: PeerOf<StorageLibraryPeer>;
}): Pick<
  v1.AssetSourcesServiceServer,
  | 'createFeedSource'
  | 'replaceFeedSource'
  | 'refreshFeedSource'
  | 'cancelFeedRun'
  | 'confirmFeedVersion'
  | 'listFeedReport'
  | 'listFeedRuns'
  | 'listFeedDisabledRows'
> {
  return unaryHandlers(v1.AssetSourcesServiceService, ASSET_SOURCES_ACCESS, logger, {
    createFeedSource: async (request, call) => {
      guard.account(call, request.accountId);
      return feedSources.create(request.accountId, toFeedInput(request.fields as v1.FeedSourceFields), storageLibrary(call));
    },

    replaceFeedSource: async (request, call) => {
      guard.account(call, request.accountId);
      return feedSources.replace(request.accountId, request.assetSourceId, toFeedInput(request.fields as v1.FeedSourceFields), storageLibrary(call));
    },

    refreshFeedSource: async (request, call) => {
      guard.account(call, request.accountId);
      return feedSources.refresh(request.accountId, request.assetSourceId, storageLibrary(call));
    },

    cancelFeedRun: async (request, call) => {
      guard.account(call, request.accountId);
      return { run: toRun(await feedSources.cancelRun(request.accountId, request.queueId)) };
    },

    confirmFeedVersion: async (request, call) => {
      guard.account(call, request.accountId);
      return feedSources.confirmHeld(request.accountId, request.assetSourceId);
    },

    listFeedReport: async (request, call) => {
      guard.account(call, request.accountId);
      const limit = Math.min(Math.max(request.limit, 1), FEED_REPORT_PAGE_ROWS);
      const { run, entries } = await feedSources.report([request.accountId], request.queueId, { line: request.afterLine, seq: request.afterSeq }, limit);
      return { run: toRun(run), entries: entries.map((e) => ({ ...e, keyValue: e.keyValue ?? undefined })) };
    },

    listFeedRuns: async (request, call) => {
      guard.account(call, request.accountId);
      const page = await feedSources.runs(request.accountId, request.assetSourceId, request.page);
      return { runs: page.items.map(toRun), total: page.total };
    },

    listFeedDisabledRows: async (request, call) => {
      guard.account(call, request.accountId);
      const page = await feedSources.disabledRows(request.accountId, request.assetSourceId, request.page);
      return {
        rows: page.items.map((row) => ({ keyValue: row.keyValue, disabledTime: row.disabledAt.toISOString(), rowJson: row.rowJson })),
        total: page.total,
      };
    },
  });
}
