import { choosePartSize, MAX_PARTS, uploadInParts, type PartSink, type UploadedPart } from './multipart-upload';

/** Records what reached the server and in which order relative to the source being read. */
function recordingSink(events: string[], { failPart }: { failPart?: number } = {}) {
  const stored: { whole?: Buffer; parts: Buffer[]; completed?: UploadedPart[]; aborted: boolean } = { parts: [], aborted: false };
  const sink: PartSink = {
    async putWhole(body) {
      events.push(`putWhole:${body.length}`);
      stored.whole = body;
    },
    async beginMultipart() {
      events.push('begin');
      return {
        async uploadPart(partNumber, body) {
          if (partNumber === failPart) throw new Error('network down');
          events.push(`part${partNumber}:${body.length}`);
          stored.parts.push(body);
          return `etag-${partNumber}`;
        },
        async complete(parts) {
          events.push('complete');
          stored.completed = parts;
        },
        async abort() {
          events.push('abort');
          stored.aborted = true;
        },
      };
    },
  };
  return { sink, stored };
}

async function* parts(events: string[], sizes: number[], { failAfter }: { failAfter?: number } = {}) {
  for (const [index, size] of sizes.entries()) {
    if (index === failAfter) throw new Error('source broke');
    events.push(`read${index + 1}`);
    yield Buffer.alloc(size, index + 1);
  }
}

const mismatch = (expected: number, actual: number) => new Error(`size ${actual} != ${expected}`);

describe(uploadInParts.name, () => {
  it('sends an object that fits one part in a single request', async () => {
    const events: string[] = [];
    const { sink, stored } = recordingSink(events);
    await expect(uploadInParts(parts(events, [7]), sink, { onSizeMismatch: mismatch })).resolves.toEqual({ size: 7 });
    expect(events).toEqual(['read1', 'putWhole:7']);
    expect(stored.whole).toEqual(Buffer.alloc(7, 1));
  });

  it('stores an empty object for an empty body', async () => {
    const events: string[] = [];
    const { sink } = recordingSink(events);
    await expect(uploadInParts(parts(events, []), sink, { onSizeMismatch: mismatch })).resolves.toEqual({ size: 0 });
    expect(events).toEqual(['putWhole:0']);
  });

  it('uploads each later part before reading the next one, then completes with numbered etags', async () => {
    const events: string[] = [];
    const { sink, stored } = recordingSink(events);
    const result = await uploadInParts(parts(events, [5, 5, 5, 2]), sink, { onSizeMismatch: mismatch, expectedSize: 17 });
    expect(result).toEqual({ size: 17 });
    expect(events).toEqual(['read1', 'read2', 'begin', 'part1:5', 'part2:5', 'read3', 'part3:5', 'read4', 'part4:2', 'complete']);
    expect(stored.completed).toEqual([1, 2, 3, 4].map((part) => ({ part, etag: `etag-${part}` })));
  });

  it('aborts the upload when the source fails midway', async () => {
    const events: string[] = [];
    const { sink, stored } = recordingSink(events);
    await expect(uploadInParts(parts(events, [5, 5, 5], { failAfter: 2 }), sink, { onSizeMismatch: mismatch })).rejects.toThrow('source broke');
    expect(stored.aborted).toBe(true);
    expect(stored.completed).toBeUndefined();
  });

  it('aborts the upload when a part fails and reports the part error', async () => {
    const events: string[] = [];
    const { sink, stored } = recordingSink(events, { failPart: 2 });
    await expect(uploadInParts(parts(events, [5, 5, 5]), sink, { onSizeMismatch: mismatch })).rejects.toThrow('network down');
    expect(stored.aborted).toBe(true);
  });

  it('stores nothing when the body length differs from the declared size', async () => {
    const small: string[] = [];
    const one = recordingSink(small);
    await expect(uploadInParts(parts(small, [4]), one.sink, { onSizeMismatch: mismatch, expectedSize: 5 })).rejects.toThrow('size 4 != 5');
    expect(one.stored.whole).toBeUndefined();

    const big: string[] = [];
    const many = recordingSink(big);
    await expect(uploadInParts(parts(big, [5, 5, 1]), many.sink, { onSizeMismatch: mismatch, expectedSize: 10 })).rejects.toThrow('size 11 != 10');
    expect(many.stored.completed).toBeUndefined();
    expect(many.stored.aborted).toBe(true);
  });
});

describe(choosePartSize.name, () => {
  const MiB = 1024 * 1024;

  it('keeps the configured size unless the declared size would need too many parts', () => {
    expect(choosePartSize(8 * MiB)).toBe(8 * MiB);
    expect(choosePartSize(8 * MiB, 1024 * MiB)).toBe(8 * MiB);
    const huge = 200 * 1024 * MiB;
    const chosen = choosePartSize(8 * MiB, huge);
    expect(chosen % MiB).toBe(0);
    expect(Math.ceil(huge / chosen)).toBeLessThanOrEqual(MAX_PARTS);
  });
});
