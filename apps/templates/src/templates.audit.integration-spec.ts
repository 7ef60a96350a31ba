import { AUDIT_CHANGE_SUBJECT, type AuditChangeEvent } from '@contracts/domain';
import { OUTBOX_TABLE } from '@platform/nats';
import { layoutFor } from './templates/template.catalog';
import type { TemplateInput } from './templates/template.model';
import { openTemplatesTestBed, rejectionOf, type TemplatesTestBed } from './templates.test-support';

jest.setTimeout(60_000);

const custom = (name: string): TemplateInput => ({
  templateName: name,
  retailerId: 900,
  inventoryType: 'onsite',
  adFormat: 'Display Banner',
  sourceOfProductInformation: 'Hybrid',
  productSelectionMethod: 'Fixed Product Selection',
  creativeStyle: ['Static Banner'],
  category: ['Toys'],
  templateType: ['Custom'],
  layouts: [layoutFor('300x250', { background: '#ffffff', text: '#000000', accent: '#ff0000' }, 'Hello', 'Go')],
});

/** Custom templates enter the audit trail on create, replace and delete; a System template's refused delete does not. */
describe('templates audit trail (real MariaDB)', () => {
  let bed: TemplatesTestBed;

  beforeAll(async () => {
    bed = await openTemplatesTestBed('tpa');
  });

  afterAll(async () => {
    await bed?.close();
  });

  const trail = async (): Promise<AuditChangeEvent[]> =>
    (await bed.db.knex(OUTBOX_TABLE).where('subject', 'like', `%${AUDIT_CHANGE_SUBJECT}`).orderBy('id').select('payload')).map(
      (row: { payload: Buffer }) => JSON.parse(Buffer.from(row.payload).toString('utf8')) as AuditChangeEvent,
    );

  it('records a Custom template created, replaced and deleted, with before and after', async () => {
    const idx = await bed.templates.create(501, custom('Audited'));
    await bed.templates.update(501, idx, custom('Audited again'));
    // Template 1 is of the seeded System catalog: not the account's to delete, so nothing is recorded.
    await rejectionOf(bed.templates.delete(501, 1));
    await bed.templates.delete(501, idx);
    const events = await trail();
    expect(events.map((e) => [e.resourceType, e.action, e.resourceId, e.accountId])).toEqual([
      ['custom-template', 'create', String(idx), 501],
      ['custom-template', 'update', String(idx), 501],
      ['custom-template', 'delete', String(idx), 501],
    ]);
    expect(events[0]).toMatchObject({ before: null, after: { templateName: 'Audited', ownership: 'Custom', layouts: [expect.any(Object)] } });
    expect(events[1]).toMatchObject({ before: { templateName: 'Audited' }, after: { templateName: 'Audited again' } });
    expect(events[1]?.changedFields).toContain('templateName');
    expect(events[2]).toMatchObject({ before: { templateName: 'Audited again' }, after: null });
  });

  it('records a bookmark added and removed, not a repeat of either', async () => {
    const seen = (await trail()).length;
    // Template 1 is of the seeded System catalog, which every account may bookmark.
    await bed.templates.setBookmark(502, 1, true);
    await bed.templates.setBookmark(502, 1, true);
    await bed.templates.setBookmark(502, 1, false);
    await bed.templates.setBookmark(502, 1, false);
    const events = (await trail()).slice(seen);
    expect(events.map((e) => [e.resourceType, e.action, e.resourceId, e.accountId])).toEqual([
      ['template-bookmark', 'create', '1', 502],
      ['template-bookmark', 'delete', '1', 502],
    ]);
    expect(events[0]).toMatchObject({ before: null, after: { accountId: 502, templateIdx: 1 } });
    expect(events[1]).toMatchObject({ before: { accountId: 502, templateIdx: 1 }, after: null });
  });
});
