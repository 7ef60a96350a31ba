import { ASSET_SOURCES_ACCESS, type AssetSourceContentType, type RemoteHttpMethod } from '@contracts/domain';
import { assetSourcesV1 as v1 } from '@contracts/proto';
import type { Logger } from '@platform/logging';
import { unaryHandlers, type CallGuard } from '@platform/service';
import { toFeedSettings } from '../feeds/feed-source.grpc';
import type { FeedSourceService } from '../feeds/feed-source.service';
import type { RecommendationService } from '../recommendations/recommendation.service';
import type { AssetSourceRecord, RecommendationConfig, RemoteSettings, SourceDefinition, SpecialColumns } from './asset-source.model';
import type { AssetSourceService } from './asset-source.service';

export const toSpecialColumns = (c: v1.SourceColumns | undefined): SpecialColumns => ({
  assetKeyColumn: c?.assetKeyColumn ?? null,
  assetVariantColumn: c?.assetVariantColumn ?? null,
  assetGroupColumn: c?.assetGroupColumn ?? null,
  reportingColumn: c?.reportingColumn ?? null,
  rotationWeightColumn: c?.rotationWeightColumn ?? null,
});

export const fromSpecialColumns = (c: SpecialColumns): v1.SourceColumns => ({
  assetKeyColumn: c.assetKeyColumn ?? undefined,
  assetVariantColumn: c.assetVariantColumn ?? undefined,
  assetGroupColumn: c.assetGroupColumn ?? undefined,
  reportingColumn: c.reportingColumn ?? undefined,
  rotationWeightColumn: c.rotationWeightColumn ?? undefined,
});

// The service refuses values outside the enumerations, so the casts only carry what it checks.
const toDefinition = (f: {
  assetSourceName: string;
  columnNames: string[];
  columns: v1.SourceColumns | undefined;
  contentType?: string;
}): SourceDefinition => ({
  assetSourceName: f.assetSourceName,
  columnNames: f.columnNames,
  columns: toSpecialColumns(f.columns),
  contentType: (f.contentType as AssetSourceContentType | undefined) ?? null,
});

export const toRemote = (r: v1.RemoteSettings | undefined): RemoteSettings => ({
  url: r?.url ?? '',
  httpMethod: (r?.httpMethod || 'GET') as RemoteHttpMethod,
  additionalParams: r?.additionalParams ?? '',
  cacheTime: r?.cacheTime ?? 0,
});

export const toProtoConfig = (c: RecommendationConfig): v1.RecommendationConfig => ({
  type: c.type,
  maxRecommendations: c.maxRecommendations,
  cookieGroup: c.cookieGroup,
  recommendationMap: c.recommendationMap && { entries: c.recommendationMap },
});

/**
 * The detail of a source; a recommendation source also says whether its recommendations exist yet, a
 * feed source its settings (secrets by name only) and whether the shrink guard holds a version.
 */
export async function toDetail(
  record: AssetSourceRecord,
  recommendations: RecommendationService,
  feedSources: FeedSourceService,
): Promise<v1.AssetSourceDetail> {
  const settings = record.recommendation;
  const status = settings ? await recommendations.status(record) : undefined;
  const feed = record.assetSourceType === 'feed' ? await feedSources.settings(record.assetSourceId) : undefined;
  return {
    assetSourceId: record.assetSourceId,
    assetSourceName: record.assetSourceName,
    assetSourceType: record.assetSourceType,
    columnNames: record.columnNames,
    columns: fromSpecialColumns(record.columns),
    contentType: record.contentType ?? undefined,
    rowCount: record.rowCount,
    remote: record.remote ?? undefined,
    recommendation:
      settings && status
        ? {
            sourceAssetSourceId: settings.sourceAssetSourceId,
            updateFrequency: settings.updateFrequency,
            config: toProtoConfig(settings.config),
            computedTime: settings.computedAt?.toISOString(),
            status: status.status,
            statusDetail: status.detail,
          }
        : undefined,
    createdTime: record.createdAt.toISOString(),
    updatedTime: record.updatedAt.toISOString(),
    feed: feed && toFeedSettings(feed),
  };
}

type Handlers = Pick<
  v1.AssetSourcesServiceServer,
  | 'describeAssetSources'
  | 'findAssetRows'
  | 'listAssetSources'
  | 'getAssetSource'
  | 'readAssetSourceData'
  | 'createInlineSource'
  | 'replaceInlineSource'
  | 'patchInlineSource'
  | 'createRemoteSource'
  | 'replaceRemoteSource'
>;

export function assetSourceGrpc({
  logger,
  guard,
  assetSources,
  recommendations,
  feedSources,
}: {
  logger: Logger;
  guard: CallGuard;
  assetSources: AssetSourceService;
  recommendations: RecommendationService;
  feedSources: FeedSourceService;
}): Handlers {
  return unaryHandlers(v1.AssetSourcesServiceService, ASSET_SOURCES_ACCESS, logger, {
    describeAssetSources: async (request, call) => {
      guard.peer(call, request.accountId);
      const sources = await assetSources.describe(request.accountId, request.assetSourceIds);
      return {
        sources: sources.map((s) => ({
          assetSourceId: s.assetSourceId,
          assetSourceName: s.assetSourceName,
          assetSourceType: s.assetSourceType,
          columnNames: s.columnNames,
          assetKeyColumn: s.columns.assetKeyColumn ?? undefined,
        })),
      };
    },

    findAssetRows: async (request, call) => {
      guard.peer(call, request.accountId);
      const rows = await assetSources.findRows(request.accountId, request.assetSourceId, request.column, request.values);
      return { rows: rows.map((row) => ({ value: row.value, rowJson: row.rowJson })) };
    },

    listAssetSources: async (request, call) => {
      guard.account(call, request.accountId);
      const page = await assetSources.list(request.accountId, request.page);
      return { assetSources: page.items, total: page.total };
    },

    getAssetSource: async (request, call) => {
      guard.account(call, request.accountId);
      return { source: await toDetail(await assetSources.get(request.accountId, request.assetSourceId), recommendations, feedSources) };
    },

    readAssetSourceData: async (request, call) => {
      guard.account(call, request.accountId);
      const data = await assetSources.readData(request.accountId, request.assetSourceId, request.page);
      return { source: await toDetail(data.source, recommendations, feedSources), rowsJson: data.rowsJson, total: data.total };
    },

    createInlineSource: async (request, call) => {
      guard.account(call, request.accountId);
      const fields = request.fields as v1.InlineSourceFields;
      return { assetSourceId: await assetSources.createInline(request.accountId, { definition: toDefinition(fields), rowsJson: fields.rowsJson }) };
    },

    replaceInlineSource: async (request, call) => {
      guard.account(call, request.accountId);
      const fields = request.fields as v1.InlineSourceFields;
      return {
        assetSourceId: await assetSources.replaceInline(request.accountId, request.assetSourceId, {
          definition: toDefinition(fields),
          rowsJson: fields.rowsJson,
        }),
      };
    },

    patchInlineSource: async (request, call) => {
      guard.account(call, request.accountId);
      const f = request.fields;
      const assetSourceId = await assetSources.patchInline(request.accountId, request.assetSourceId, {
        present: new Set(request.presentFields),
        assetSourceName: f?.assetSourceName,
        columnNames: f?.columnNames,
        columns: toSpecialColumns(f?.columns),
        contentType: (f?.contentType as AssetSourceContentType | undefined) ?? null,
        rowsJson: f?.rowsJson,
      });
      return { assetSourceId };
    },

    createRemoteSource: async (request, call) => {
      guard.account(call, request.accountId);
      const fields = request.fields as v1.RemoteSourceFields;
      return { assetSourceId: await assetSources.createRemote(request.accountId, { definition: toDefinition(fields), remote: toRemote(fields.remote) }) };
    },

    replaceRemoteSource: async (request, call) => {
      guard.account(call, request.accountId);
      const fields = request.fields as v1.RemoteSourceFields;
      return {
        assetSourceId: await assetSources.replaceRemote(request.accountId, request.assetSourceId, {
          definition: toDefinition(fields),
          remote: toRemote(fields.remote),
        }),
      };
    },
  });
}
