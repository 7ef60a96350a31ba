import type { IngestionInputs } from './run-supersede';
import { ingestionChanged } from './run-supersede';

const inputs = (): IngestionInputs => ({
  settings: {
    location: { urlType: 'http', url: 'https://feeds.example.com/p.csv', fileId: null, urlConfig: { httpMethod: 'GET' } },
    format: { contentType: 'csv', characterEncoding: 'UTF_8', csvSeparator: 'comma', firstRowIsHeader: true, cdp: false, customCode: null, feedConfig: null },
    policies: { missingRowPolicy: 'delete', shrinkGuardPercent: 50 },
  },
  secrets: { username: 'u', password: 'p' },
  columnNames: ['sku', 'name'],
  columns: { assetKeyColumn: 'sku', assetVariantColumn: null, assetGroupColumn: null, reportingColumn: null, rotationWeightColumn: null },
});

describe(ingestionChanged.name, () => {
  it('sees no change in the same inputs, whatever the order of members or null against absent', () => {
    const same = inputs();
    // A request leaves out what the stored settings hold as null.
    const location: Record<string, unknown> = { ...same.settings.location };
    delete location.fileId;
    const reordered: IngestionInputs = {
      ...same,
      settings: { ...same.settings, location: location as unknown as IngestionInputs['settings']['location'] },
      secrets: { password: 'p', username: 'u' },
    };
    expect(ingestionChanged(inputs(), reordered)).toBe(false);
  });

  it.each<[string, (i: IngestionInputs) => void]>([
    ['the url', (i) => (i.settings.location.url = 'https://feeds.example.com/q.csv')],
    ['a credential', (i) => (i.secrets.password = 'p2')],
    ['the separator', (i) => (i.settings.format.csvSeparator = 'tab')],
    ['the custom code', (i) => (i.settings.format.customCode = 'row => row')],
    ['the missing-row policy', (i) => (i.settings.policies.missingRowPolicy = 'keep')],
    ['a column', (i) => (i.columnNames = [...i.columnNames, 'price'])],
    ['the key column', (i) => (i.columns.assetKeyColumn = 'name')],
  ])('sees a change of %s', (_what, change) => {
    const after = inputs();
    change(after);
    expect(ingestionChanged(inputs(), after)).toBe(true);
  });
});
