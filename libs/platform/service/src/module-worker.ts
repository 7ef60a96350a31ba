import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts the module `<name>` that sits beside the caller (`dir`, the caller's `__dirname`) as a worker
 * thread, however the process runs: from the image's bundle, where the build writes every
 * `*.worker.ts` of an app as `<name>.js` next to main.js (and `__dirname` is that folder), or from
 * TypeScript source (`npm start`, the tests, the benchmarks), where tsx compiles `<name>.ts` inside the
 * worker as it does in the process.
 */
export function startModuleWorker(dir: string, name: string, options: WorkerOptions = {}): Worker {
  const bundled = join(dir, `${name}.js`);
  if (existsSync(bundled)) return new Worker(bundled, options);
  const source = join(dir, `${name}.ts`);
  if (!existsSync(source)) throw new Error(`There is no worker module ${name} in ${dir}.`);
  // tsx is the workspace's (a development dependency, found from here whatever the working directory); its
  // require hook finds the workspace's path aliases through the tsconfig.json of the working directory.
  const tsx = JSON.stringify(createRequire(__filename).resolve('tsx/cjs/api'));
  return new Worker(`require(${tsx}).register(); require(${JSON.stringify(source)});`, { ...options, eval: true });
}
