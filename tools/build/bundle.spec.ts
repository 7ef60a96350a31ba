import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleApp, WORKSPACE_ROOT } from './bundle';

const TSX = join(WORKSPACE_ROOT, 'node_modules', '.bin', 'tsx');
const BUNDLE_CLI = join(WORKSPACE_ROOT, 'tools', 'build', 'bundle.ts');

const pkg = JSON.parse(readFileSync(join(WORKSPACE_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };

/** Every app with an entry point; apps that land later are covered without editing this test. */
const APPS = readdirSync(join(WORKSPACE_ROOT, 'apps')).filter((name) => existsSync(join(WORKSPACE_ROOT, 'apps', name, 'src', 'main.ts')));

const isBuiltin = (specifier: string) => specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0]);

const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

describe(bundleApp.name, () => {
  let outRoot: string;

  beforeAll(() => {
    outRoot = mkdtempSync(join(tmpdir(), 'tool-build-bundle-'));
  });

  afterAll(() => rmSync(outRoot, { recursive: true, force: true }));

  it('inlines the @platform/* and @contracts/* libraries of channels-plans and keeps npm packages external', async () => {
    const outdir = join(outRoot, 'channels-plans');
    const { outfile } = await bundleApp({ app: 'channels-plans', outdir });

    expect(outfile).toBe(join(outdir, 'main.js'));
    const code = readFileSync(outfile, 'utf8');
    expect(code).not.toMatch(/require\(\s*["'`]@(platform|contracts)\//);
    expect(code).not.toContain('@platform/');
    // Library code is in the file itself (createLifecycle lives in libs/platform/lifecycle)...
    expect(code).toMatch(/function createLifecycle\(/);
    // ...while npm packages are required from node_modules at run time.
    expect(code).toContain('require("@grpc/grpc-js")');
    expect(existsSync(`${outfile}.map`)).toBe(true);
    // The output is valid JavaScript for the node that runs it (a parse, not a run: running would start the service).
    const check = spawnSync(process.execPath, ['--check', outfile], { encoding: 'utf8' });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });

  it("bundles asset-sources' feed parser thread beside main.js, a module node runs as a worker without TypeScript", async () => {
    const outdir = join(outRoot, 'asset-sources');
    const { workerFiles } = await bundleApp({ app: 'asset-sources', outdir });

    expect(workerFiles).toEqual([join(outdir, 'feed-parse.worker.js')]);
    const code = readFileSync(workerFiles[0], 'utf8');
    expect(code).toContain('require("csv-parse")');
    expect(code).not.toContain('@platform/');
    // Run as the thread it is, it parses a feed sent the way the service sends one.
    const script = [
      `const { Worker } = require('node:worker_threads');`,
      `const format = { contentType: 'csv', characterEncoding: 'UTF_8', csvSeparator: 'auto', firstRowIsHeader: true, cdp: false };`,
      `const config = { rootIsObject: false, rowXPath: '', xpathMap: {}, csvColumns: {}, memPerRow: 0, estRowsPerChunk: 0, oneRowPerObject: false, rootIsArray: false, cdp: false, fileId: '', cdpXpathMap: {} };`,
      `const worker = new Worker(${JSON.stringify(workerFiles[0])}, { workerData: { format, config, ahead: 2, chunksAhead: 1 } });`,
      `let sent = false;`,
      `worker.on('message', (m) => {`,
      `  if (m.kind === 'pull') { worker.postMessage(sent ? { kind: 'end' } : { kind: 'chunk', bytes: Buffer.from('sku;name\\nA;Shirt\\n') }); sent = true; }`,
      `  else if (m.kind === 'rows') { console.log(JSON.stringify(m.rows)); worker.postMessage({ kind: 'ack' }); }`,
      `  else { console.log(m.kind); worker.terminate(); }`,
      `});`,
    ].join('\n');
    // npm packages come from the workspace's node_modules, as the image's own do from /app/node_modules.
    const env = { ...process.env, NODE_PATH: join(WORKSPACE_ROOT, 'node_modules') };
    const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', cwd: outdir, env });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim().split('\n')).toEqual([JSON.stringify({ names: ['sku', 'name'], lines: [2], layout: [2, 0, 1], values: ['A', 'Shirt'] }), 'done']);
  });

  it('finds at least the two apps that exist today', () => {
    expect(APPS).toEqual(expect.arrayContaining(['gateway', 'channels-plans']));
  });

  // The runtime image installs `npm ci --omit=dev`: a bundle that statically requires a devDependency
  // would crash at start in the container while working on every developer machine.
  it.each(APPS)('%s statically requires only Node built-ins and production dependencies', async (app) => {
    const { metafile } = await bundleApp({ app, outdir: join(outRoot, app) });

    const staticExternals = new Set<string>();
    // The output's imports are what main.js really requires (the inputs' list also names type-only imports).
    for (const output of Object.values(metafile.outputs)) {
      for (const imported of output.imports) {
        // Dynamic imports are the deliberate dev-only paths (e.g. the embedded S3 server when S3_ENDPOINT is unset).
        if (imported.external && imported.kind !== 'dynamic-import') staticExternals.add(imported.path);
      }
    }
    const missing = [...staticExternals].filter((specifier) => !isBuiltin(specifier) && !(packageOf(specifier) in pkg.dependencies));

    expect(staticExternals.size).toBeGreaterThan(0);
    expect(missing).toEqual([]);
  });

  it('rejects with the compiler message when the app does not compile', async () => {
    const workspace = join(outRoot, 'broken-workspace');
    mkdirSync(join(workspace, 'apps', 'broken', 'src'), { recursive: true });
    writeFileSync(join(workspace, 'tsconfig.base.json'), JSON.stringify({ compilerOptions: { baseUrl: '.', paths: {} } }));
    writeFileSync(join(workspace, 'apps', 'broken', 'src', 'main.ts'), "import { missing } from './not-there';\nmissing();\n");

    await expect(bundleApp({ app: 'broken', workspaceRoot: workspace })).rejects.toThrow(/Could not resolve "\.\/not-there"/);
    expect(existsSync(join(workspace, 'dist', 'apps', 'broken', 'main.js'))).toBe(false);
  });

  it('rejects an app name that could escape apps/', async () => {
    await expect(bundleApp({ app: '../libs', outdir: join(outRoot, 'escape') })).rejects.toThrow('invalid app name');
  });
});

describe('bundle.ts command line', () => {
  let outRoot: string;

  beforeAll(() => {
    outRoot = mkdtempSync(join(tmpdir(), 'tool-build-cli-'));
  });

  afterAll(() => rmSync(outRoot, { recursive: true, force: true }));

  it('bundles the named app into --outdir and exits 0', () => {
    const outdir = join(outRoot, 'gateway');
    const run = spawnSync(TSX, [BUNDLE_CLI, 'gateway', '--outdir', outdir], { cwd: WORKSPACE_ROOT, encoding: 'utf8' });

    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`bundled gateway -> ${join(outdir, 'main.js')}`);
    expect(existsSync(join(outdir, 'main.js'))).toBe(true);
  });

  it('exits non-zero with a message for an app that does not exist', () => {
    const run = spawnSync(TSX, [BUNDLE_CLI, 'no-such-app', '--outdir', join(outRoot, 'none')], { cwd: WORKSPACE_ROOT, encoding: 'utf8' });

    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('no entry point');
    expect(existsSync(join(outRoot, 'none'))).toBe(false);
  });

  it('exits non-zero with usage when no app is named', () => {
    const run = spawnSync(TSX, [BUNDLE_CLI], { cwd: WORKSPACE_ROOT, encoding: 'utf8' });

    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('usage:');
  });
});
