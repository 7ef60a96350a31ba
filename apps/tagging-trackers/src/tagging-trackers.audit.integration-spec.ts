import { AUDIT_CHANGE_SUBJECT, type AuditChangeEvent } from '@contracts/domain';
import { OUTBOX_TABLE } from '@platform/nats';
import type { PlanFacts } from './peers/channels-plans.peer';
import { FixedChannelsPlans, openTaggingTrackersTestBed, type TaggingTrackersTestBed } from './tagging-trackers.test-support';

jest.setTimeout(60_000);

const plan: PlanFacts = {
  mediaPlanId: 3,
  mediaPlanName: 'Spring - Northmart',
  retailCampaignId: 10,
  placements: [{ placementId: 31, placementName: 'Top', siteIdx: 5, siteName: 'Northmart', dimension: '300x250', adServerId: 'gam', adServerKind: 'display' }],
};

/** Tag variable maps and trackers enter the audit trail in the transaction of each change, a dry run does not. */
describe('tagging-trackers audit trail (real MariaDB)', () => {
  let bed: TaggingTrackersTestBed;
  const peer = new FixedChannelsPlans(new Map([['1/10', { retailCampaignId: 10, campaignName: 'Spring', status: 'ACTIVE' }]]), new Map([['1/3', plan]]));

  beforeAll(async () => {
    bed = await openTaggingTrackersTestBed('tta');
  });
  afterAll(() => bed.close());

  const trail = async (): Promise<AuditChangeEvent[]> =>
    (await bed.db.knex(OUTBOX_TABLE).where('subject', 'like', `%${AUDIT_CHANGE_SUBJECT}`).orderBy('id').select('payload')).map(
      (row: { payload: Buffer }) => JSON.parse(Buffer.from(row.payload).toString('utf8')) as AuditChangeEvent,
    );

  it('records a tag variable map created and updated, and trackers appended, but not a dry run', async () => {
    const entry = { adServerId: 'gam', dataSignal: 'storeId', macroName: '%%PATTERN:store%%', adServerParamsJson: '{}' };
    const idx = await bed.tagVariableMaps.create(peer, 1, 10, entry);
    await bed.tagVariableMaps.update(peer, 1, 10, idx, { ...entry, macroName: '%%PATTERN:shop%%' });
    const rows = [{ siteName: 'Northmart', placementName: 'Top', trackers: { primaryClickTracker: 'https://t.example/c' } }];
    await bed.trackers.update(peer, 1, 3, 10, { type: 'inline', isValidate: true, rows });
    await bed.trackers.update(peer, 1, 3, 10, { type: 'inline', isValidate: false, rows });

    const events = await trail();
    expect(events.map((e) => [e.resourceType, e.action, e.resourceId])).toEqual([
      ['tag-variable-map', 'create', String(idx)],
      ['tag-variable-map', 'update', String(idx)],
      ['tracker', 'update', '3'],
    ]);
    expect(events[1]).toMatchObject({ before: { macroName: '%%PATTERN:store%%' }, after: { macroName: '%%PATTERN:shop%%' }, changedFields: ['macroName'] });
    expect(events[2]).toMatchObject({
      accountId: 1,
      actor: { keyId: 'test-key' },
      before: { trackerCount: 0 },
      after: { trackerCount: 1, appended: [{ placementId: 31, trackerType: 'primaryClickTracker', value: 'https://t.example/c' }] },
    });
  });
});
