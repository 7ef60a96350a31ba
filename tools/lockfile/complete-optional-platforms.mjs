// npm's registry mirror on our machines serves only linux-x64 builds of platform packages, so
// `npm install` cannot record the other platforms' optional packages, and `npm ci` then refuses the
// lockfile ("Missing: @swc/core-darwin-arm64@ from lock file"). This records each missing optional
// platform package as optional and scoped to its os/cpu, which is what npm itself writes where the
// registry serves them: npm ci then skips them on every other platform without fetching anything.
// Run after any `npm install`: node tools/lockfile/complete-optional-platforms.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));

const OS = ['darwin', 'linux', 'win32', 'freebsd', 'android', 'openharmony', 'sunos', 'aix', 'openbsd', 'netbsd'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'armv7', 'loong64', 'ppc64', 's390x', 'riscv64', 'mips64el'];

function platformOf(name) {
  const tokens = name.split('/').pop().split('-');
  const os = tokens.find((t) => OS.includes(t));
  const cpu = tokens.find((t) => CPU.includes(t) || t.startsWith('arm') || t === 'armv7');
  if (!os) return null;
  const entry = { os: [os] };
  if (cpu) entry.cpu = [cpu === 'armv7' || cpu === 'arm' ? 'arm' : cpu];
  if (tokens.includes('musl') || tokens.includes('musleabihf')) entry.libc = ['musl'];
  else if (os === 'linux' && (tokens.includes('gnu') || tokens.includes('gnueabihf'))) entry.libc = ['glibc'];
  return entry;
}

let added = 0;
for (const [path, pkg] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(pkg.optionalDependencies ?? {})) {
    const base = path === '' ? '' : `${path}/`;
    const nested = `${base}node_modules/${dep}`;
    const hoisted = `node_modules/${dep}`;
    if (lock.packages[nested] || lock.packages[hoisted]) continue;
    const platform = platformOf(dep);
    if (!platform || !/^\d+\.\d+\.\d+/.test(version)) continue;
    lock.packages[hoisted] = { version, dev: pkg.dev, optional: true, ...platform };
    if (!pkg.dev) delete lock.packages[hoisted].dev;
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
console.log(`recorded ${added} optional platform packages`);
