/**
 * The body of a feed create (38) for a comma-separated CSV with a header row over plain HTTP GET, keyed by
 * `sku`, not scheduled: what most feed specs start from, with their own columns and overrides.
 */
export function httpCsvFeedBody(url: string, columnNames: string[], overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    assetSourceName: 'Retailer feed',
    url,
    urlType: 'http',
    urlConfig: { httpMethod: 'GET' },
    contentType: 'csv',
    csvSeparator: 'comma',
    firstRowIsHeader: true,
    characterEncoding: 'UTF_8',
    cdp: false,
    columnNames,
    assetKeyColumn: 'sku',
    isScheduled: false,
    ...overrides,
  };
}
