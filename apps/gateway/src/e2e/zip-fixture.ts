import { ZipFile } from 'yazl';

/**
 * A zip built in memory. Names yazl refuses to write ("../x", "/x") are written under a placeholder of
 * the same byte length and patched in afterwards (names are outside the CRC), as a hostile tool would.
 */
export async function zipOf(entries: { name: string; data: Buffer; mode?: number }[]): Promise<Buffer> {
  const zip = new ZipFile();
  const patches: [Buffer, Buffer][] = [];
  entries.forEach((entry, i) => {
    if (entry.name.endsWith('/')) return zip.addEmptyDirectory(entry.name.slice(0, -1));
    const actual = Buffer.from(entry.name);
    const placeholder = Buffer.from(`${i}`.padStart(actual.length, 'Q'));
    patches.push([placeholder, actual]);
    zip.addBuffer(entry.data, placeholder.toString(), { mode: entry.mode });
  });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  for (const [placeholder, actual] of patches) {
    for (let at = bytes.indexOf(placeholder); at >= 0; at = bytes.indexOf(placeholder, at + 1)) actual.copy(bytes, at);
  }
  return bytes;
}
