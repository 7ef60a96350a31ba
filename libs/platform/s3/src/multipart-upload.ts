/** S3 refuses parts below 5 MiB (except the last) and more than 10,000 parts per object. */
export const MIN_PART_SIZE = 5 * 1024 * 1024;
export const MAX_PARTS = 10_000;

export interface UploadedPart {
  part: number;
  etag: string;
}

/** One multipart upload in progress on the server. */
export interface MultipartSession {
  uploadPart(partNumber: number, body: Buffer): Promise<string>;
  complete(parts: UploadedPart[]): Promise<void>;
  abort(): Promise<void>;
}

/** Where an object's bytes go: in one request when they fit one part, else as a multipart upload. */
export interface PartSink {
  putWhole(body: Buffer): Promise<void>;
  beginMultipart(): Promise<MultipartSession>;
}

export interface UploadInPartsOptions {
  /** When given, the upload is refused (nothing stored) if the stream delivers a different byte count. */
  expectedSize?: number;
  /** Raised instead of committing an object of the wrong size. */
  onSizeMismatch: (expected: number, actual: number) => Error;
}

/**
 * Uploads parts as they arrive. The first part is held back until the second exists, because an object
 * that fits in one part is cheaper (one request) and S3 would reject a lone multipart part under 5 MiB anyway.
 * A failure after the upload began aborts it so no orphaned parts keep costing storage.
 */
export async function uploadInParts(parts: AsyncIterable<Buffer>, sink: PartSink, options: UploadInPartsOptions): Promise<{ size: number }> {
  const iterator = parts[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) {
    checkSize(options, 0);
    await sink.putWhole(Buffer.alloc(0));
    return { size: 0 };
  }
  const second = await iterator.next();
  if (second.done) {
    checkSize(options, first.value.length);
    await sink.putWhole(first.value);
    return { size: first.value.length };
  }

  const session = await sink.beginMultipart();
  try {
    const uploaded: UploadedPart[] = [];
    let size = 0;
    const send = async (body: Buffer) => {
      const part = uploaded.length + 1;
      if (part > MAX_PARTS) throw new RangeError(`object needs more than ${MAX_PARTS} parts; raise the part size`);
      uploaded.push({ part, etag: await session.uploadPart(part, body) });
      size += body.length;
    };
    await send(first.value);
    await send(second.value);
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      await send(next.value);
    }
    checkSize(options, size);
    await session.complete(uploaded);
    return { size };
  } catch (error) {
    await session.abort().catch(() => undefined);
    // Stop reading a source we no longer need (closes file handles, sockets).
    await iterator.return?.(undefined).catch(() => undefined);
    throw error;
  }
}

function checkSize(options: UploadInPartsOptions, actual: number): void {
  if (options.expectedSize !== undefined && options.expectedSize !== actual) {
    throw options.onSizeMismatch(options.expectedSize, actual);
  }
}

/** The configured part size, grown when a declared size would otherwise need more than MAX_PARTS parts. */
export function choosePartSize(configured: number, expectedSize?: number): number {
  if (expectedSize === undefined) return configured;
  const mebibyte = 1024 * 1024;
  const needed = Math.ceil(expectedSize / MAX_PARTS / mebibyte) * mebibyte;
  return Math.max(configured, needed);
}
