/**
 * Programs from outside npm that some tests drive, and where each is found. `npm test` runs
 * tools/test-prereqs first, which installs what is missing (`npm run test:prereqs` does it alone);
 * a test that still finds nothing fails with the message of `requireTool`, never skips.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { WORKSPACE_ROOT } from './processes';

export const PREREQS_COMMAND = 'npm run test:prereqs';

/** Debian's chromium drives the /docs page test through playwright-core, so no browser is downloaded. */
export const chromiumPath = (env: NodeJS.ProcessEnv = process.env): string => env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Where the prereq step extracts the kubectl it takes from npm when the machine has none recent
 * enough. Under node_modules, so `npm ci` clears it and git never sees it.
 */
export const LOCAL_KUBECTL = join(WORKSPACE_ROOT, 'node_modules', '.cache', 'kubectl', 'kubectl');

/** kubectl 1.21 is the first whose built-in kustomize renders components (deploy/k8s/components). */
const KUBECTL_MIN_MINOR = 21;

/** The client's minor version from `kubectl version --client` (v1.32.4 and the older version.Info{...} form). */
export function kubectlMinorVersion(versionOutput: string): number | undefined {
  const match = /v1\.(\d+)\./.exec(versionOutput);
  return match ? Number(match[1]) : undefined;
}

/** Whether `command` runs and is a kubectl whose kustomize knows components. */
export function isUsableKubectl(command: string): boolean {
  const run = spawnSync(command, ['version', '--client'], { encoding: 'utf8', timeout: 30_000 });
  if (run.status !== 0) return false;
  return (kubectlMinorVersion(run.stdout) ?? 0) >= KUBECTL_MIN_MINOR;
}

/** KUBECTL when set (and then only it), else kubectl on PATH, else the project-local copy. */
export function findKubectl(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidates = env.KUBECTL ? [env.KUBECTL] : ['kubectl', LOCAL_KUBECTL];
  return candidates.find(isUsableKubectl);
}

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Whether a command is found on PATH (what `command -v` answers), without running it. */
export function onPath(command: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return (env.PATH ?? '').split(':').some((dir) => dir !== '' && isExecutable(join(dir, command)));
}

export interface ExternalTool {
  name: string;
  /** The path or command the tests run, or undefined when the machine has none. */
  locate: () => string | undefined;
  /** What to do by hand when the prereq step could not provide it. */
  install: string;
}

export const CHROMIUM: ExternalTool = {
  name: 'chromium',
  locate: () => (isExecutable(chromiumPath()) ? chromiumPath() : undefined),
  install: 'apt-get install chromium (Debian), or set CHROMIUM_PATH to a Chromium binary',
};

/**
 * How the browser tests start Chromium: headless, and without the background traffic (component updates,
 * sync, QUIC probes) that a machine with no outside network refuses, many connections at a time.
 */
export const HEADLESS_CHROMIUM_ARGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const OPENSSL: ExternalTool = {
  name: 'openssl',
  locate: () => (onPath('openssl') ? 'openssl' : undefined),
  install: 'apt-get install openssl',
};

export const KUBECTL: ExternalTool = {
  name: `kubectl 1.${KUBECTL_MIN_MINOR} or later`,
  locate: () => findKubectl(),
  install: `install kubectl 1.${KUBECTL_MIN_MINOR}+ (its kustomize must know components), or set KUBECTL to its path`,
};

/**
 * Debian's MariaDB server and NATS server, for the fault tests that start private ones (see
 * private-mariadb.ts, private-nats.ts). Each path can be overridden for a machine that keeps them elsewhere.
 */
export const MARIADBD: ExternalTool = {
  name: 'mariadbd',
  locate: () => firstExecutable(process.env.MARIADBD_PATH, '/usr/sbin/mariadbd', '/usr/bin/mariadbd'),
  install: 'apt-get install mariadb-server, or set MARIADBD_PATH to a mariadbd binary',
};

export const MARIADB_INSTALL_DB: ExternalTool = {
  name: 'mariadb-install-db',
  locate: () => firstExecutable(process.env.MARIADB_INSTALL_DB_PATH, '/usr/bin/mariadb-install-db', '/usr/bin/mysql_install_db'),
  install: 'apt-get install mariadb-server, or set MARIADB_INSTALL_DB_PATH to its mariadb-install-db',
};

export const NATS_SERVER: ExternalTool = {
  name: 'nats-server',
  locate: () => firstExecutable(process.env.NATS_SERVER_PATH, '/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'),
  install: 'apt-get install nats-server, or set NATS_SERVER_PATH to a nats-server binary (2.2 or later, for JetStream)',
};

function firstExecutable(...paths: (string | undefined)[]): string | undefined {
  return paths.find((path): path is string => path !== undefined && path !== '' && isExecutable(path));
}

/** The tool's path or command; throws, saying what to install, when the machine has none. */
export function requireTool(tool: ExternalTool): string {
  const found = tool.locate();
  if (found === undefined) throw new Error(`${tool.name} not found. Run \`${PREREQS_COMMAND}\`, or ${tool.install}.`);
  return found;
}
