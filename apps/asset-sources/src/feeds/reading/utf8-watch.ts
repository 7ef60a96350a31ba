import { isUtf8 } from 'node:buffer';

/**
 * Watches the bytes of a feed read as UTF-8 and notes where they first are not: a feed exported as
 * CP1252 or ISO-8859-1 and read as UTF-8 shows U+FFFD for its accented letters, which its owner should
 * hear about rather than find in a creative. `isUtf8` is native and costs little per chunk; a character
 * split between two chunks is held back until the next one completes it.
 */
export class Utf8Watch {
  /** Offset of the first byte that is not UTF-8, and its value; null while every byte seen was. */
  firstInvalid: { at: number; byte: number } | null = null;
  /** Offset of `carry`'s first byte in the feed. */
  private offset = 0;
  /** The start of a character the chunk ended inside. */
  private carry: Buffer = Buffer.alloc(0);

  /** Bytes before the first one seen (a byte-order mark dropped), so offsets count from the feed's start. */
  skipped(bytes: number): void {
    this.offset += bytes;
  }

  see(chunk: Buffer): void {
    if (this.firstInvalid !== null || chunk.length === 0) return;
    const bytes = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    const complete = completeLength(bytes);
    const whole = bytes.subarray(0, complete);
    if (!isUtf8(whole)) {
      const at = firstInvalidIndex(whole);
      this.firstInvalid = { at: this.offset + at, byte: whole[at] };
      return;
    }
    this.offset += complete;
    this.carry = Buffer.from(bytes.subarray(complete));
  }

  /** The feed ended: a character it ended inside is not UTF-8 either. */
  end(): void {
    if (this.firstInvalid === null && this.carry.length > 0) this.firstInvalid = { at: this.offset, byte: this.carry[0] };
  }
}

/** Bytes a UTF-8 lead byte starts, by its high bits; 0 for a continuation byte or one UTF-8 never uses. */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/** The bytes up to a character the buffer ends inside (its last three bytes looked at). */
function completeLength(bytes: Buffer): number {
  for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - 3); i--) {
    if ((bytes[i] & 0xc0) === 0x80) continue;
    const length = sequenceLength(bytes[i]);
    return length > 0 && i + length > bytes.length ? i : bytes.length;
  }
  return bytes.length;
}

/** Index of the first byte of `bytes` that does not start or continue a well-formed UTF-8 character. */
function firstInvalidIndex(bytes: Buffer): number {
  let i = 0;
  while (i < bytes.length) {
    const length = sequenceLength(bytes[i]);
    if (length === 0) return i;
    // The second byte's range rules out overlong forms and surrogates (RFC 3629).
    const second = bytes[i + 1];
    if (length > 1) {
      const low = bytes[i] === 0xe0 ? 0xa0 : bytes[i] === 0xf0 ? 0x90 : 0x80;
      const high = bytes[i] === 0xed ? 0x9f : bytes[i] === 0xf4 ? 0x8f : 0xbf;
      if (second === undefined || second < low || second > high) return i;
      for (let k = 2; k < length; k++) if (bytes[i + k] === undefined || (bytes[i + k] & 0xc0) !== 0x80) return i;
    }
    i += length;
  }
  return bytes.length;
}
