import { Utf8Watch } from './utf8-watch';

const watched = (...chunks: Buffer[]) => {
  const watch = new Utf8Watch();
  for (const chunk of chunks) watch.see(chunk);
  watch.end();
  return watch.firstInvalid;
};

describe('Utf8Watch', () => {
  const text = Buffer.from('sku,name\nA1,Café “crème” ☃ 𝄞\n');

  it('finds nothing in UTF-8, whichever byte the chunks are cut at', () => {
    expect(watched(text)).toBeNull();
    for (let cut = 1; cut < text.length; cut++) expect(watched(text.subarray(0, cut), text.subarray(cut))).toBeNull();
    const bytes = [...text];
    expect(watched(...bytes.map((b) => Buffer.from([b])))).toBeNull();
  });

  it('names the offset and value of the first byte that is not UTF-8, across chunks', () => {
    const latin1 = Buffer.from('sku,name\nA1,Café\n', 'latin1');
    expect(watched(latin1)).toEqual({ at: 15, byte: 0xe9 });
    expect(watched(latin1.subarray(0, 10), latin1.subarray(10))).toEqual({ at: 15, byte: 0xe9 });
    // A lead byte at a chunk's end whose next chunk does not continue it.
    expect(watched(Buffer.from([0x41, 0xc3]), Buffer.from([0x41]))).toEqual({ at: 1, byte: 0xc3 });
    // Offsets count from the feed's start when a byte-order mark was dropped before the watch.
    const afterBom = new Utf8Watch();
    afterBom.skipped(3);
    afterBom.see(latin1);
    expect(afterBom.firstInvalid).toEqual({ at: 18, byte: 0xe9 });
  });

  it('refuses overlong forms, surrogates, bytes UTF-8 never uses and a character the feed ends inside', () => {
    expect(watched(Buffer.from([0x41, 0xc0, 0x80]))).toEqual({ at: 1, byte: 0xc0 });
    expect(watched(Buffer.from([0xed, 0xa0, 0x80]))).toEqual({ at: 0, byte: 0xed });
    expect(watched(Buffer.from([0x41, 0x42, 0xff]))).toEqual({ at: 2, byte: 0xff });
    expect(watched(Buffer.from([0x41, 0xe2, 0x98]))).toEqual({ at: 1, byte: 0xe2 });
  });
});
