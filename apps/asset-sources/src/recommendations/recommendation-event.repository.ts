import type { ServiceDatabase } from '@platform/mysql';
import type { CoOccurrence } from './recommendation.ranking';

export interface InteractionEvent {
  accountId: number;
  cookieGroup: string;
  cookieId: string;
  itemKey: string;
  eventType: string;
}

// Each cookie counts once per pair of items, whatever the number or types of its events.
const CO_OCCURRENCE_SQL = `
  WITH seen AS (
    SELECT DISTINCT cookie_id, item_key FROM recommendation_events WHERE account_id = ? AND cookie_group = ?
  )
  SELECT a.item_key AS item_key, b.item_key AS other_key, COUNT(*) AS together
  FROM seen a JOIN seen b ON a.cookie_id = b.cookie_id AND a.item_key <> b.item_key
  GROUP BY a.item_key, b.item_key`;

export class RecommendationEventRepository {
  constructor(private readonly db: ServiceDatabase) {}

  async record(event: InteractionEvent): Promise<void> {
    await this.db.knex('recommendation_events').insert({
      account_id: event.accountId,
      cookie_group: event.cookieGroup,
      cookie_id: event.cookieId,
      item_key: event.itemKey,
      event_type: event.eventType,
    });
  }

  async hasEvents(accountId: number, cookieGroup: string): Promise<boolean> {
    const row = await this.db.knex('recommendation_events').where({ account_id: accountId, cookie_group: cookieGroup }).first(this.db.knex.raw('1 AS found'));
    return row !== undefined;
  }

  async coOccurrence(accountId: number, cookieGroup: string): Promise<CoOccurrence> {
    const rows = await this.db.execute<{ item_key: string; other_key: string; together: number }>(CO_OCCURRENCE_SQL, [accountId, cookieGroup]);
    const result = new Map<string, Map<string, number>>();
    for (const row of rows) {
      let others = result.get(row.item_key);
      if (!others) result.set(row.item_key, (others = new Map()));
      others.set(row.other_key, Number(row.together));
    }
    return result;
  }
}
