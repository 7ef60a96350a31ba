import { AUDIT_CHANGE_SUBJECT, type AuditChangeEvent } from '@contracts/domain';
import { OUTBOX_TABLE } from '@platform/nats';
import { openContentCreativeTestBed, rejectionOf, type ContentCreativeTestBed } from './content-creative.test-support';
import type { AssetSourcesPeer } from './peers/asset-sources.peer';

jest.setTimeout(60_000);

const noAssetSources: AssetSourcesPeer = {
  describe: () => Promise.reject(new Error('a campaign that names no asset source asks asset-sources nothing')),
  findRows: () => Promise.reject(new Error('a campaign reads no asset rows')),
};

/** A dynamic campaign's create and delete enter the audit trail in the transaction of each, under the caller. */
describe('content-creative audit trail (real MariaDB)', () => {
  let bed: ContentCreativeTestBed;

  beforeAll(async () => {
    bed = await openContentCreativeTestBed('cca');
  });

  afterAll(async () => {
    await bed?.close();
  });

  const trail = async (): Promise<AuditChangeEvent[]> =>
    (await bed.db.knex(OUTBOX_TABLE).where('subject', 'like', `%${AUDIT_CHANGE_SUBJECT}`).orderBy('id').select('payload')).map(
      (row: { payload: Buffer }) => JSON.parse(Buffer.from(row.payload).toString('utf8')) as AuditChangeEvent,
    );

  it('records a dynamic campaign created and deleted, and nothing for a refused delete', async () => {
    const campaignId = await bed.campaigns.create(
      810,
      {
        campaignName: 'Audited',
        defaultURL: 'https://shop.example.com/a',
        assetMap: [],
        decisionMap: [],
        decisionGraph: { defaultCreativeMaster: 'cm-default', rulePriority: 'EQUAL_ROTATION', segments: [] },
        ad: { adId: 'ad-1' },
      },
      noAssetSources,
    );
    await bed.campaigns.delete(810, campaignId);
    await rejectionOf(bed.campaigns.delete(810, campaignId));
    const events = await trail();
    expect(events.map((e) => [e.resourceType, e.action, e.resourceId, e.accountId])).toEqual([
      ['dynamic-campaign', 'create', String(campaignId), 810],
      ['dynamic-campaign', 'delete', String(campaignId), 810],
    ]);
    expect(events[0]).toMatchObject({
      actor: { keyId: 'test-key' },
      before: null,
      after: { campaignName: 'Audited', defaultURL: 'https://shop.example.com/a' },
    });
    expect(events[1]).toMatchObject({ before: { campaignName: 'Audited' }, after: null });
  });
});
