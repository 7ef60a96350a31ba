import { randomBytes } from 'node:crypto';
import { buffer as readWhole } from 'node:stream/consumers';
import { fromBuffer, type Entry, type ZipFile } from 'yauzl';
import { crc32 } from 'node:zlib';
import { StoredZipWriter } from './stored-zip-writer';

/** Every entry of a zip as yauzl (an independent reader) sees it: name, method, bytes. */
async function unzip(zip: Buffer): Promise<{ name: string; method: number; bytes: Buffer }[]> {
  const file = await new Promise<ZipFile>((resolve, reject) =>
    fromBuffer(zip, { lazyEntries: true, validateEntrySizes: true }, (error, z) => (error ? reject(error) : resolve(z))),
  );
  const entries: { name: string; method: number; bytes: Buffer }[] = [];
  await new Promise<void>((resolve, reject) => {
    file.on('error', reject);
    file.on('end', resolve);
    file.on('entry', (entry: Entry) => {
      file.openReadStream(entry, (error, stream) => {
        if (error) return reject(error);
        readWhole(stream).then((bytes) => {
          entries.push({ name: entry.fileName, method: entry.compressionMethod, bytes });
          file.readEntry();
        }, reject);
      });
    });
    file.readEntry();
  });
  return entries;
}

describe('StoredZipWriter', () => {
  it('writes a zip any reader opens, every entry stored, each at the offset add answered', async () => {
    const zip = new StoredZipWriter({ modified: new Date('2026-11-28T12:00:00Z') });
    const collected = readWhole(zip.output);
    const files = [
      { name: '1-SKU-1.png', bytes: randomBytes(70_000) },
      { name: 'ünïcode/2-SKU-2.png', bytes: randomBytes(3) },
      { name: 'empty.txt', bytes: Buffer.alloc(0) },
    ];
    // Overlapping calls, as the drawing lanes make them: entries go in call order.
    const placed = await Promise.all(files.map((f) => zip.add(f.name, f.bytes)));
    await zip.add('manifest.json', Buffer.from(JSON.stringify(placed)));
    await zip.end();
    const bytes = await collected;

    for (const [i, entry] of placed.entries()) {
      expect(entry).toMatchObject({ name: files[i].name, bytes: files[i].bytes.length });
      expect(bytes.subarray(entry.offset, entry.offset + entry.bytes).equals(files[i].bytes)).toBe(true);
    }
    const read = await unzip(bytes);
    expect(read.map((e) => [e.name, e.method])).toEqual([...files.map((f) => [f.name, 0]), ['manifest.json', 0]]);
    for (const [i, f] of files.entries()) expect(read[i].bytes.equals(f.bytes)).toBe(true);
    expect(JSON.parse(read[3].bytes.toString())).toEqual(placed);
  });

  it('refuses a duplicate name and an entry after the end', async () => {
    const zip = new StoredZipWriter();
    const collected = readWhole(zip.output);
    await zip.add('a.png', Buffer.from('a'));
    await expect(zip.add('a.png', Buffer.from('b'))).rejects.toThrow('duplicate zip entry: a.png');
    await zip.end();
    await expect(zip.add('b.png', Buffer.from('b'))).rejects.toThrow('the zip has ended');
    expect((await unzip(await collected)).map((e) => e.name)).toEqual(['a.png']);
  });

  it('waits for its reader instead of buffering the zip', async () => {
    const zip = new StoredZipWriter({ bufferBytes: 16 * 1024 });
    let added = 0;
    const adding = (async () => {
      for (let i = 0; i < 8; i++) {
        await zip.add(`${i}.bin`, Buffer.alloc(64 * 1024, i));
        added++;
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Nobody reads: the first entry fills the stream's buffer and the next add waits.
    expect(added).toBeLessThan(2);
    const collected = readWhole(zip.output);
    await adding;
    await zip.end();
    expect((await unzip(await collected)).length).toBe(8);
  });

  it('fails its reader and pending entries when aborted', async () => {
    const zip = new StoredZipWriter();
    const collected = readWhole(zip.output);
    await zip.add('a.png', Buffer.from('a'));
    zip.abort(new Error('render failed'));
    await expect(collected).rejects.toThrow('render failed');
    await expect(zip.add('b.png', Buffer.from('b'))).rejects.toThrow();
  });
});

describe('crc32', () => {
  it('(node:zlib) is the CRC a zip entry carries', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
    expect(crc32(Buffer.alloc(0))).toBe(0);
  });
});
