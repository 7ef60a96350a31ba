import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from './module-worker';

/** The first message a worker sends. */
const firstMessage = (worker: Worker) =>
  new Promise<unknown>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });

describe(startModuleWorker.name, () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'module-worker-'));
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('starts the TypeScript source through tsx when there is no bundle beside the caller', async () => {
    writeFileSync(
      join(dir, 'echo.worker.ts'),
      "import { parentPort, workerData } from 'node:worker_threads';\nconst n: number = workerData.n;\nparentPort?.postMessage({ from: 'ts', n: n * 2 });\n",
    );
    const worker = startModuleWorker(dir, 'echo.worker', { workerData: { n: 21 } });
    expect(await firstMessage(worker)).toEqual({ from: 'ts', n: 42 });
    await worker.terminate();
  });

  it('starts the bundle when the build wrote one beside the caller', async () => {
    writeFileSync(join(dir, 'echo.worker.ts'), "require('node:worker_threads').parentPort.postMessage({ from: 'ts' });\n");
    writeFileSync(join(dir, 'echo.worker.js'), "require('node:worker_threads').parentPort.postMessage({ from: 'js' });\n");
    const worker = startModuleWorker(dir, 'echo.worker');
    expect(await firstMessage(worker)).toEqual({ from: 'js' });
    await worker.terminate();
  });

  it('refuses a name with no module', () => {
    expect(() => startModuleWorker(dir, 'missing.worker')).toThrow(/no worker module missing.worker/);
  });
});
