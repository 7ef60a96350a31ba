import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ZipFile } from 'yazl';
import { JobFailed } from '@platform/jobs';
import { DEFAULT_ZIP_LIMITS, planExtraction, type ZipLimits } from './zip-inspection';
import { openZip, readEntries } from './zip-reader';

type ZipEntry = { name: string; data: Buffer; mode?: number };

/**
 * A real archive whose entry names may be ones yazl refuses to write ("../x", "/x"): each is written
 * under a placeholder of the same byte length and patched in afterwards (names are outside the CRC).
 */
async function forgedZip(entries: ZipEntry[]): Promise<Buffer> {
  const zip = new ZipFile();
  const patches: [Buffer, Buffer][] = [];
  entries.forEach((entry, i) => {
    if (entry.name.endsWith('/')) return zip.addEmptyDirectory(entry.name.slice(0, -1));
    const actual = Buffer.from(entry.name);
    const placeholder = Buffer.from(`${i}`.padStart(actual.length, 'Q'));
    if (placeholder.length !== actual.length) throw new Error('placeholder length');
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

describe(planExtraction.name, () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'zip-inspection-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Writes a real archive with yazl and plans it as the worker does. */
  async function plan(entries: ZipEntry[], folder = 'target', limits: ZipLimits = DEFAULT_ZIP_LIMITS) {
    const bytes = await forgedZip(entries);
    const file = join(dir, `${Math.random().toString(36).slice(2)}.zip`);
    await writeFile(file, bytes);
    const opened = await openZip(file);
    try {
      return planExtraction(await readEntries(opened), folder, bytes.length, limits);
    } finally {
      opened.close();
    }
  }
  const failure = async (entries: ZipEntry[], limits?: ZipLimits) => {
    const error = await plan(entries, 'target', limits).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(JobFailed);
    return (error as Error).message;
  };

  it('places every file under the target folder, skipping folder entries', async () => {
    expect(
      await plan([
        { name: 'a/', data: Buffer.alloc(0) },
        { name: 'a/b.png', data: Buffer.from('b') },
        { name: 'c.txt', data: Buffer.from('cc') },
      ]),
    ).toEqual([
      { name: 'a/b.png', target: 'target/a/b.png', size: 1 },
      { name: 'c.txt', target: 'target/c.txt', size: 2 },
    ]);
  });

  it.each([
    ['../up.png', /Rule 3/],
    ['a/../../up.png', /Rule 3/],
    ['/etc/x.png', /Rule 4/],
    ['a//b.png', /Rule 5/],
    ['run.sh', /Rule 7: .*"\.sh"/],
    ['bad\u0001.png', /Rule 1/],
  ])('refuses the entry %j by its rule', async (name, reason) => {
    expect(
      await failure([
        { name: 'ok.png', data: Buffer.from('x') },
        { name, data: Buffer.from('x') },
      ]),
    ).toMatch(reason);
  });

  it('refuses a symbolic link', async () => {
    expect(await failure([{ name: 'link.png', data: Buffer.from('/etc/passwd'), mode: 0o120777 }])).toMatch(/symbolic links/);
  });

  it('refuses an entry that expands past the ratio, but not a small one', async () => {
    expect(await failure([{ name: 'zeros.txt', data: Buffer.alloc(4 * 1024 * 1024) }])).toMatch(/expands \d+ times/);
    expect(await plan([{ name: 'small-zeros.txt', data: Buffer.alloc(64 * 1024) }])).toHaveLength(1);
  });

  it('refuses more entries or more bytes than the caps', async () => {
    const files = [1, 2, 3].map((i) => ({ name: `f${i}.txt`, data: Buffer.from(String(i)) }));
    expect(await failure(files, { ...DEFAULT_ZIP_LIMITS, maxEntries: 2 })).toMatch(/3 entries; at most 2/);
    expect(await failure(files, { ...DEFAULT_ZIP_LIMITS, maxTotalBytes: 2 })).toMatch(/more than 2 bytes/);
  });

  it('refuses a target path past 512 characters once joined with the folder', async () => {
    const message = await plan([{ name: `${'n'.repeat(500)}.png`, data: Buffer.from('x') }], 'f'.repeat(20)).then(
      () => '',
      (e: Error) => e.message,
    );
    expect(message).toMatch(/Rule 6/);
  });
});
