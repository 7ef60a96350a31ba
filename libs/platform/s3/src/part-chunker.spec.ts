import { Readable } from 'node:stream';
import { chunkIntoParts } from './part-chunker';

async function collect(parts: AsyncIterable<Buffer>): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for await (const part of parts) out.push(part);
  return out;
}

describe(chunkIntoParts.name, () => {
  it('re-slices uneven chunks into full parts and a short last part, keeping every byte in order', async () => {
    const bytes = Buffer.from(Array.from({ length: 23 }, (_, i) => i));
    const source = Readable.from([bytes.subarray(0, 3), bytes.subarray(3, 4), bytes.subarray(4, 17), bytes.subarray(17)]);
    const parts = await collect(chunkIntoParts(source, 5));
    expect(parts.map((part) => part.length)).toEqual([5, 5, 5, 5, 3]);
    expect(Buffer.concat(parts)).toEqual(bytes);
  });

  it('yields nothing for an empty source and no empty trailing part for an exact multiple', async () => {
    expect(await collect(chunkIntoParts(Readable.from([]), 4))).toEqual([]);
    const parts = await collect(chunkIntoParts(Readable.from([Buffer.alloc(8, 1)]), 4));
    expect(parts.map((part) => part.length)).toEqual([4, 4]);
  });

  it('accepts string and Uint8Array chunks and refuses object-mode chunks', async () => {
    const parts = await collect(chunkIntoParts(Readable.from(['ab', new Uint8Array([99, 100])]), 10));
    expect(Buffer.concat(parts).toString()).toBe('abcd');
    await expect(collect(chunkIntoParts(Readable.from([{ not: 'bytes' }]), 10))).rejects.toThrow(/byte streams/);
  });

  it('reads the source only as far as the consumer has asked', async () => {
    let produced = 0;
    async function* source() {
      for (let i = 0; i < 100; i++) {
        produced += 1;
        yield Buffer.alloc(10);
      }
    }
    const parts = chunkIntoParts(source(), 30);
    await parts.next();
    // One part is three chunks; nothing beyond that has been pulled.
    expect(produced).toBe(3);
    await parts.return(undefined);
  });
});
