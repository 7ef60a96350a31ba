import {
  RECOMMENDATION_COLUMNS,
  RECOMMENDATION_COOKIE_ID_MAX,
  RECOMMENDATION_EVENT_TYPE_MAX,
  RECOMMENDATION_ITEM_KEY_MAX,
  RECOMMENDATION_SOURCE_ITEMS_MAX,
  ASSET_SOURCE_NAME_MAX,
} from '@contracts/domain';
import { AppError, blankOrTooLong, problem, validationFailed } from '@platform/errors';
import type { Knex } from 'knex';
import type { Logger } from '@platform/logging';
import { withTransaction } from '@platform/mysql';
import {
  NO_SPECIAL_COLUMNS,
  type AssetSourceRecord,
  type RecommendationConfig,
  type SourceDefinition,
  type SourceRow,
  type StoredSource,
} from '../sources/asset-source.model';
import type { AssetSourceRepository } from '../sources/asset-source.repository';
import { assetSourceNotFound, type AssetSourceService, type SourceDependents } from '../sources/asset-source.service';
import type { RecommendationEventRepository } from './recommendation-event.repository';
import { rankRecommendations, type CatalogueItem } from './recommendation.ranking';
import { recommendationErrors } from './recommendation.rules';

export interface RecommendationInput {
  updateFrequency: number;
  config: RecommendationConfig;
}

export interface RecommendationStatus {
  status: 'computed' | 'awaiting-events' | 'not-computed';
  detail: string;
}

const usesEvents = (config: RecommendationConfig) => config.type === 'collaborative' || config.type === 'hybrid';

const definitionOf = (source: AssetSourceRecord): SourceDefinition => ({
  assetSourceName: `${source.assetSourceName} recommendations`.slice(0, ASSET_SOURCE_NAME_MAX),
  columnNames: [...RECOMMENDATION_COLUMNS],
  columns: { ...NO_SPECIAL_COLUMNS, assetKeyColumn: 'itemKey' },
  contentType: null,
});

/**
 * Recommendation sources: for each item of a source (by its asset key), the items to recommend
 * with it, stored as the recommendation source's rows `{itemKey, recommendedItemKey, rank, score}`.
 * Content recommendations are computed from the source rows; collaborative and hybrid ones also
 * from interaction events recorded per cookieGroup, and are empty until such events exist.
 * They are recomputed when the source changes, when an event is recorded, and every
 * updateFrequency hours.
 */
export class RecommendationService implements SourceDependents {
  constructor(
    private readonly knex: Knex,
    private readonly sources: AssetSourceRepository,
    private readonly assetSources: AssetSourceService,
    private readonly events: RecommendationEventRepository,
    private readonly logger: Logger,
    private readonly now: () => Date = () => new Date(),
    /** A feed source's columns an update gave that wait to be served (null: none): they become the source's. */
    private readonly pendingColumnsOf: (assetSourceId: number) => Promise<Pick<SourceDefinition, 'columnNames' | 'columns'> | null> = async () => null,
  ) {}

  async create(accountId: number, sourceAssetSourceId: number, input: RecommendationInput): Promise<number> {
    const source = await this.checkedSource(accountId, sourceAssetSourceId, input);
    const id = await withTransaction(this.knex, async (trx) => {
      const assetSourceId = await this.sources.insert(trx, accountId, this.stored(source, input), []);
      await this.assetSources.recordSourceChange(trx, { accountId, assetSourceId, action: 'create' });
      return assetSourceId;
    });
    await this.recompute(await this.assetSources.get(accountId, id));
    return id;
  }

  async replace(accountId: number, sourceAssetSourceId: number, assetSourceId: number, input: RecommendationInput): Promise<number> {
    const current = await this.assetSources.ofKind(accountId, assetSourceId, 'recommendation');
    if (current.recommendation?.sourceAssetSourceId !== sourceAssetSourceId) throw assetSourceNotFound(assetSourceId);
    const source = await this.checkedSource(accountId, sourceAssetSourceId, input);
    await withTransaction(this.knex, async (trx) => {
      const before = await this.assetSources.beforeChange(trx, accountId, assetSourceId);
      await this.sources.update(trx, assetSourceId, this.stored(source, input));
      await this.assetSources.recordSourceChange(trx, { accountId, assetSourceId, action: 'update', before });
    });
    await this.recompute(await this.assetSources.get(accountId, assetSourceId));
    return assetSourceId;
  }

  /** Records an interaction for a collaborative or hybrid source's cookieGroup, then recomputes the sources of that group. */
  async recordEvent(accountId: number, assetSourceId: number, event: { cookieId: string; itemKey: string; eventType: string }): Promise<void> {
    const errors = [
      ...blankOrTooLong('/cookieId', event.cookieId, RECOMMENDATION_COOKIE_ID_MAX),
      ...blankOrTooLong('/itemKey', event.itemKey, RECOMMENDATION_ITEM_KEY_MAX),
      ...blankOrTooLong('/eventType', event.eventType, RECOMMENDATION_EVENT_TYPE_MAX),
    ];
    if (errors.length > 0) throw validationFailed(errors);
    const target = await this.assetSources.ofKind(accountId, assetSourceId, 'recommendation');
    const config = target.recommendation?.config as RecommendationConfig;
    if (!usesEvents(config) || config.cookieGroup === undefined)
      throw problem('RECOMMENDATION_TAKES_NO_EVENTS', `Asset source ${assetSourceId} makes content recommendations, which use no interaction events.`);
    await this.events.record({
      accountId,
      cookieGroup: config.cookieGroup,
      cookieId: event.cookieId.trim(),
      itemKey: event.itemKey.trim(),
      eventType: event.eventType.trim(),
    });
    const all = await this.sources.recommendationsOfAccount(accountId);
    for (const other of all) if (other.recommendation?.config.cookieGroup === config.cookieGroup) await this.recompute(other);
  }

  async status(source: AssetSourceRecord): Promise<RecommendationStatus> {
    const settings = source.recommendation;
    if (!settings) return { status: 'not-computed', detail: '' };
    const config = settings.config;
    if (usesEvents(config) && config.cookieGroup !== undefined && !(await this.events.hasEvents(source.accountId, config.cookieGroup)))
      return {
        status: 'awaiting-events',
        detail: `No interaction events are recorded for cookieGroup ${JSON.stringify(config.cookieGroup)} yet; the ${config.type} recommendations are empty until some are.`,
      };
    if (!settings.computedAt) return { status: 'not-computed', detail: 'The recommendations have not been computed yet.' };
    return {
      status: 'computed',
      detail: `Computed from ${source.rowCount} recommendation rows; recomputed every ${settings.updateFrequency} hours and when the source changes.`,
    };
  }

  /** SourceDependents: a source may not lose its asset key or a column its recommendation sources map. */
  async refusal(current: AssetSourceRecord, next: SourceDefinition): Promise<AppError | undefined> {
    const dependents = await this.sources.recommendationsOf(current.assetSourceId);
    const blocked = dependents.filter((dependent) => {
      const map = dependent.recommendation?.config.recommendationMap ?? [];
      return next.columns.assetKeyColumn === null || map.some((entry) => !next.columnNames.includes(entry.assetSourceColumn));
    });
    if (blocked.length === 0) return undefined;
    const ids = blocked.map((b) => b.assetSourceId);
    return problem(
      'ASSET_SOURCE_IN_USE',
      `Asset source ${current.assetSourceId} is used by the recommendation source${ids.length === 1 ? '' : 's'} ${ids.join(', ')}, which need its asset key column and the columns they map.`,
      { extensions: { usedBy: ids.join(',') } },
    );
  }

  /** SourceDependents: the recommendations follow their source. */
  async changed(source: AssetSourceRecord): Promise<void> {
    for (const dependent of await this.sources.recommendationsOf(source.assetSourceId)) await this.recompute(dependent);
  }

  /** Recomputes every recommendation source whose updateFrequency has passed since its last computation. */
  async recomputeDue(): Promise<number> {
    const due = await this.sources.recommendationsDue(this.now());
    for (const source of due) {
      try {
        await this.recompute(source);
      } catch (error) {
        this.logger.error({ err: error, assetSourceId: source.assetSourceId }, 'scheduled recommendation recomputation failed');
      }
    }
    return due.length;
  }

  async recompute(target: AssetSourceRecord): Promise<void> {
    const settings = target.recommendation;
    if (!settings) return;
    const stored = await this.sources.get(target.accountId, settings.sourceAssetSourceId);
    // A remote item source is ranked from a fresh copy when it can be fetched, else from the last one.
    const source =
      stored &&
      (await this.assetSources.fresh(stored).catch((error: unknown) => {
        this.logger.warn({ err: error, assetSourceId: stored.assetSourceId }, 'remote item source could not be refreshed; ranking its last copy');
        return stored;
      }));
    const at = this.now();
    if (!source || source.columns.assetKeyColumn === null) {
      await withTransaction(this.knex, (trx) => this.sources.replaceRows(trx, target.assetSourceId, [], 'itemKey', 'computed_at', at));
      return;
    }
    if (source.rowCount > RECOMMENDATION_SOURCE_ITEMS_MAX) {
      this.logger.warn(
        { assetSourceId: target.assetSourceId, rows: source.rowCount },
        'recommendation source grew past the ranked size; its recommendations are emptied',
      );
      await withTransaction(this.knex, (trx) => this.sources.replaceRows(trx, target.assetSourceId, [], 'itemKey', 'computed_at', at));
      return;
    }
    const items = this.catalogue(source, await this.sources.allRows(source.assetSourceId));
    const config = settings.config;
    const coOccurrence =
      usesEvents(config) && config.cookieGroup !== undefined ? await this.events.coOccurrence(target.accountId, config.cookieGroup) : undefined;
    // Collaborative and hybrid answer nothing until interactions exist, rather than content alone.
    const ranked =
      coOccurrence !== undefined && coOccurrence.size === 0
        ? new Map()
        : rankRecommendations(items, {
            map: config.type === 'collaborative' ? undefined : config.recommendationMap,
            coOccurrence,
            max: config.maxRecommendations,
          });
    const rows: SourceRow[] = [];
    for (const item of items)
      (ranked.get(item.key) ?? []).forEach((r: { key: string; score: number }, i: number) =>
        rows.push({ itemKey: item.key, recommendedItemKey: r.key, rank: i + 1, score: r.score }),
      );
    await withTransaction(this.knex, (trx) => this.sources.replaceRows(trx, target.assetSourceId, rows, 'itemKey', 'computed_at', at));
  }

  /** Items by asset key in row order; a key seen twice keeps its first row. */
  private catalogue(source: AssetSourceRecord, rows: SourceRow[]): CatalogueItem[] {
    const keyColumn = source.columns.assetKeyColumn as string;
    const seen = new Set<string>();
    const items: CatalogueItem[] = [];
    for (const row of rows) {
      const value = row[keyColumn];
      if (value === null || value === undefined || value === '') continue;
      const key = typeof value === 'string' ? value : JSON.stringify(value);
      if (seen.has(key)) continue;
      seen.add(key);
      items.push({ key, row });
    }
    return items;
  }

  private async checkedSource(accountId: number, sourceAssetSourceId: number, input: RecommendationInput): Promise<AssetSourceRecord> {
    const source = await this.assetSources.get(accountId, sourceAssetSourceId);
    // A feed's update waiting to be served names the columns the source is about to have: a map must name
    // columns it keeps, as an update may not drop a column a recommendation maps.
    const pending = await this.pendingColumnsOf(sourceAssetSourceId);
    const dropped = new Set(pending ? source.columnNames.filter((column) => !pending.columnNames.includes(column)) : []);
    const errors = recommendationErrors(input.updateFrequency, input.config, source.columnNames, dropped);
    if (errors.length > 0) throw validationFailed(errors);
    if (source.assetSourceType === 'recommendation')
      throw problem(
        'ASSET_SOURCE_KIND_MISMATCH',
        `Asset source ${sourceAssetSourceId} is itself a recommendation source; recommendations are built on item sources.`,
      );
    if (source.columns.assetKeyColumn === null)
      throw problem('ASSET_SOURCE_HAS_NO_KEY', `Asset source ${sourceAssetSourceId} has no assetKeyColumn; recommendations name items by their asset key.`);
    if (pending && pending.columns.assetKeyColumn === null)
      throw problem(
        'ASSET_SOURCE_HAS_NO_KEY',
        `Asset source ${sourceAssetSourceId} is about to have no assetKeyColumn (its update waiting to be served, feed.pendingColumns); recommendations name items by their asset key.`,
      );
    if (source.rowCount > RECOMMENDATION_SOURCE_ITEMS_MAX)
      throw problem(
        'RECOMMENDATION_SOURCE_TOO_LARGE',
        `Asset source ${sourceAssetSourceId} has ${source.rowCount} rows; recommendations rank sources of at most ${RECOMMENDATION_SOURCE_ITEMS_MAX}.`,
      );
    return source;
  }

  private stored(source: AssetSourceRecord, input: RecommendationInput): StoredSource {
    return {
      ...definitionOf(source),
      assetSourceType: 'recommendation',
      recommendation: { sourceAssetSourceId: source.assetSourceId, updateFrequency: input.updateFrequency, config: input.config },
    };
  }
}
