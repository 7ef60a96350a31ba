import { CACHED_VIEWS, EXPORT_LIMITS, type ExportManifest } from '@contracts/domain';
import { decodeJobProgress, JobStatus } from '@platform/jobs';
import { withTransaction } from '@platform/mysql';
import { openContentCreativeTestBed, rejectionOf, type ContentCreativeTestBed } from '../content-creative.test-support';
import type { CampaignFacts, PlanFacts } from '../content-maps/content-map.model';
import { ContentMapRepository } from '../content-maps/content-map.repository';
import type { AssetSourcesPeer } from '../peers/asset-sources.peer';
import type { ChannelsPlansPeer } from '../peers/channels-plans.peer';

const ACCOUNT = 501;
const CAMPAIGN = 71;

const PLAN = 9;
/** Two placements of the plan, each mapped to more content items than a preview export draws. */
const PLACEMENTS = [
  { placementId: 31, placementName: 'Home', dimension: '300x250', adServerKind: 'display' },
  { placementId: 32, placementName: 'Search', dimension: '728x90', adServerKind: 'display' },
];
const CONTENT = Array.from({ length: EXPORT_LIMITS.previewItemsPerPlacement + 3 }, (_, i) => `SKU-${i + 1}`);

/** asset-sources: no rows (the maps these specs store look nothing up). */
const assets: AssetSourcesPeer = { describe: async () => [], findRows: async () => new Map() };

/** channels-plans as the export rules see it: one campaign whose status a spec sets, and its plan. */
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
    plan: async (): Promise<PlanFacts> => ({ retailCampaignId: CAMPAIGN, placements: PLACEMENTS }),
  };
}

describe('export jobs (content-creative, on MariaDB)', () => {
  let bed: ContentCreativeTestBed;
  const caller = { orgId: 'org-1' };
  const request = (assetExportType: string, resolution: number) => ({ accountId: ACCOUNT, retailCampaignId: CAMPAIGN, assetExportType, resolution });
  const preview = { ...request('png', 1), isPreviewExport: true };
  const statusOf = (filter: { assetExportType?: string; resolution?: number; isPreviewExport?: boolean } = {}, campaign = 'ACTIVE') =>
    bed.exports.status({ accountId: ACCOUNT, retailCampaignId: CAMPAIGN, isPreviewExport: false, ...filter }, channels(campaign));
  /** A finished export's manifest as the renderer writes it: one asset per content value and placement. */
  const manifestOf = (queueId: string, values: string[], previews: boolean): string =>
    JSON.stringify({
      queueId,
      retailCampaignId: CAMPAIGN,
      campaignName: 'Spring sale / 2026',
      assetExportType: 'png',
      resolution: 1,
      createdAt: new Date().toISOString(),
      assets: PLACEMENTS.flatMap((p) =>
        values.map((value) => ({
          mediaPlanId: PLAN,
          placementId: p.placementId,
          placementName: p.placementName,
          contentValue: value,
          dimension: p.dimension,
          resolution: 1,
          fileName: `${p.placementId}-${value}.png`,
          bytes: 10,
          status: 'COMPLETED',
          ...(previews ? { previewPath: `exports/retail-campaign-${CAMPAIGN}/${queueId}/files/${p.placementId}-${value}.png` } : {}),
        })),
      ),
    } satisfies ExportManifest);
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

  /** The campaign's content map: every placement of the plan mapped to CONTENT. */
  async function storeContentMap(): Promise<void> {
    const maps = new ContentMapRepository(bed.db);
    await withTransaction(bed.db.knex, (trx) =>
      maps.replace(
        trx,
        { accountId: ACCOUNT, retailCampaignId: CAMPAIGN, mediaPlanId: PLAN },
        { contentType: 'Product', dataServiceId: null, lookupColumn: null },
        PLACEMENTS.map((p) => ({
          adGroupId: 0,
          adGroupName: null,
          status: null,
          placementId: p.placementId,
          externalPlacementId: null,
          placementName: null,
          dimension: null,
          siteId: null,
          content: CONTENT,
        })),
      ),
    );
  }

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

  it("announces the account's export status view after each start and status move, and not when nothing changed", async () => {
    bed.viewChanges.length = 0;
    const view = { view: CACHED_VIEWS.exportStatus, tenant: String(ACCOUNT) };
    const { queueId } = await bed.exports.start(caller, request('jpg', 1), channels('ACTIVE'));
    expect(bed.viewChanges).toEqual([view]);
    // A second start answers the running export: nothing the status read shows has changed.
    expect((await bed.exports.start(caller, request('jpg', 1), channels('ACTIVE'))).queueId).toBe(queueId);
    expect(bed.viewChanges).toHaveLength(1);
    await bed.exports.record(ACCOUNT, queueId, { status: 'PROCESSING', statusMessage: '', manifestJson: null, totalItems: 4 });
    await bed.exports.record(ACCOUNT, queueId, { status: 'COMPLETED', statusMessage: 'done', manifestJson: '{"assets":[]}', totalItems: 4 });
    expect(bed.viewChanges).toEqual([view, view, view]);
    // A redelivered report on a finished export changes nothing, so it announces nothing.
    await bed.exports.record(ACCOUNT, queueId, { status: 'FAILED', statusMessage: 'late', manifestJson: null, totalItems: 0 });
    expect(bed.viewChanges).toHaveLength(3);
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
    await bed.exports.record(ACCOUNT, failed.queueId, { status: 'PROCESSING', statusMessage: '', manifestJson: null, totalItems: 2 });
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

  it('starts a preview export only as png at resolution 1, as a kind of its own beside the full export, named as a preview', async () => {
    for (const [type, resolution, pointer] of [
      ['jpg', 1, '/assetExportType'],
      ['png', 2, '/resolution'],
    ] as const) {
      const refused = await rejectionOf(bed.exports.start(caller, { ...request(type, resolution), isPreviewExport: true }, channels('ACTIVE')));
      expect(refused).toMatchObject({ status: 400, errors: [{ pointer, code: 'NOT_ALLOWED' }] });
    }
    expect(await outbox()).toEqual([]);

    const full = await bed.exports.start(caller, request('png', 1), channels('ACTIVE'));
    const first = await bed.exports.start(caller, preview, channels('ACTIVE'));
    expect(first).toMatchObject({ status: 'INITIATED', message: 'The preview export has started.' });
    expect(first.queueId).not.toBe(full.queueId);
    // A second preview start while one runs answers it.
    expect(await bed.exports.start(caller, preview, channels('ACTIVE'))).toMatchObject({ queueId: first.queueId, status: 'INITIATED' });
    const requested = (await outbox()).filter((e) => e.msg_id === `job:${first.queueId}`);
    expect(JSON.parse(requested[0].payload.toString()).payload.objectPath).toBe(
      `exports/retail-campaign-${CAMPAIGN}/${first.queueId}/Spring-sale-2026_png_1x_preview.zip`,
    );

    // Each read lists its own kind only.
    expect((await statusOf()).flatMap((e) => e.resolutions.map((r) => r.queueId))).toEqual([full.queueId]);
    expect(await statusOf({ isPreviewExport: true })).toEqual([
      { assetExportType: 'png', resolutions: [{ status: 'INITIATED', objectPath: null, resolution: 1, statusMessage: '', queueId: first.queueId }] },
    ]);
    await bed.exports.record(ACCOUNT, first.queueId, { status: 'PROCESSING', statusMessage: '', manifestJson: null, totalItems: 4 });
    await bed.exports.record(ACCOUNT, first.queueId, { status: 'COMPLETED', statusMessage: 'Rendered 4 of 4 creatives.', manifestJson: '{}', totalItems: 4 });
    expect((await statusOf({ isPreviewExport: true }))[0].resolutions).toEqual([
      {
        status: 'COMPLETED',
        objectPath: expect.stringMatching(/_png_1x_preview\.zip$/),
        resolution: 1,
        statusMessage: 'Rendered 4 of 4 creatives.',
        queueId: first.queueId,
      },
    ]);
  });

  it("gives a preview export the first items of each placement and a full export all of them, with the campaign's status now", async () => {
    await storeContentMap();
    const full = await bed.exports.start(caller, request('png', 1), channels('ACTIVE'));
    const sample = await bed.exports.start(caller, preview, channels('ACTIVE'));

    const fullWork = await bed.exports.work(ACCOUNT, full.queueId, channels('ACTIVE'), assets);
    expect(fullWork.items).toHaveLength(PLACEMENTS.length * CONTENT.length);
    expect(fullWork.campaignStatus).toBe('ACTIVE');
    const sampleWork = await bed.exports.work(ACCOUNT, sample.queueId, channels('PAUSED'), assets);
    expect(sampleWork.record.isPreview).toBe(true);
    expect(sampleWork.campaignStatus).toBe('PAUSED');
    expect(sampleWork.items.map((i) => [i.placementId, i.contentValue])).toEqual(
      PLACEMENTS.flatMap((p) => CONTENT.slice(0, EXPORT_LIMITS.previewItemsPerPlacement).map((value) => [p.placementId, value])),
    );
  });

  it('fills previewUrls of the content map read from the newest completed preview export, not from a full png export', async () => {
    await storeContentMap();
    const key = { accountId: ACCOUNT, retailCampaignId: CAMPAIGN, mediaPlanId: PLAN };
    const urls = async () =>
      (await bed.contentMaps.get(key, undefined, channels('ACTIVE'), assets)).placementContentMap.flatMap((p) =>
        p.content.map((c) => [p.placementId, c.contentValue, c.previewUrls[0].objectPath ?? null]),
      );
    expect((await urls()).every(([, , path]) => path === null)).toBe(true);

    // A full png export keeps no file of its own: previews stay the product image.
    const full = await bed.exports.start(caller, request('png', 1), channels('ACTIVE'));
    await bed.exports.record(ACCOUNT, full.queueId, {
      status: 'COMPLETED',
      statusMessage: 'ok',
      manifestJson: manifestOf(full.queueId, CONTENT, false),
      totalItems: 16,
    });
    expect((await urls()).every(([, , path]) => path === null)).toBe(true);

    const older = await bed.exports.start(caller, preview, channels('ACTIVE'));
    await bed.exports.record(ACCOUNT, older.queueId, {
      status: 'COMPLETED',
      statusMessage: 'ok',
      manifestJson: manifestOf(older.queueId, ['SKU-1'], true),
      totalItems: 2,
    });
    const sampled = CONTENT.slice(0, EXPORT_LIMITS.previewItemsPerPlacement);
    const newer = await bed.exports.start(caller, preview, channels('ACTIVE'));
    await bed.exports.record(ACCOUNT, newer.queueId, {
      status: 'COMPLETED',
      statusMessage: 'ok',
      manifestJson: manifestOf(newer.queueId, sampled, true),
      totalItems: 10,
    });
    // A preview export still running does not hide the newest completed one.
    await bed.exports.start(caller, preview, channels('ACTIVE'));

    expect(await urls()).toEqual(
      PLACEMENTS.flatMap((p) =>
        CONTENT.map((value) => [
          String(p.placementId),
          value,
          sampled.includes(value) ? `exports/retail-campaign-${CAMPAIGN}/${newer.queueId}/files/${p.placementId}-${value}.png` : null,
        ]),
      ),
    );
  });

  it('answers NOT_INITIATED for each format and resolution the filter names that was never exported, and ARCHIVED for them once archived', async () => {
    const done = await bed.exports.start(caller, request('png', 1), channels('ACTIVE'));
    await bed.exports.record(ACCOUNT, done.queueId, { status: 'COMPLETED', statusMessage: 'ok', manifestJson: '{}', totalItems: 1 });
    const never = (resolution: number, preview = false) => ({
      status: 'NOT_INITIATED',
      objectPath: null,
      resolution,
      statusMessage: `No ${preview ? 'preview ' : ''}export of this format and resolution has been started.`,
      queueId: '',
    });

    // png names resolutions 1 and 2; only 1 was exported.
    expect(await statusOf({ assetExportType: 'png' })).toEqual([
      {
        assetExportType: 'png',
        resolutions: [
          { status: 'COMPLETED', objectPath: expect.stringContaining(done.queueId), resolution: 1, statusMessage: 'ok', queueId: done.queueId },
          never(2),
        ],
      },
    ]);
    // tiff and mp4 export at 1 only; a named resolution is that line alone.
    expect(await statusOf({ assetExportType: 'tiff' })).toEqual([{ assetExportType: 'tiff', resolutions: [never(1)] }]);
    expect(await statusOf({ assetExportType: 'jpg', resolution: 2 })).toEqual([{ assetExportType: 'jpg', resolutions: [never(2)] }]);
    expect(await statusOf({ assetExportType: 'mp4', resolution: 2 })).toEqual([]);
    // Without a format only what was exported is listed.
    expect((await statusOf()).map((e) => e.assetExportType)).toEqual(['png']);
    expect(await statusOf({ resolution: 2 })).toEqual([]);
    // Preview exports: png at 1 only.
    expect(await statusOf({ assetExportType: 'png', isPreviewExport: true })).toEqual([{ assetExportType: 'png', resolutions: [never(1, true)] }]);
    expect(await statusOf({ assetExportType: 'jpg', isPreviewExport: true })).toEqual([]);
    expect(await statusOf({ isPreviewExport: true })).toEqual([]);

    expect((await statusOf({ assetExportType: 'png' }, 'ARCHIVED'))[0].resolutions.map((r) => [r.status, r.resolution, r.objectPath])).toEqual([
      ['ARCHIVED', 1, null],
      ['ARCHIVED', 2, null],
    ]);
  });

  it('stores FAILED_TO_INITIATE for an export that failed before PROCESSING and FAILED after it; either frees the slot and keeps the earlier zip AVAILABLE', async () => {
    const done = await bed.exports.start(caller, request('jpg', 1), channels('ACTIVE'));
    await bed.exports.record(ACCOUNT, done.queueId, { status: 'COMPLETED', statusMessage: 'ok', manifestJson: '{}', totalItems: 1 });

    const refused = await bed.exports.start(caller, request('jpg', 1), channels('ACTIVE'));
    const reason = 'The campaign has no content mapped to placements of its media plans: nothing to export.';
    await bed.exports.record(ACCOUNT, refused.queueId, { status: 'FAILED', statusMessage: reason, manifestJson: null, totalItems: 0 });
    expect(await bed.exports.manifest(ACCOUNT, CAMPAIGN, refused.queueId)).toMatchObject({ status: 'FAILED_TO_INITIATE', statusMessage: reason });
    expect((await statusOf({ assetExportType: 'jpg', resolution: 1 }))[0].resolutions).toEqual([
      { status: 'FAILED_TO_INITIATE', objectPath: null, resolution: 1, statusMessage: reason, queueId: refused.queueId },
      { status: 'AVAILABLE', objectPath: expect.stringContaining(done.queueId), resolution: 1, statusMessage: 'ok', queueId: done.queueId },
    ]);
    // Finished: a late report changes nothing, the renderer is told it failed, and the next start is a new export.
    await bed.exports.record(ACCOUNT, refused.queueId, { status: 'PROCESSING', statusMessage: '', manifestJson: null, totalItems: 3 });
    expect((await bed.exports.work(ACCOUNT, refused.queueId, channels('ACTIVE'), assets)).record.status).toBe('FAILED_TO_INITIATE');

    const drawn = await bed.exports.start(caller, request('jpg', 1), channels('ACTIVE'));
    expect(drawn.queueId).not.toBe(refused.queueId);
    await bed.exports.record(ACCOUNT, drawn.queueId, { status: 'PROCESSING', statusMessage: '', manifestJson: null, totalItems: 3 });
    await bed.exports.record(ACCOUNT, drawn.queueId, { status: 'FAILED', statusMessage: 'No creative could be drawn', manifestJson: null, totalItems: 3 });
    expect((await statusOf({ assetExportType: 'jpg', resolution: 1 }))[0].resolutions.map((r) => [r.status, r.queueId])).toEqual([
      ['FAILED', drawn.queueId],
      ['AVAILABLE', done.queueId],
    ]);
    // The renderer cannot report FAILED_TO_INITIATE itself: it is derived from where the export stood.
    const other = await bed.exports.start(caller, request('gif', 1), channels('ACTIVE'));
    expect(
      await rejectionOf(bed.exports.record(ACCOUNT, other.queueId, { status: 'FAILED_TO_INITIATE', statusMessage: '', manifestJson: null, totalItems: 0 })),
    ).toMatchObject({ status: 400 });
  });
});
