// The docs send readers to files by path (`tools/build`, `apps/<service>/src/peers/<peer>.peer.ts`).
// A path that was renamed or never written misleads as much as a wrong number, so every path a
// document names must exist in the repository. Only words that are unmistakably repository paths are
// read: anchored at one of the repository's top-level entries (`apps/...`, `deploy/...`), or relative to
// the document's own folder when their first segment is an entry there (`docker/README.md` beside
// deploy/README.md), or a relative Markdown link. Placeholders (`<app>`, `*`) match any name.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { WORKSPACE_ROOT } from './bundle';

/** Not part of the repository: ignored by git (build output, data, caches) or git's own. */
const SKIPPED_DIRS = new Set(['node_modules', '.git', '.nx', '.data', 'dist', 'coverage', 'tmp']);

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory())
      return SKIPPED_DIRS.has(entry.name) ? [] : [...filesUnder(join(dir, entry.name)), `${relative(WORKSPACE_ROOT, join(dir, entry.name))}/`];
    return [relative(WORKSPACE_ROOT, join(dir, entry.name))];
  });
}
/** Every file of the repository, and every folder with a trailing slash, as posix paths from the root. */
const repoEntries = filesUnder(WORKSPACE_ROOT).map((path) => path.split('\\').join('/'));
const markdownFiles = repoEntries.filter((path) => path.endsWith('.md'));
const topLevelNames = new Set(repoEntries.map((path) => path.split('/')[0]).filter((name) => name !== ''));

/** A placeholder (`<peer>`) or glob star stands for one path segment's worth of characters. */
function pathPattern(path: string): RegExp {
  const source = path
    .split(/(<[^<>/]+>|\*)/)
    .map((part, index) => (index % 2 === 1 ? '[^/]+' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}/?$`);
}

function existsInRepo(path: string): boolean {
  if (!/[<*]/.test(path)) return existsSync(join(WORKSPACE_ROOT, path));
  const pattern = pathPattern(path);
  return repoEntries.some((entry) => pattern.test(entry));
}

/** Characters that make a word a URL, a command fragment or an elided path rather than a file name. */
const NOT_A_PATH = /[$=:?|&@#{}[\]"'(),;]|\.\.\./;
const TRAILING_PUNCTUATION = /[.,;:)]+$/;

/** The repository path a word names, seen from the document at `docPath`, or undefined if it names none. */
export function repoPathOf(word: string, docPath: string): string | undefined {
  const candidate = word.replace(TRAILING_PUNCTUATION, '');
  if (!candidate.includes('/') || candidate.startsWith('/') || NOT_A_PATH.test(candidate)) return undefined;
  if (/^[a-z]+:\/\//i.test(candidate) || candidate.startsWith('./') || candidate.startsWith('../')) return undefined;
  const first = candidate.split('/')[0];
  if (topLevelNames.has(first)) return candidate;
  // Relative to the document: only when the document's folder (or its app's src/) has that first segment.
  for (const base of [posix.dirname(docPath), posix.join(posix.dirname(docPath), 'src')]) {
    if (base !== '.' && existsSync(join(WORKSPACE_ROOT, base, first))) return posix.join(base, candidate);
  }
  return undefined;
}

/** A word among others (a command, a tree) names a path only when it looks like a file or a folder. */
const LOOKS_LIKE_FILE_OR_FOLDER = /(\.[A-Za-z0-9]+|\/)$/;

/** Every code span and fenced block's words, and every relative link target, of a Markdown text. */
function namedPaths(text: string, docPath: string): { word: string; path: string }[] {
  const fenced = [...text.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((match) => match[1]);
  const prose = text.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '');
  const spans = [...prose.matchAll(/`([^`\n]+)`/g)].map((match) => match[1].trim());
  // A span that is one word is a name on its own (`tools/build`); in a command (`rollout status
  // deploy/gateway`) a slashed word may be anything, so it must look like a file or a folder.
  const words = [
    ...spans.filter((span) => !/\s/.test(span)),
    ...[...spans.filter((span) => /\s/.test(span)), ...fenced]
      .flatMap((chunk) => chunk.split(/\s+/))
      .filter((word) => LOOKS_LIKE_FILE_OR_FOLDER.test(word.replace(TRAILING_PUNCTUATION, ''))),
  ];
  const found = words.flatMap((word) => {
    const path = repoPathOf(word, docPath);
    return path === undefined ? [] : [{ word, path }];
  });
  const links = [...prose.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)]
    .map((match) => match[1])
    .filter((target) => !/^[a-z]+:/i.test(target))
    .map((target) => ({ word: target, path: posix.normalize(posix.join(posix.dirname(docPath), target)) }));
  return [...found, ...links];
}

describe('paths named in the docs', () => {
  it('reads the guide and the READMEs', () => {
    expect(markdownFiles).toEqual(expect.arrayContaining(['README.md', 'docs/architecture.md', 'deploy/README.md', 'apps/README.md']));
  });

  it('recognises repository paths and leaves other slashed words alone', () => {
    expect(repoPathOf('tools/build', 'docs/architecture.md')).toBe('tools/build');
    expect(repoPathOf('apps/<service>/src/peers/<peer>.peer.ts', 'docs/architecture.md')).toBe('apps/<service>/src/peers/<peer>.peer.ts');
    expect(repoPathOf('docker/README.md', 'deploy/README.md')).toBe('deploy/docker/README.md');
    expect(repoPathOf('macros/macro.registry.ts', 'apps/tagging-trackers/README.md')).toBe('apps/tagging-trackers/src/macros/macro.registry.ts');
    for (const notAPath of [
      '/tmp',
      '@platform/grpc',
      'templates/<key>.png',
      'retail-media.io/grpc-client',
      'http://localhost:8080',
      'MYSQL_URL=mysql://root@127.0.0.1:3306',
      'node_modules/.cache/kubectl',
      'GET',
      'accounts/<accountId>/...',
    ]) {
      expect(repoPathOf(notAPath, 'docs/architecture.md')).toBeUndefined();
    }
  });

  it('finds a path that does not exist', () => {
    expect(existsInRepo('libs/platform/testing/src/no-such-file.ts')).toBe(false);
    expect(existsInRepo('apps/<app>/src/no-such-file.ts')).toBe(false);
    expect(existsInRepo('apps/<app>/src/main.ts')).toBe(true);
  });

  it('reads paths out of code spans, commands, trees and links', () => {
    const text = [
      'See `tools/build` and [the images](docker/README.md).',
      '```sh',
      'kubectl rollout status deploy/gateway',
      'npx tsx tools/build/bundle.ts gateway',
      '```',
    ].join('\n');
    expect(namedPaths(text, 'deploy/README.md').map(({ path }) => path)).toEqual(['tools/build', 'tools/build/bundle.ts', 'deploy/docker/README.md']);
  });

  it('checks a good number of paths', () => {
    const checked = markdownFiles.flatMap((docPath) => namedPaths(readFileSync(join(WORKSPACE_ROOT, docPath), 'utf8'), docPath));
    expect(checked.length).toBeGreaterThan(50);
  });

  it.each(markdownFiles)('%s names only paths that exist', (docPath) => {
    const missing = namedPaths(readFileSync(join(WORKSPACE_ROOT, docPath), 'utf8'), docPath)
      .filter(({ path }) => !existsInRepo(path))
      .map(({ word, path }) => (word === path ? word : `${word} (${path})`));
    expect([...new Set(missing)]).toEqual([]);
  });
});
