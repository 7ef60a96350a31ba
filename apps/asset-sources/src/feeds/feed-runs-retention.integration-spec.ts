import { FEED_RUNS_KEPT } from '@contracts/domain';
import { openAssetSourcesTestBed, type AssetSourcesTestBed } from '../asset-sources.test-support';
import type { FeedSourceInput } from './feed-source.model';

jest.setTimeout(60_000);

const ACCOUNT = 7201;

describe("a feed source's run history stays bounded", () => {
  let bed: AssetSourcesTestBed;

  beforeAll(async () => {
    bed = await openAssetSourcesTestBed('feedretention', { feedRunCap: 1_000 });
  });

  afterAll(async () => {
    await bed?.close();
  });

  const input: FeedSourceInput = {
    definition: {
      assetSourceName: 'Hourly',
      columnNames: ['sku'],
      columns: { assetKeyColumn: 'sku', assetVariantColumn: null, assetGroupColumn: null, reportingColumn: null, rotationWeightColumn: null },
      contentType: null,
    },
    location: { urlType: 'http', url: 'http://feeds.example.com/hourly.csv', fileId: null, urlConfig: { httpMethod: 'GET' } },
    secrets: {},
    format: { contentType: 'csv', characterEncoding: 'UTF_8', csvSeparator: 'comma', firstRowIsHeader: true, cdp: false, customCode: null, feedConfig: null },
    schedule: { isScheduled: false, frequency: null, startTime: null, endDate: null },
    policies: {},
  };

  it('drops the runs beyond the newest kept, with their reports, sparing the run serving, the one held and any under way', async () => {
    const { knex } = bed.db;
    const { assetSourceId, queueId: first } = await bed.feedSources.create(ACCOUNT, input);
    // An hour apart, oldest first; the create's run is the oldest of all.
    const runs = Array.from({ length: FEED_RUNS_KEPT + 10 }, (_, i) => ({
      queue_id: `run-${String(i).padStart(4, '0')}`,
      asset_source_id: assetSourceId,
      account_id: ACCOUNT,
      run_trigger: 'schedule',
      status: 'Completed',
      message: 'Completed',
      created_at: new Date(Date.UTC(2026, 0, 1, i)),
    }));
    await knex('feed_runs').insert(runs);
    await knex('feed_runs')
      .where({ queue_id: first })
      .update({ created_at: new Date(Date.UTC(2025, 0, 1)), status: 'Failed' });
    // Among the old ones: the run serving, the run held, one still queued, and one with a report.
    await knex('feed_sources').where({ asset_source_id: assetSourceId }).update({ applied_queue_id: 'run-0001', held_queue_id: 'run-0002' });
    await knex('feed_runs').where({ queue_id: 'run-0003' }).update({ status: 'Queued' });
    await knex('feed_report_entries').insert(
      Array.from({ length: 25_000 }, (_, seq) => ({ queue_id: 'run-0004', seq, line: seq + 2, kind: 'rejected', reason: 'Bad weight' })),
    );

    expect(await bed.feedStore.feeds.pruneRuns(assetSourceId, FEED_RUNS_KEPT)).toBe(8);
    const kept = (await knex('feed_runs').where({ asset_source_id: assetSourceId }).orderBy('created_at').pluck('queue_id')) as string[];
    expect(kept).toHaveLength(FEED_RUNS_KEPT + 3);
    expect(kept.slice(0, 4)).toEqual(['run-0001', 'run-0002', 'run-0003', 'run-0010']);
    expect(kept.at(-1)).toBe(`run-${String(FEED_RUNS_KEPT + 9).padStart(4, '0')}`);
    expect(kept).not.toContain(first);
    expect(Number((await knex('feed_report_entries').where({ queue_id: 'run-0004' }).count({ n: '*' }))[0].n)).toBe(0);
    // Nothing more to drop.
    expect(await bed.feedStore.feeds.pruneRuns(assetSourceId, FEED_RUNS_KEPT)).toBe(0);
    expect((await bed.feedSources.runs(ACCOUNT, assetSourceId, { limit: 1 })).total).toBe(FEED_RUNS_KEPT + 3);
  });
});
