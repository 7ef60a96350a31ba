import { execFile } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * The boundary rules must bite, not just be configured: each case lints a probe import as if it
 * were written in a real project and expects @nx/enforce-module-boundaries to refuse it.
 */
const root = resolve(__dirname, '../..');

/** Runs the real ESLint CLI (its flat config is ESM, which jest's module system cannot load). */
function boundaryErrors(filePath: string, code: string): Promise<string[]> {
  return new Promise((done, fail) => {
    const child = execFile(
      resolve(root, 'node_modules/.bin/eslint'),
      ['--stdin', '--stdin-filename', filePath, '--format', 'json'],
      { cwd: root, env: { ...process.env, NX_DAEMON: 'false' } },
      (error, stdout) => {
        // Exit code 1 means "problems found"; anything else without JSON is a real failure.
        try {
          const [result] = JSON.parse(stdout) as { messages: { ruleId: string | null; message: string }[] }[];
          done(result.messages.filter((m) => m.ruleId === '@nx/enforce-module-boundaries').map((m) => m.message));
        } catch {
          fail(error ?? new Error(`eslint printed no JSON: ${stdout}`));
        }
      },
    );
    child.stdin?.end(code);
  });
}

describe('@nx/enforce-module-boundaries', () => {
  jest.setTimeout(60_000);

  it('refuses an app importing another app', async () => {
    const errors = await boundaryErrors(
      'apps/gateway/src/probe.ts',
      "import { startChannelsPlans } from '../../channels-plans/src/channels-plans.module';\nexport const x = startChannelsPlans;\n",
    );
    expect(errors).toEqual([expect.stringMatching(/relative or absolute path/)]);
  });

  it('refuses a platform library importing an app', async () => {
    const errors = await boundaryErrors(
      'libs/platform/errors/src/probe.ts',
      "import { startGateway } from '../../../../apps/gateway/src/gateway.module';\nexport const x = startGateway;\n",
    );
    expect(errors.length).toBeGreaterThan(0);
  });

  it('refuses a dependency its tags do not allow (contracts depend on contracts only)', async () => {
    // A platform library that does not itself depend on contracts, so the answer is the tag rule, not a cycle.
    const errors = await boundaryErrors('libs/contracts/src/probe.ts', "import { createLogger } from '@platform/logging';\nexport const x = createLogger;\n");
    expect(errors).toEqual([expect.stringMatching(/tagged with "type:contracts" can only depend on libs tagged with "type:contracts"/)]);
  });

  it('lets an app import a platform library through its alias', async () => {
    const errors = await boundaryErrors('apps/channels-plans/src/probe.ts', "import { AppError } from '@platform/errors';\nexport const x = AppError;\n");
    expect(errors).toEqual([]);
  });
});
