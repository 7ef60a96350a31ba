import { DATA_SIGNAL_OPERATORS } from '@contracts/domain';
import { openContentCreativeTestBed, type ContentCreativeTestBed } from '../content-creative.test-support';
import { DATA_SIGNAL_CATALOG } from './data-signal.catalog';

jest.setTimeout(60_000);

describe('DataSignalService (real MariaDB)', () => {
  let bed: ContentCreativeTestBed;

  beforeAll(async () => {
    bed = await openContentCreativeTestBed('ds');
  });

  afterAll(async () => {
    await bed?.close();
  });

  it('holds the seeded families with their properties, in id order, and seeding again changes nothing', async () => {
    const page = await bed.dataSignals.list({ offset: 0, limit: 100 });
    expect(page.total).toBe(DATA_SIGNAL_CATALOG.length);
    expect(page.items.map((s) => s.dataSignalName)).toEqual(['Geography', 'Time', 'Weather', 'Device', 'Audience']);
    const properties = page.items.flatMap((s) => s.properties.map((p) => p.propertyId));
    expect(properties).toEqual([
      'country',
      'region',
      'city',
      'postalCode',
      'dayOfWeek',
      'hourOfDay',
      'condition',
      'temperature',
      'deviceType',
      'os',
      'segment',
    ]);
    for (const property of page.items.flatMap((s) => s.properties)) {
      expect(property.operators.length).toBeGreaterThan(0);
      expect(property.operators.every((op) => (DATA_SIGNAL_OPERATORS as readonly string[]).includes(op))).toBe(true);
    }
    await bed.dataSignals.seedCatalog();
    expect(await bed.dataSignals.list({ offset: 0, limit: 100 })).toEqual(page);
  });

  it('pages with the total, and past the end is empty with the total still right', async () => {
    const first = await bed.dataSignals.list({ offset: 0, limit: 2 });
    const last = await bed.dataSignals.list({ offset: 4, limit: 2 });
    const past = await bed.dataSignals.list({ offset: 10, limit: 2 });
    expect(first.items.map((s) => s.dataSignalId)).toEqual([1, 2]);
    expect(last.items.map((s) => s.dataSignalId)).toEqual([5]);
    expect(past).toEqual({ items: [], total: 5 });
  });

  it('numeric properties allow range operators; text ones do not', async () => {
    const index = await bed.dataSignals.index();
    expect(index.get(2)?.properties.get('hourOfDay')).toMatchObject({ valueType: 'number', operators: expect.arrayContaining(['GREATER_THAN', 'BETWEEN']) });
    expect(index.get(1)?.properties.get('country')?.operators).not.toContain('GREATER_THAN');
  });
});
