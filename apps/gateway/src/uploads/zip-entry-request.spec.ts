import { MAX_SERVED_ZIP_ENTRY_BYTES, zipEntryOf, zipEntryType } from './zip-entry-request';

describe('zipEntryOf', () => {
  it('reads the name, offset and size an entry URL carries', () => {
    expect(zipEntryOf({ entry: '12-SKU-1.png', at: '58', bytes: '4100' })).toEqual({ name: '12-SKU-1.png', offset: 58, bytes: 4100 });
    expect(zipEntryOf({ entry: 'a.png', at: '0', bytes: '0' })).toEqual({ name: 'a.png', offset: 0, bytes: 0 });
  });

  it('refuses anything else: missing or repeated parameters, non-decimal numbers, an entry too large to hold', () => {
    for (const query of [
      { entry: 'a.png', at: '58' },
      { entry: '', at: '1', bytes: '1' },
      { entry: ['a.png', 'b.png'], at: '1', bytes: '1' },
      { entry: 'a.png', at: '-1', bytes: '1' },
      { entry: 'a.png', at: '1e3', bytes: '1' },
      { entry: 'a.png', at: '01', bytes: '1' },
      { entry: 'a.png', at: '1', bytes: String(MAX_SERVED_ZIP_ENTRY_BYTES + 1) },
      { entry: 'x'.repeat(256), at: '1', bytes: '1' },
    ])
      expect(zipEntryOf(query)).toBeUndefined();
  });
});

describe('zipEntryType', () => {
  it('types the formats an export writes by extension', () => {
    expect(['a.png', 'a.JPG', 'a.gif', 'a.tiff', 'a.mp4', 'manifest.json', 'a.exe', 'png'].map(zipEntryType)).toEqual([
      'image/png',
      'image/jpeg',
      'image/gif',
      'image/tiff',
      'video/mp4',
      'application/json',
      'application/octet-stream',
      'application/octet-stream',
    ]);
  });
});
