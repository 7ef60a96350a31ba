// Bundles one app's main.ts into a single CommonJS file for its container image, and each of its
// worker-thread modules (`src/**/*.worker.ts`) into `<name>.worker.js` beside it, where
// startModuleWorker (@platform/service) finds it at run time.
// Usage: tsx tools/build/bundle.ts <app-name> [--outdir <dir>]
//
// Workspace code (@platform/*, @contracts/* through tsconfig paths) is inlined, so the image needs no
// TypeScript and no libs/ tree; npm packages stay external because several (mysql2, sharp, grpc-js
// internals) resolve files at run time, and the image installs them with `npm ci --omit=dev`.
import { existsSync, readdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { build, type BuildResult, type Metafile } from 'esbuild';

export const WORKSPACE_ROOT = resolve(__dirname, '../..');

export interface BundleOptions {
  app: string;
  /** Defaults to dist/apps/<app> under the workspace root. */
  outdir?: string;
  workspaceRoot?: string;
}

export interface BundleOutput {
  outfile: string;
  /** The worker-thread modules' files, beside outfile. */
  workerFiles: string[];
  metafile: Metafile;
  warnings: BuildResult['warnings'];
}

const APP_NAME = /^[a-z][a-z0-9-]*$/;

export async function bundleApp(options: BundleOptions): Promise<BundleOutput> {
  const root = options.workspaceRoot ?? WORKSPACE_ROOT;
  if (!APP_NAME.test(options.app)) throw new Error(`invalid app name "${options.app}"`);
  const entry = join(root, 'apps', options.app, 'src', 'main.ts');
  if (!existsSync(entry)) throw new Error(`no entry point at ${entry}`);
  const outdir = resolve(root, options.outdir ?? join('dist', 'apps', options.app));
  const outfile = join(outdir, 'main.js');
  const workers = workerModules(join(root, 'apps', options.app, 'src'));

  const result = await build({
    absWorkingDir: root,
    entryPoints: [{ in: entry, out: 'main' }, ...workers.map((path) => ({ in: path, out: basename(path, '.ts') }))],
    outdir,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: true,
    // Stack traces in production then point at the original .ts files.
    sourcesContent: false,
    tsconfig: join(root, 'tsconfig.base.json'),
    // Applied after tsconfig path aliases, so only real npm packages stay external.
    packages: 'external',
    // Names stay readable in logs and stack traces; the image is not shipped to browsers.
    minify: false,
    keepNames: true,
    metafile: true,
    logLevel: 'silent',
    legalComments: 'none',
  });
  return { outfile, workerFiles: workers.map((path) => join(outdir, `${basename(path, '.ts')}.js`)), metafile: result.metafile, warnings: result.warnings };
}

/** An app's worker-thread modules; their names must differ, as their bundles share one folder. */
function workerModules(srcDir: string): string[] {
  const paths = readdirSync(srcDir, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.worker.ts'))
    .sort()
    .map((path) => join(srcDir, path));
  const names = paths.map((path) => basename(path));
  const repeated = names.find((name, i) => names.indexOf(name) !== i);
  if (repeated) throw new Error(`two worker modules are named ${repeated}`);
  return paths;
}

function parseArgs(argv: string[]): BundleOptions {
  const args = [...argv];
  let outdir: string | undefined;
  const positional: string[] = [];
  while (args.length > 0) {
    const arg = args.shift() as string;
    if (arg === '--outdir') {
      outdir = args.shift();
      if (!outdir) throw new Error('--outdir needs a value');
    } else positional.push(arg);
  }
  if (positional.length !== 1) throw new Error('usage: tsx tools/build/bundle.ts <app-name> [--outdir <dir>]');
  return { app: positional[0], outdir };
}

async function cli(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const started = Date.now();
  const { outfile, metafile, warnings } = await bundleApp(options);
  for (const warning of warnings) console.warn(`warning: ${warning.text}`);
  const bytes = metafile.outputs[Object.keys(metafile.outputs).find((path) => path.endsWith('main.js')) ?? '']?.bytes ?? 0;
  console.log(`bundled ${options.app} -> ${outfile} (${Math.round(bytes / 1024)} KiB, ${Date.now() - started} ms)`);
}

if (require.main === module) {
  cli().catch((error: unknown) => {
    // esbuild's error already lists each failure with file and line.
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
