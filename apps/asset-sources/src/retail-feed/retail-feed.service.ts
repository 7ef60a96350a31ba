import { effectivePage, RETAIL_FEED_FIELDS, RETAIL_FEED_QUERY_MAX, type RetailFeedField } from '@contracts/domain';
import { problem, validationFailed } from '@platform/errors';
import { withTransaction } from '@platform/mysql';
import { recordChange, type EventOutbox } from '@platform/service';
import type { Knex } from 'knex';
import type { AssetSourceRecord } from '../sources/asset-source.model';
import type { AssetSourceService } from '../sources/asset-source.service';
import type { RetailFeedRepository, RetailFeedValueColumn, ValuePage } from './retail-feed.repository';

export const retailFeedNotSet = (accountId: number) =>
  problem('RETAIL_FEED_NOT_SET', `Account ${accountId} has no retail feed source; designate one with PUT /v2/accounts/${accountId}/retail-feed-settings.`);

/**
 * Where a field's values are read in a source, or null when the source lacks the column
 * (the list is then empty). The same columns the content maps look values up by: product is the asset
 * key column (else `sku`), category `category`, sub-category `subCategory`.
 */
export function retailFeedColumn(source: AssetSourceRecord, field: RetailFeedField): RetailFeedValueColumn | null {
  const has = (name: string) => source.columnNames.includes(name);
  switch (field) {
    case 'product':
      if (source.columns.assetKeyColumn !== null) return 'key_value';
      return has('sku') ? 'sku' : null;
    case 'category':
      return has('category') ? 'category' : null;
    case 'sub-category':
      return has('subCategory') ? 'subCategory' : null;
  }
}

/** The account's retail feed source (a designation of one of its asset sources) and the values it lists. */
export class RetailFeedService {
  constructor(
    private readonly knex: Knex,
    private readonly events: EventOutbox,
    private readonly settings: RetailFeedRepository,
    private readonly sources: AssetSourceService,
  ) {}

  /** Any source of the account may be designated (404 for a missing or another account's); setting it again is a no-op. */
  async set(accountId: number, assetSourceId: number): Promise<void> {
    await this.sources.get(accountId, assetSourceId);
    await withTransaction(this.knex, async (trx) => {
      const before = await this.settings.findForChange(trx, accountId);
      await this.settings.set(trx, accountId, assetSourceId);
      // Designating the source already designated changes nothing, so it leaves no entry either.
      if (before?.assetSourceId === assetSourceId) return;
      const after = await this.settings.findForChange(trx, accountId);
      await recordChange(trx, this.events, {
        resourceType: 'retail-feed-setting',
        resourceId: accountId,
        action: before ? 'update' : 'create',
        accountId,
        before,
        after,
      });
    });
  }

  async get(accountId: number): Promise<number> {
    const assetSourceId = await this.settings.get(accountId);
    if (assetSourceId === undefined) throw retailFeedNotSet(accountId);
    return assetSourceId;
  }

  /**
   * The distinct non-blank values of a field, in alphabetical order ignoring case, containing `query`
   * ignoring case. A remote source whose copy is stale is fetched first, as on data read.
   */
  async list(accountId: number, field: string, query: string, page?: { offset?: number; limit?: number }): Promise<ValuePage> {
    if (!(RETAIL_FEED_FIELDS as readonly string[]).includes(field))
      throw validationFailed([
        { parameter: 'fields', code: 'NOT_ALLOWED', detail: `fields must be one of ${RETAIL_FEED_FIELDS.join(', ')}; got ${JSON.stringify(field)}.` },
      ]);
    if (query.length > RETAIL_FEED_QUERY_MAX)
      throw validationFailed([{ parameter: 'query', code: 'TOO_LONG', detail: `query must be at most ${RETAIL_FEED_QUERY_MAX} characters.` }]);
    const source = await this.sources.fresh(await this.sources.get(accountId, await this.get(accountId)));
    const column = retailFeedColumn(source, field as RetailFeedField);
    const window = effectivePage(page);
    if (column === null) return { items: [], more: false };
    return this.settings.values(source.assetSourceId, column, query, window);
  }
}
