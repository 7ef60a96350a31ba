/**
 * Re-slices a byte stream into parts of exactly `partSize` bytes (the last may be shorter).
 * It pulls from the source only when the consumer asks for the next part, so a Readable is paused
 * (backpressure) while a part uploads and memory stays at about one part, whatever the object size.
 */
export async function* chunkIntoParts(source: AsyncIterable<unknown>, partSize: number): AsyncGenerator<Buffer> {
  if (!Number.isSafeInteger(partSize) || partSize <= 0) throw new RangeError(`partSize must be a positive integer, got ${partSize}`);
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const piece of source) {
    let chunk = toBuffer(piece);
    while (chunk.length > 0) {
      const take = Math.min(partSize - pendingBytes, chunk.length);
      pending.push(chunk.subarray(0, take));
      pendingBytes += take;
      chunk = chunk.subarray(take);
      if (pendingBytes === partSize) {
        yield pending.length === 1 ? pending[0] : Buffer.concat(pending, partSize);
        pending = [];
        pendingBytes = 0;
      }
    }
  }
  if (pendingBytes > 0) yield Buffer.concat(pending, pendingBytes);
}

function toBuffer(piece: unknown): Buffer {
  if (Buffer.isBuffer(piece)) return piece;
  if (typeof piece === 'string') return Buffer.from(piece, 'utf8');
  if (piece instanceof Uint8Array) return Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
  throw new TypeError('object bodies must be byte streams (Buffer, Uint8Array or string chunks), not object-mode streams');
}
