import { decodeJobProgress, JobStatus } from '@platform/jobs';
import { openContentCreativeTestBed, rejectionOf, type ContentCreativeTestBed } from '../content-creative.test-support';
import type { CampaignFacts, PlanFacts } from '../content-maps/content-map.model';
import type { ChannelsPlansPeer } from '../peers/channels-plans.peer';

const ACCOUNT = 501;
const CAMPAIGN = 71;

/** channels-plans as the export rules see it: one campaign whose status a spec sets. */
function channels(status: string): ChannelsPlansPeer {
  const campaign: CampaignFacts = {
    retailCampaignId: CAMPAIGN,
    campaignName: 'Spring sale / 2026',
    status,
    templateIdx: 12,
    isAdGroupCampaign: false,
    isSbt: false,
    adGroups: [],
  };
  return {
    campaign: async () => campaign,
    plan: async (): Promise<PlanFacts> => ({ retailCampaignId: CAMPAIGN, placements: [] }),
  };
}

describe('export jobs (content-creative, on MariaDB)', () => {
  let bed: ContentCreativeTestBed;
  const caller = { orgId: 'org-1' };
  const request = (assetExportType: string, resolution: number) => ({ accountId: ACCOUNT, retailCampaignId: CAMPAIGN, assetExportType, resolution });
  /** The job's events; the audit trail's entries (also in the outbox) are read by `audited`. */
  const outbox = async () =>
    (await bed.db.knex('outbox').whereNot('subject', 'like', '%audit.change').orderBy('id').select('subject', 'msg_id', 'payload')) as {
      subject: string;
      msg_id: string;
      payload: Buffer;
    }[];
  const audited = async () =>
    ((await bed.db.knex('outbox').where('subject', 'like', '%audit.change').orderBy('id').select('payload')) as { payload: Buffer }[]).map(
      (row) => JSON.parse(row.payload.toString('utf8')) as { resourceType: string; resourceId: string; action: string },
    );

  beforeAll(async () => {
    bed = await openContentCreativeTestBed('exports');
  });
  afterAll(async () => {
    await bed?.close();
  });
  beforeEach(async () => {
    await bed.db.knex('exports').delete();
    await bed.db.knex('outbox').delete();
  });

  it('refuses a campaign that is not ACTIVE with 409 naming its status, and stores nothing', async () => {
    for (const status of ['DRAFT', 'PAUSED', 'ARCHIVED']) {
      const error = await rejectionOf(bed.exports.start(caller, request('png', 1), channels(status)));
      expect(error).toMatchObject({ code: 'RETAIL_CAMPAIGN_NOT_ACTIVE', status: 409, detail: expect.stringContaining(status) });
    }
    expect(await bed.db.knex('exports').count({ n: '*' })).toEqual([{ n: 0 }]);
    expect(await outbox()).toEqual([]);
  });

  it('refuses resolution 2 for tiff and mp4 at /resolution, and an unknown type at /assetExportType', async () => {
    for (const type of ['tiff', 'mp4']) {
      const error = await rejectionOf(bed.exports.start(caller, request(type, 2), channels('ACTIVE')));
      expect(error).toMatchObject({ status: 400, errors: [{ pointer: '/resolution', code: 'EXPORT_RESOLUTION_NOT_SUPPORTED' }] });
    }
    expect(await rejectionOf(bed.exports.start(caller, request('bmp', 1), channels('ACTIVE')))).toMatchObject({
      status: 400,
      errors: [{ pointer: '/assetExportType', code: 'NOT_ALLOWED' }],
    });
    expect(await outbox()).toEqual([]);
  });

  it('writes the job row, its request and its Queued report in one go, named by campaign, format and resolution', async () => {
    const started = await bed.exports.start(caller, request('png', 2), channels('ACTIVE'));
    expect(started).toMatchObject({ status: 'INITIATED', queueId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const events = await outbox();
    expect(events.map((e) => [e.subject, e.msg_id])).toEqual([
      [`${bed.prefix.toUpperCase()}jobs.progress.asset-export`, expect.stringMatching(new RegExp(`^${started.queueId}:\\d+$`))],
      [`${bed.prefix.toUpperCase()}jobs.requested.asset-export`, `job:${started.queueId}`],
    ]);
    expect(await audited()).toContainEqual(expect.objectContaining({ resourceType: 'export', resourceId: started.queueId, action: 'create' }));
    expect(JSON.parse(events[1].payload.toString())).toEqual({
      queueId: started.queueId,
      accountId: ACCOUNT,
      kind: 'asset-export',
      payload: {
        orgId: 'org-1',
        retailCampaignId: CAMPAIGN,
        assetExportType: 'png',
        resolution: 2,
        objectPath: `exports/retail-campaign-${CAMPAIGN}/${started.queueId}/Spring-sale-2026_png_2x.zip`,
      },
    });
    expect(decodeJobProgress(events[0].payload)).toMatchObject({ queueId: started.queueId, status: JobStatus.JOB_STATUS_QUEUED });
  });

  it('answers the running export to a second start of the same kind, even when the starts race, and a new one once it ended', async () => {
    const starts = await Promise.all(Array.from({ length: 6 }, () => bed.exports.start(caller, request('jpg', 1), channels('ACTIVE'))));
    const [first] = starts;
    expect(new Set(starts.map((s) => s.queueId))).toEqual(new Set([first.queueId]));
    expect(await bed.db.knex('exports').count({ n: '*' })).toEqual([{ n: 1 }]);
    // Another format or resolution is another export.
    expect((await bed.exports.start(caller, request('jpg', 2), channels('ACTIVE'))).queueId).not.toBe(first.queueId);

    await bed.exports.record(ACCOUNT, first.queueId, { status: 'PROCESSING', statusMessage: '', manifestJson: null, totalItems: 3 });
    expect(await bed.exports.start(caller, request('jpg', 1), channels('ACTIVE'))).toMatchObject({ queueId: first.queueId, status: 'PROCESSING' });
    await bed.exports.record(ACCOUNT, first.queueId, { status: 'COMPLETED', statusMessage: 'done', manifestJson: '{"assets":[]}', totalItems: 3 });
    const next = await bed.exports.start(caller, request('jpg', 1), channels('ACTIVE'));
    expect(next).toMatchObject({ status: 'INITIATED' });
    expect(next.queueId).not.toBe(first.queueId);
  });

  it("caps the account's running exports at JOB_CONCURRENCY_CAPS with 429 and queues nothing, while a start of a running one still answers it", async () => {
    const kinds: [string, number][] = [
      ['png', 1],
      ['png', 2],
      ['jpg', 1],
      ['jpg', 2],
      ['gif', 1],
    ];
    const running = [];
    for (const [type, resolution] of kinds) running.push(await bed.exports.start(caller, request(type, resolution), channels('ACTIVE')));
    const eventsBefore = (await outbox()).length;

    const refused = await rejectionOf(bed.exports.start(caller, request('gif', 2), channels('ACTIVE')));
    expect(refused).toMatchObject({ code: 'JOB_LIMIT_REACHED', status: 429 });
    expect(await bed.db.knex('exports').count({ n: '*' })).toEqual([{ n: kinds.length }]);
    expect(await outbox()).toHaveLength(eventsBefore);
    // The same kind again is the running export, not a new job: no refusal.
    expect(await bed.exports.start(caller, request('png', 1), channels('ACTIVE'))).toMatchObject({ queueId: running[0].queueId });
    // Another account has room of its own.
    expect(await bed.exports.start(caller, { ...request('gif', 2), accountId: ACCOUNT + 7 }, channels('ACTIVE'))).toMatchObject({ status: 'INITIATED' });

    await bed.exports.record(ACCOUNT, running[0].queueId, { status: 'FAILED', statusMessage: 'x', manifestJson: null, totalItems: 0 });
    expect(await bed.exports.start(caller, request('gif', 2), channels('ACTIVE'))).toMatchObject({ status: 'INITIATED' });
  });

  it('hands a new export to the queue view at once, and still answers when the queue view is down', async () => {
    const announced: { queueId: string; kind: string; status: number }[] = [];
    const started = await bed.exports.start(caller, request('tiff', 1), channels('ACTIVE'), {
      recordQueued: async (event) => void announced.push({ queueId: event.queueId, kind: event.kind, status: event.status }),
    });
    expect(announced).toEqual([{ queueId: started.queueId, kind: 'asset-export', status: JobStatus.JOB_STATUS_QUEUED }]);
    // A repeated start answers the running export and announces nothing new.
    await bed.exports.start(caller, request('tiff', 1), channels('ACTIVE'), {
      recordQueued: async (event) => void announced.push({ queueId: event.queueId, kind: event.kind, status: event.status }),
    });
    expect(announced).toHaveLength(1);

    const down = await bed.exports.start(caller, request('jpg', 1), channels('ACTIVE'), {
      recordQueued: async () => {
        throw new Error('14 UNAVAILABLE: storage-library restarting');
      },
    });
    expect(down).toMatchObject({ status: 'INITIATED' });
    expect(down).not.toHaveProperty('queued');
  });

  it('keeps a finished export as it ended: a redelivered job reporting again changes nothing', async () => {
    const { queueId } = await bed.exports.start(caller, request('gif', 1), channels('ACTIVE'));
    await bed.exports.record(ACCOUNT, queueId, {
      status: 'COMPLETED',
      statusMessage: 'Rendered 2 of 2 creatives.',
      manifestJson: '{"assets":[]}',
      totalItems: 2,
    });
    await bed.exports.record(ACCOUNT, queueId, { status: 'PROCESSING', statusMessage: '', manifestJson: null, totalItems: 0 });
    await bed.exports.record(ACCOUNT, queueId, { status: 'FAILED', statusMessage: 'late', manifestJson: null, totalItems: 0 });
    expect(await bed.exports.manifest(ACCOUNT, CAMPAIGN, queueId)).toMatchObject({
      status: 'COMPLETED',
      statusMessage: 'Rendered 2 of 2 creatives.',
      manifestJson: '{"assets":[]}',
    });
    expect(
      await rejectionOf(bed.exports.record(ACCOUNT + 1, queueId, { status: 'FAILED', statusMessage: 'x', manifestJson: null, totalItems: 0 })),
    ).toMatchObject({
      code: 'EXPORT_NOT_FOUND',
    });
  });

  it('shows the newest export per format and resolution, an earlier completed one as AVAILABLE while a newer runs, and ARCHIVED for an archived campaign', async () => {
    const done = await bed.exports.start(caller, request('png', 1), channels('ACTIVE'));
    await bed.exports.record(ACCOUNT, done.queueId, { status: 'COMPLETED', statusMessage: 'ok', manifestJson: '{"assets":[]}', totalItems: 1 });
    const running = await bed.exports.start(caller, request('png', 1), channels('ACTIVE'));
    const failed = await bed.exports.start(caller, request('mp4', 1), channels('ACTIVE'));
    await bed.exports.record(ACCOUNT, failed.queueId, { status: 'FAILED', statusMessage: 'No creative could be drawn', manifestJson: null, totalItems: 0 });

    const read = (status: string, filter: { assetExportType?: string; resolution?: number } = {}) =>
      bed.exports.status({ accountId: ACCOUNT, retailCampaignId: CAMPAIGN, isPreviewExport: false, ...filter }, channels(status));
    expect(await read('ACTIVE')).toEqual([
      {
        assetExportType: 'png',
        resolutions: [
          { status: 'INITIATED', objectPath: null, resolution: 1, statusMessage: '', queueId: running.queueId },
          { status: 'AVAILABLE', objectPath: expect.stringContaining(done.queueId), resolution: 1, statusMessage: 'ok', queueId: done.queueId },
        ],
      },
      {
        assetExportType: 'mp4',
        resolutions: [{ status: 'FAILED', objectPath: null, resolution: 1, statusMessage: 'No creative could be drawn', queueId: failed.queueId }],
      },
    ]);
    expect((await read('ACTIVE', { assetExportType: 'mp4' })).map((e) => e.assetExportType)).toEqual(['mp4']);
    expect(await read('ACTIVE', { resolution: 2 })).toEqual([]);
    expect((await read('ARCHIVED')).flatMap((e) => e.resolutions.map((r) => [r.status, r.objectPath]))).toEqual([
      ['ARCHIVED', null],
      ['ARCHIVED', null],
    ]);
    expect(await bed.exports.status({ accountId: ACCOUNT, retailCampaignId: CAMPAIGN, isPreviewExport: true }, channels('ACTIVE'))).toEqual([]);
  });
});
