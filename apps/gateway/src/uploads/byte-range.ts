/** A satisfiable single byte range of a body: bytes `start` to `end`, both included. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * The one range a `Range` header asks of a body of `size` bytes (RFC 9110 14.1.2): `bytes=a-b`, `bytes=a-`
 * or `bytes=-n`. undefined when the header is absent, not a byte range, or asks for several ranges (the whole
 * body is answered then, as the RFC allows); 'unsatisfiable' when it starts past the end.
 */
export function byteRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  const match = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(size - suffix, 0), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (!Number.isSafeInteger(start) || start >= size) return 'unsatisfiable';
  if (end < start) return undefined;
  return { start, end };
}
