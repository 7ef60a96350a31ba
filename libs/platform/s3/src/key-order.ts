/**
 * S3 orders keys by their UTF-8 bytes. JavaScript's `<` compares UTF-16 code units, which disagrees
 * for characters above U+FFFF, so pagination cursors compare with this instead.
 */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
