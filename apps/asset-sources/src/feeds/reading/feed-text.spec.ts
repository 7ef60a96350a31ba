import iconv from 'iconv-lite';
import { ByteTally, decodeFeedText, utf8FeedBytes } from './feed-text';

/** The bytes as chunks of `size` bytes. */
async function* chunked(bytes: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}
const text = async (chunks: AsyncIterable<string>) => {
  let all = '';
  for await (const chunk of chunks) all += chunk;
  return all;
};
const bytes = async (chunks: AsyncIterable<Buffer>) => {
  const all: Buffer[] = [];
  for await (const chunk of chunks) all.push(chunk);
  return Buffer.concat(all);
};

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const UTF16LE_BOM = Buffer.from([0xff, 0xfe]);

describe('feed text: the byte-order mark looked at once, dropped, and obeyed', () => {
  it.each([1, 2, 3, 64])('drops a UTF-8 BOM cut into %i-byte chunks, and counts every byte', async (size) => {
    const feed = Buffer.concat([UTF8_BOM, Buffer.from('sku,name\nA1,Äpfel\n')]);
    const tally = new ByteTally();
    expect(await text(decodeFeedText(chunked(feed, size), 'iso_8859_1', tally))).toBe('sku,name\nA1,Äpfel\n');
    expect(tally.bytes).toBe(feed.length);
    expect((await bytes(utf8FeedBytes(chunked(feed, size), 'UTF_8'))).toString()).toBe('sku,name\nA1,Äpfel\n');
  });

  it('reads iso_8859_1 as browsers do (windows-1252): its euro sign and curly quotes, not control characters', async () => {
    const feed = Buffer.from([...Buffer.from('sku,name\nA1,'), 0x93, 0x80, 0x35, 0x94, 0x20, 0x96, 0x20, 0xe9, 0x0a]);
    expect(await text(decodeFeedText(chunked(feed, 3), 'iso_8859_1'))).toBe('sku,name\nA1,“€5” – é\n');
    expect((await bytes(utf8FeedBytes(chunked(feed, 3), 'iso_8859_1'))).toString()).toBe('sku,name\nA1,“€5” – é\n');
  });

  it.each([1, 5])('reads UTF-16LE by its BOM whatever the settings say (%i-byte chunks), as text and as UTF-8 bytes', async (size) => {
    const feed = Buffer.concat([UTF16LE_BOM, iconv.encode('sku\nÄ1 ✓\n', 'utf16le')]);
    expect(await text(decodeFeedText(chunked(feed, size), 'UTF_8'))).toBe('sku\nÄ1 ✓\n');
    expect((await bytes(utf8FeedBytes(chunked(feed, size), 'UTF_8'))).toString()).toBe('sku\nÄ1 ✓\n');
  });

  it('passes UTF-8 bytes without a BOM through as they came, and decodes the encoding the settings name', async () => {
    const feed = Buffer.from('a\nb\n');
    const first = feed.subarray(0, 3);
    const passed: Buffer[] = [];
    for await (const chunk of utf8FeedBytes(chunked(feed, 3), 'UTF_8')) passed.push(chunk);
    expect(passed[0]).toEqual(first);
    expect((await bytes(utf8FeedBytes(chunked(iconv.encode('é\n', 'win1252'), 1), 'CP1252'))).toString()).toBe('é\n');
  });

  it.each([1, 3, 5, 7])('keeps a UTF-16LE surrogate pair (an emoji) whole when a %i-byte chunk cuts it, as text and as UTF-8 bytes', async (size) => {
    const words = 'sku,name\nA1,x😀 y 🎉\n'.repeat(40);
    for (const feed of [iconv.encode(words, 'utf16le'), Buffer.concat([UTF16LE_BOM, iconv.encode(words, 'utf16le')])]) {
      const chunks: string[] = [];
      for await (const chunk of decodeFeedText(chunked(feed, size), 'utf_16le')) chunks.push(chunk);
      expect(chunks.join('')).toBe(words);
      // No chunk of text ends in half a character.
      expect(chunks.filter((chunk) => /[\ud800-\udbff]$/.test(chunk))).toEqual([]);
      expect((await bytes(utf8FeedBytes(chunked(feed, size), 'utf_16le'))).toString()).toBe(words);
    }
  });

  it('ends a UTF-16LE feed cut inside a surrogate pair with its high half as it is', async () => {
    const feed = iconv.encode('a😀', 'utf16le').subarray(0, 4);
    expect(await text(decodeFeedText(chunked(feed, 1), 'utf_16le'))).toBe('a\ud83d');
    expect((await bytes(utf8FeedBytes(chunked(feed, 1), 'utf_16le'))).toString()).toBe('a\ufffd');
  });

  it('decides a feed shorter than a BOM at its end', async () => {
    expect(await text(decodeFeedText(chunked(Buffer.from('a'), 1), 'UTF_8'))).toBe('a');
    expect(await text(decodeFeedText(chunked(UTF16LE_BOM, 1), 'UTF_8'))).toBe('');
    expect((await bytes(utf8FeedBytes(chunked(Buffer.alloc(0), 1), 'UTF_8'))).length).toBe(0);
  });
});
