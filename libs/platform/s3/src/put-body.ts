import type { Readable } from 'node:stream';
import { choosePartSize } from './multipart-upload';
import { chunkIntoParts } from './part-chunker';

/** The parts an upload body is sent as: views into a Buffer, or fixed-size chunks read from a stream on demand. */
export function bodyParts(body: Buffer | Readable, configuredPartSize: number, declaredSize?: number): AsyncIterable<Buffer> {
  if (Buffer.isBuffer(body)) return sliceBuffer(body, choosePartSize(configuredPartSize, body.length));
  // Duck-typed: streams from readable-stream copies (archivers, parsers) are not instanceof Node's Readable.
  if (isAsyncIterable(body)) return chunkIntoParts(body, choosePartSize(configuredPartSize, declaredSize));
  throw new TypeError('an object body must be a Buffer or a Readable stream');
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

async function* sliceBuffer(body: Buffer, partSize: number): AsyncGenerator<Buffer> {
  for (let offset = 0; offset < body.length; offset += partSize) {
    yield body.subarray(offset, offset + partSize);
  }
}
