// No Docker engine runs here, so the Dockerfile and the compose file are checked as text: the rules
// the images must keep (non-root, no shell in the runtime, bundle + production node_modules only).
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { SERVICE_ENDPOINTS } from '@contracts/proto';
import { WORKSPACE_ROOT } from './bundle';

interface Instruction {
  op: string;
  args: string;
}
interface Stage {
  from: string;
  name?: string;
  instructions: Instruction[];
}

/** Splits a Dockerfile into stages of instructions (comments dropped, `\` continuations joined). */
function parseDockerfile(text: string): { args: Map<string, string>; stages: Stage[] } {
  const args = new Map<string, string>();
  const stages: Stage[] = [];
  const lines = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/);
  for (const line of lines) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const [, op, rest] = /^(\S+)\s*(.*)$/.exec(trimmed) ?? [];
    const instruction = { op: op.toUpperCase(), args: rest };
    if (instruction.op === 'FROM') {
      const [, image, name] = /^(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?/i.exec(rest) ?? [];
      const resolved = image.replace(/\$\{?(\w+)\}?/g, (_m, variable: string) => args.get(variable) ?? '');
      stages.push({ from: resolved, name, instructions: [] });
    } else if (stages.length === 0 && instruction.op === 'ARG') {
      const [name, value = ''] = rest.split('=');
      args.set(name, value);
    } else {
      stages.at(-1)?.instructions.push(instruction);
    }
  }
  return { args, stages };
}

const DOCKERFILE = 'deploy/docker/Dockerfile';
const DOCKERFILE_TEXT = readFileSync(join(WORKSPACE_ROOT, DOCKERFILE), 'utf8');
/** Every deployable of today: a folder of apps/ with a main.ts. */
const APPS = readdirSync(join(WORKSPACE_ROOT, 'apps')).filter((app) => existsSync(join(WORKSPACE_ROOT, 'apps', app, 'src', 'main.ts')));
/** The Dockerfile as `docker build --build-arg APP=<app>` reads it. */
const dockerfileFor = (app: string) => parseDockerfile(DOCKERFILE_TEXT.replace(/\$\{APP\}|\$APP\b/g, app));

const DOCKERIGNORE = readFileSync(join(WORKSPACE_ROOT, '.dockerignore'), 'utf8')
  .split(/\r?\n/)
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));

describe(`${DOCKERFILE}, one for every app`, () => {
  it('is the only Dockerfile: no app keeps one of its own', () => {
    expect(APPS).toEqual(expect.arrayContaining(['gateway', 'channels-plans', 'storage-worker']));
    expect(APPS.filter((app) => existsSync(join(WORKSPACE_ROOT, 'apps', app, 'Dockerfile')))).toEqual([]);
  });

  it('takes the app as the build argument APP, with no default, in the stages that use it', () => {
    const { args, stages } = parseDockerfile(DOCKERFILE_TEXT);
    expect(args.has('APP')).toBe(false);
    for (const stage of stages) {
      const usesApp = stage.instructions.some((i) => i.op !== 'ARG' && /\$\{?APP\b/.test(i.args));
      const declaresApp = stage.instructions.some((i) => i.op === 'ARG' && i.args === 'APP');
      expect({ stage: stage.name ?? 'runtime', declaresApp }).toEqual({ stage: stage.name ?? 'runtime', declaresApp: usesApp });
    }
    // A build without APP stops at once instead of bundling nothing.
    expect(stages[0].instructions.find((i) => i.op === 'RUN')?.args).toMatch(/^test -n "\$APP" \|\|/);
  });

  it('names no port: each app listens where its own code says (SERVICE_ENDPOINTS for gRPC services)', () => {
    expect(parseDockerfile(DOCKERFILE_TEXT).stages.flatMap((stage) => stage.instructions.filter((i) => i.op === 'EXPOSE'))).toEqual([]);
  });

  describe.each(APPS)('built with APP=%s', (app) => {
    const { stages } = dockerfileFor(app);
    const runtime = stages.at(-1) as Stage;
    const ops = (stage: Stage, op: string) => stage.instructions.filter((i) => i.op === op).map((i) => i.args);
    const stageNamed = (name: string) => stages.find((stage) => stage.name === name);

    it('bundles this app in a node:20-bookworm-slim build stage', () => {
      const build = stageNamed('build');
      expect(build?.from).toBe('node:20-bookworm-slim');
      const runs = ops(build as Stage, 'RUN').join('\n');
      expect(runs).toMatch(/npm ci\b/);
      expect(runs).toContain(`tools/build/bundle.ts ${app}`);
      expect(ops(build as Stage, 'COPY')).toContain(`apps/${app}/ apps/${app}/`);
    });

    it('ships only the bundle and production node_modules, as a non-root user, with no shell step', () => {
      const copies = ops(runtime, 'COPY');
      const depsStage = /--from=(\S+)\s+\S*node_modules/.exec(copies.join('\n'))?.[1];
      expect(ops(stageNamed(depsStage ?? '') ?? runtime, 'RUN').join('\n')).toMatch(/npm ci --omit=dev\b/);
      expect(copies).toContainEqual(expect.stringMatching(new RegExp(`^--from=build \\S*/dist/apps/${app}/ `)));
      // Distroless runtime: no RUN, because there is no shell to run it with.
      expect(ops(runtime, 'RUN')).toEqual([]);
      expect(runtime.from).toMatch(/^gcr\.io\/distroless\/nodejs20-debian12:nonroot$|^node:20-bookworm-slim$/);
      const users = ops(runtime, 'USER');
      expect(users).toHaveLength(1);
      expect(users[0]).toMatch(/^(?!0\b|root\b)(\d+(:\d+)?|nonroot|node)$/);
      expect(ops(runtime, 'CMD').join('')).toMatch(/^\[.*"main\.js"\]$/);
    });

    it('copies from the context only what the root .dockerignore lets through', () => {
      const sources = stages.flatMap((stage) =>
        ops(stage, 'COPY')
          .filter((copy) => !copy.startsWith('--from='))
          .flatMap((copy) =>
            copy
              .replace(/--\S+\s+/g, '')
              .split(/\s+/)
              .slice(0, -1),
          ),
      );
      expect(sources.length).toBeGreaterThan(0);
      const allowed = DOCKERIGNORE.filter((line) => line.startsWith('!')).map((line) => line.slice(1));
      expect(DOCKERIGNORE[0]).toBe('*');
      for (const source of sources)
        expect({ source, allowed: allowed.some((entry) => source === entry || source.startsWith(entry)) }).toEqual({ source, allowed: true });
    });
  });
});

/**
 * Programs an app runs, taken from npm rather than the operating system (distroless has no package
 * manager): the package an app imports, and where its linux-x64 build keeps the binary.
 */
const NPM_PROGRAMS = [{ importName: '@ffmpeg-installer/ffmpeg', binary: 'node_modules/@ffmpeg-installer/linux-x64/ffmpeg' }];

/** Why a binary would not run in the runtime image as uid 65532, or [] when it would. */
function runtimeProgramProblems(path: string): string[] {
  if (!existsSync(path)) return ['missing'];
  const problems: string[] = [];
  // prod-deps installs with --ignore-scripts: the mode in the package's tarball is the mode in the image.
  if ((statSync(path).mode & 0o005) !== 0o005) problems.push('not readable and executable by others (the app runs as 65532, files are root-owned)');
  const header = Buffer.alloc(4096);
  const fd = openSync(path, 'r');
  readSync(fd, header, 0, header.length, 0);
  closeSync(fd);
  if (header.readUInt32BE(0) !== 0x7f454c46 || header[4] !== 2) return [...problems, 'not a 64-bit ELF executable'];
  // A program interpreter (PT_INTERP) means shared libraries the distroless image may lack: only static binaries.
  const [phoff, phentsize, phnum] = [Number(header.readBigUInt64LE(0x20)), header.readUInt16LE(0x36), header.readUInt16LE(0x38)];
  for (let i = 0; i < phnum && phoff + (i + 1) * phentsize <= header.length; i += 1) {
    if (header.readUInt32LE(phoff + i * phentsize) === 3) problems.push('dynamically linked (has a program interpreter)');
  }
  return problems;
}

describe('programs from npm in the runtime image (ffmpeg for the export renderer)', () => {
  const manifest = JSON.parse(readFileSync(join(WORKSPACE_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const sources = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? sources(join(dir, entry.name)) : /(?<!spec)\.ts$/.test(entry.name) ? [join(dir, entry.name)] : [],
    );
  const users = NPM_PROGRAMS.flatMap((program) =>
    APPS.filter((app) => sources(join(WORKSPACE_ROOT, 'apps', app, 'src')).some((file) => readFileSync(file, 'utf8').includes(`'${program.importName}'`))).map(
      (app) => [app, program] as const,
    ),
  );

  it.each(users.length > 0 ? users : [['(no app runs one today)', undefined] as const])(
    '%s: its program is a production dependency, static and executable by the app user without an install script',
    (_app, program) => {
      if (!program) return;
      expect(manifest.dependencies[program.importName]).toBeDefined();
      expect(runtimeProgramProblems(join(WORKSPACE_ROOT, program.binary))).toEqual([]);
    },
  );

  it('refuses a program only its owner may run, and one that is not an executable', () => {
    const dir = mkdtempSync(join(tmpdir(), 'npm-program-'));
    try {
      const script = join(dir, 'tool');
      writeFileSync(script, '#!/bin/sh\n', { mode: 0o744 });
      expect(runtimeProgramProblems(script)).toEqual([expect.stringMatching(/^not readable and executable by others/), 'not a 64-bit ELF executable']);
      expect(runtimeProgramProblems(process.execPath)).toEqual(expect.arrayContaining(['dynamically linked (has a program interpreter)']));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('root .dockerignore', () => {
  it('keeps node_modules, build output, local data and env files out of every build context', () => {
    expect(DOCKERIGNORE).toEqual(expect.arrayContaining(['**/node_modules', '**/dist', '**/.data', '**/.env']));
    expect(DOCKERIGNORE).not.toContain('!.git');
  });
});

describe('deploy/compose/compose.yaml', () => {
  const file = join(WORKSPACE_ROOT, 'deploy', 'compose', 'compose.yaml');
  interface ComposeService {
    image?: string;
    build?: { context: string; dockerfile: string; args?: Record<string, string> };
    user?: string;
    read_only?: boolean;
    cap_drop?: string[];
    ports?: string[];
    environment?: Record<string, string>;
    healthcheck?: { test: string[] };
    depends_on?: Record<string, { condition: string }>;
  }
  const compose = parse(readFileSync(file, 'utf8'), { merge: true }) as { services: Record<string, ComposeService> };

  const endpoints = Object.values(SERVICE_ENDPOINTS);
  const grpcServices = endpoints.map((endpoint) => endpoint.label);

  it('runs the infrastructure, the gateway and the six gRPC services', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['gateway', 'mariadb', 'minio', 'nats', ...grpcServices].sort());
  });

  it.each(['gateway', ...grpcServices])('builds %s from the one Dockerfile with APP set to it and runs it as locked down as in Kubernetes', (name) => {
    const service = compose.services[name];
    const context = resolve(dirname(file), service.build?.context ?? '');
    expect(context).toBe(WORKSPACE_ROOT);
    expect(service.build?.dockerfile).toBe(DOCKERFILE);
    expect(service.build?.args).toEqual({ APP: name });
    expect(existsSync(join(context, service.build?.dockerfile ?? ''))).toBe(true);
    expect(service).toMatchObject({ user: '65532:65532', read_only: true, cap_drop: ['ALL'] });
    // Exec-form health check: the image has no shell for CMD-SHELL.
    expect(service.healthcheck?.test.slice(0, 2)).toEqual(['CMD', '/nodejs/bin/node']);
    expect(service.environment?.NATS_URL).toBe('nats://nats:4222');
  });

  it('publishes only the gateway, and only on loopback', () => {
    const published = Object.entries(compose.services).filter(([, service]) => (service.ports ?? []).length > 0);
    expect(published.map(([name]) => name)).toEqual(['gateway']);
    for (const port of compose.services.gateway.ports ?? []) expect(port).toMatch(/^127\.0\.0\.1:/);
  });

  it.each(endpoints.map((endpoint) => [endpoint.label, endpoint] as const))(
    'runs %s on the port SERVICE_ENDPOINTS declares (0.0.0.0 inside its container), gives the gateway and every peer that address, and waits for it',
    (name, endpoint) => {
      const service = compose.services[name];
      expect(service.environment?.GRPC_HOST).toBe('0.0.0.0');
      expect(service.environment?.GRPC_PORT).toBe(String(endpoint.port));
      for (const caller of ['gateway', ...grpcServices])
        expect({ caller, address: compose.services[caller].environment?.[endpoint.addressVariable] }).toEqual({ caller, address: `${name}:${endpoint.port}` });
      // The health check probes the port the service was given, not a number of its own.
      expect(service.healthcheck?.test.join(' ')).toContain('process.env.GRPC_PORT');
      expect(compose.services.gateway.depends_on?.[name]).toEqual({ condition: 'service_healthy' });
    },
  );
});
