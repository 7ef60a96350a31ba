// Each gRPC service's port is declared once, in SERVICE_ENDPOINTS. The launcher and the images take
// it from there; compose and the Kubernetes manifests are held to it by images.spec.ts and
// deploy-manifests.spec.ts; this spec holds the prose to it, where a stale number would mislead.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { SERVICE_ENDPOINTS } from '@contracts/proto';
import { WORKSPACE_ROOT } from './bundle';

const ENDPOINTS = Object.values(SERVICE_ENDPOINTS);
/** Where our gRPC ports live: a number in this range in the docs is taken to be one. */
const PORT_LIKE = /\b500[4-9]\d\b/g;

const SKIPPED_DIRS = new Set(['node_modules', '.git', '.nx', '.data', 'dist', 'coverage', 'tmp']);
function markdownUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : markdownUnder(join(dir, entry.name));
    return entry.name.endsWith('.md') ? [relative(WORKSPACE_ROOT, join(dir, entry.name))] : [];
  });
}
const markdownFiles = markdownUnder(WORKSPACE_ROOT);

/** Every port-like number of a text, with the line it stands on. */
function portMentions(text: string): { port: number; line: string }[] {
  return text.split('\n').flatMap((line) => [...line.matchAll(PORT_LIKE)].map((match) => ({ port: Number(match[0]), line })));
}

/** Why a mention is wrong, or undefined: its port must be a service's, and that service named on the same line. */
function mismatch(port: number, line: string): string | undefined {
  const endpoint = ENDPOINTS.find((candidate) => candidate.port === port);
  if (!endpoint) return `${port} is no service's port`;
  if (!line.includes(endpoint.label) && !line.includes(endpoint.addressVariable)) return `${port} is ${endpoint.label}'s port, which this line does not name`;
  return undefined;
}

describe('gRPC ports in the docs', () => {
  it('finds the docs to read', () => {
    expect(markdownFiles).toEqual(expect.arrayContaining(['README.md', 'deploy/README.md', 'docs/architecture.md']));
  });

  it('names each port beside the service SERVICE_ENDPOINTS gives it to', () => {
    const wrong = markdownFiles.flatMap((file) =>
      portMentions(readFileSync(join(WORKSPACE_ROOT, file), 'utf8')).flatMap(({ port, line }) => {
        // An app's own README speaks of that app.
        const problem = mismatch(port, file.startsWith('apps/') ? `${file.split('/')[1]}: ${line}` : line);
        return problem ? [`${file}: ${problem}: ${line.trim()}`] : [];
      }),
    );
    expect(wrong).toEqual([]);
  });

  it("lists every service's port in the README's table", () => {
    const rows = readFileSync(join(WORKSPACE_ROOT, 'README.md'), 'utf8')
      .split('\n')
      .map((line) => /^\| ([a-z-]+) +\| (\d+) +\| `(\w+)` +\|$/.exec(line))
      .flatMap((match) => (match ? [{ label: match[1], port: Number(match[2]), addressVariable: match[3] }] : []));
    expect(rows).toEqual(ENDPOINTS.map(({ label, port, addressVariable }) => ({ label, port, addressVariable })));
  });

  it('rejects a port written beside the wrong service', () => {
    expect(mismatch(SERVICE_ENDPOINTS.templates.port, 'channels-plans listens here')).toMatch(/templates's port/);
    expect(mismatch(50049, 'templates')).toMatch(/no service's port/);
    expect(mismatch(SERVICE_ENDPOINTS.templates.port, '`TEMPLATES_ADDR`')).toBeUndefined();
  });
});
