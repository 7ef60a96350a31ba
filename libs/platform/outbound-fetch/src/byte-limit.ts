import { Transform, TransformCallback } from 'node:stream';

/**
 * A pass-through that fails with `tooLarge()` as soon as more than `maxBytes` have gone through;
 * `onChunk` hears of each chunk (the idle clock of a Deadline).
 * Counting what arrives, rather than trusting Content-Length, is what protects us: chunked
 * responses announce nothing and a server may lie.
 */
export function createByteLimit(maxBytes: number, tooLarge: () => Error, onChunk?: () => void): Transform {
  let received = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      received += chunk.length;
      onChunk?.();
      if (received > maxBytes) {
        callback(tooLarge());
        return;
      }
      callback(null, chunk);
    },
  });
}
