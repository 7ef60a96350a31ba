/** Bits of the filter: 4 MiB, whatever the feed's size. */
const FILTER_BITS = 1 << 25;
const HASHES = 6;

/**
 * A Bloom filter of the asset keys a run has read, of fixed size (4 MiB): `add` answers whether the
 * key may have been added before. Never a false "no", so a row it passes has a key no earlier row
 * has; a "yes" may be wrong (about 1 in 50,000 at a million distinct keys), so the rows it names are
 * checked in the database. Memory stays flat whatever the feed's size.
 */
export class KeyFilter {
  private readonly words = new Uint32Array(FILTER_BITS / 32);

  /** Adds the key; true when every bit of it was already set (the key may have been seen). */
  add(key: string): boolean {
    // Two independent 32-bit hashes (FNV-1a and a multiplicative one over UTF-16 code units), combined
    // as h1 + i * h2 (Kirsch–Mitzenmacher).
    let h1 = 0x811c9dc5;
    let h2 = 0x9747b28c;
    for (let i = 0; i < key.length; i++) {
      const c = key.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995);
      h2 ^= h2 >>> 15;
    }
    h2 |= 1;
    let seen = true;
    for (let i = 0; i < HASHES; i++) {
      const bit = (h1 + Math.imul(i, h2)) & (FILTER_BITS - 1);
      const word = bit >>> 5;
      const mask = 1 << (bit & 31);
      if ((this.words[word] & mask) === 0) {
        seen = false;
        this.words[word] |= mask;
      }
    }
    return seen;
  }
}
