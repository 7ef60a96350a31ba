'use strict';
/**
 * Preloaded into a service with NODE_OPTIONS="--require <this file>" when BENCH_PROFILE_DIR is
 * set: Node refuses --cpu-prof in NODE_OPTIONS and startProcess fixes argv. Plain CommonJS
 * because NODE_OPTIONS preloads also reach tsx's loader thread, which cannot load TypeScript.
 * Writes <dir>/<entry>-<pid>.cpuprofile on exit (a same-thread inspector answers synchronously).
 */
const { mkdirSync, writeFileSync } = require('node:fs');
const { Session } = require('node:inspector');
const { join } = require('node:path');
const { isMainThread } = require('node:worker_threads');

const dir = process.env.BENCH_CPU_PROFILE_DIR;
if (dir && isMainThread) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.start');
  process.once('exit', () => {
    session.post('Profiler.stop', (error, result) => {
      if (error) return console.error('CPU profile failed:', error.message);
      const entry = (process.argv[1] || 'node').split('/').slice(-3).join('-').replace(/\.ts$/, '');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${entry}-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
