import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM, chromiumPath, findKubectl, kubectlMinorVersion, onPath, requireTool } from './external-tools';

describe('external tools the tests drive', () => {
  let dir: string;
  /** A stand-in executable that prints `output` and exits 0. */
  const fakeProgram = (name: string, output: string) => {
    const path = join(dir, name);
    writeFileSync(path, `#!/bin/sh\necho '${output}'\n`);
    chmodSync(path, 0o755);
    return path;
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'external-tools-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the kubectl client version in both the current and the version.Info form', () => {
    expect(kubectlMinorVersion('Client Version: v1.32.4-dispatcher\nKustomize Version: v5.5.0')).toBe(32);
    expect(kubectlMinorVersion('Client Version: version.Info{Major:"1", Minor:"20", GitVersion:"v1.20.9"}')).toBe(20);
    expect(kubectlMinorVersion('kubectl: command not found')).toBeUndefined();
  });

  it('takes KUBECTL when it is 1.21 or later, and refuses one whose kustomize predates components', () => {
    const recent = fakeProgram('kubectl-recent', 'Client Version: v1.31.9');
    const old = fakeProgram('kubectl-old', 'Client Version: version.Info{Major:"1", Minor:"20", GitVersion:"v1.20.9"}');
    expect(findKubectl({ KUBECTL: recent })).toBe(recent);
    expect(findKubectl({ KUBECTL: old })).toBeUndefined();
    expect(findKubectl({ KUBECTL: join(dir, 'missing') })).toBeUndefined();
  });

  it('finds chromium at CHROMIUM_PATH or /usr/bin/chromium only when it is executable', () => {
    expect(chromiumPath({})).toBe('/usr/bin/chromium');
    const notExecutable = join(dir, 'chromium-text');
    writeFileSync(notExecutable, 'not a program');
    const saved = process.env.CHROMIUM_PATH;
    try {
      process.env.CHROMIUM_PATH = notExecutable;
      expect(CHROMIUM.locate()).toBeUndefined();
      expect(() => requireTool(CHROMIUM)).toThrow(/chromium not found\. Run `npm run test:prereqs`, or apt-get install chromium/);
      process.env.CHROMIUM_PATH = fakeProgram('chromium', 'Chromium 1.0');
      expect(requireTool(CHROMIUM)).toBe(process.env.CHROMIUM_PATH);
    } finally {
      if (saved === undefined) delete process.env.CHROMIUM_PATH;
      else process.env.CHROMIUM_PATH = saved;
    }
  });

  it('looks a command up on PATH without running it', () => {
    fakeProgram('some-tool', '');
    expect(onPath('some-tool', { PATH: `/nonexistent:${dir}` })).toBe(true);
    expect(onPath('some-tool', { PATH: '/nonexistent' })).toBe(false);
  });
});
