// No Docker engine runs here, so the Dockerfiles and the compose file are checked as text: the rules
// the images must keep (non-root, no shell in the runtime, bundle + production node_modules only).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse } from 'yaml';
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

const APPS_WITH_DOCKERFILE = readdirSync(join(WORKSPACE_ROOT, 'apps')).filter((app) => existsSync(join(WORKSPACE_ROOT, 'apps', app, 'Dockerfile')));

const DOCKERIGNORE = readFileSync(join(WORKSPACE_ROOT, '.dockerignore'), 'utf8')
  .split(/\r?\n/)
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));

describe('Dockerfiles', () => {
  it('exist for the apps that exist today', () => {
    expect(APPS_WITH_DOCKERFILE).toEqual(expect.arrayContaining(['gateway', 'channels-plans']));
  });

  describe.each(APPS_WITH_DOCKERFILE)('apps/%s/Dockerfile', (app) => {
    const { stages } = parseDockerfile(readFileSync(join(WORKSPACE_ROOT, 'apps', app, 'Dockerfile'), 'utf8'));
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
    build?: { context: string; dockerfile: string };
    user?: string;
    read_only?: boolean;
    cap_drop?: string[];
    ports?: string[];
    environment?: Record<string, string>;
    healthcheck?: { test: string[] };
    depends_on?: Record<string, { condition: string }>;
  }
  const compose = parse(readFileSync(file, 'utf8'), { merge: true }) as { services: Record<string, ComposeService> };

  const grpcServices = ['channels-plans', 'content-creative', 'asset-sources', 'storage-library', 'tagging-trackers', 'templates'];
  const addressVariable = (name: string) => `${name.toUpperCase().replace(/-/g, '_')}_ADDR`;

  it('runs the infrastructure, the gateway and the six gRPC services', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['gateway', 'mariadb', 'minio', 'nats', ...grpcServices].sort());
  });

  it.each(['gateway', ...grpcServices])('builds %s from its Dockerfile and runs it as locked down as in Kubernetes', (name) => {
    const service = compose.services[name];
    const context = resolve(dirname(file), service.build?.context ?? '');
    expect(context).toBe(WORKSPACE_ROOT);
    expect(service.build?.dockerfile).toBe(`apps/${name}/Dockerfile`);
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

  it.each(grpcServices)('gives the gateway and every peer the address %s listens on (0.0.0.0 inside its container), and waits for it', (name) => {
    const service = compose.services[name];
    expect(service.environment?.GRPC_HOST).toBe('0.0.0.0');
    for (const caller of ['gateway', ...grpcServices])
      expect(compose.services[caller].environment?.[addressVariable(name)]).toBe(`${name}:${service.environment?.GRPC_PORT}`);
    expect(compose.services.gateway.depends_on?.[name]).toEqual({ condition: 'service_healthy' });
  });
});
