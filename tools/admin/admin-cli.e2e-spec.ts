import { spawn } from 'node:child_process';
import { deletePrefixedStreams, dropPrefixedSchemas, freePort, RunningProcess, startProcess, uniquePrefix, WORKSPACE_ROOT } from '@platform/testing';

const ADMIN_TOKEN = 'e2e-admin-cli-token-0123456789';

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI the way `npm run admin` does, as its own process. */
function cli(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'tools/admin/admin-cli.ts', ...args], {
      cwd: WORKSPACE_ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', fail);
    child.once('close', (code) => done({ code, stdout, stderr }));
  });
}

describe('npm run admin (tools/admin) against the real gateway', () => {
  const prefix = uniquePrefix('admincli');
  let gateway: RunningProcess | undefined;
  let gatewayUrl = '';
  let env: NodeJS.ProcessEnv = {};

  beforeAll(async () => {
    const port = await freePort();
    gateway = await startProcess({
      name: 'gateway',
      entry: 'apps/gateway/src/main.ts',
      env: { PORT: String(port), MYSQL_SCHEMA_PREFIX: prefix, NATS_PREFIX: prefix, ADMIN_TOKEN, LOG_LEVEL: 'info' },
      ready: /gateway listening/,
    });
    gatewayUrl = `http://127.0.0.1:${port}`;
    env = { ADMIN_TOKEN, GATEWAY_URL: gatewayUrl };
  });

  afterAll(async () => {
    await gateway?.stop();
    await Promise.all([dropPrefixedSchemas(prefix), deletePrefixedStreams(prefix)]);
  });

  it('creates an org, an account and a key, then revokes the key', async () => {
    const org = await cli(['create-org', '--name', 'Acme Retail', '--org-id', 'acme', '--retailer', '--dimension', '300x250', '--dimension', '728x90'], env);
    expect(org).toEqual({ code: 0, stdout: '{"orgId":"acme"}\n', stderr: '' });

    const account = await cli(['create-account', '--org', 'acme', '--name', 'Acme US'], env);
    expect(account.code).toBe(0);
    const { accountId } = JSON.parse(account.stdout) as { accountId: number };
    expect(accountId).toEqual(expect.any(Number));

    // --url wins over GATEWAY_URL, which points nowhere here.
    const key = await cli(['create-key', '--org', 'acme', '--permission', '*', '--account', String(accountId), '--url', gatewayUrl], {
      ...env,
      GATEWAY_URL: 'http://127.0.0.1:9',
    });
    expect(key.code).toBe(0);
    const { keyId, apiKey } = JSON.parse(key.stdout) as { keyId: string; apiKey: string };
    expect(apiKey).toContain(keyId);

    expect(await cli(['revoke-key', keyId], env)).toEqual({ code: 0, stdout: `${JSON.stringify({ keyId, revoked: true })}\n`, stderr: '' });
    // A second revoke is refused: proof the first one reached the gateway, and how a 404 prints.
    const again = await cli(['revoke-key', keyId], env);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(/^404 API_KEY_NOT_FOUND: /);
    expect(again.stderr).toContain(keyId);

    for (const result of [org, account, key]) expect(result.stdout + result.stderr).not.toContain(ADMIN_TOKEN);
  });

  it('prints a refused request with its field errors on stderr and exits 1', async () => {
    const refused = await cli(['create-key', '--org', 'nobody', '--permission', 'NoSuchPermission'], env);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/^400 VALIDATION_FAILED: /);
    expect(refused.stderr).toMatch(/^ {2}\/permissions\/0 UNKNOWN_PERMISSION: .*NoSuchPermission/m);
    expect(refused.stderr).toMatch(/^ {2}\/orgId UNKNOWN_ORG: /m);
  });

  it('says so when the admin token is wrong, without printing either token', async () => {
    const wrongToken = 'not-the-admin-token-0123456789';
    const result = await cli(['create-org', '--name', 'Nope'], { ...env, ADMIN_TOKEN: wrongToken });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^401 ADMIN_TOKEN_INVALID: /);
    expect(result.stdout + result.stderr).not.toContain(wrongToken);
    expect(result.stdout + result.stderr).not.toContain(ADMIN_TOKEN);
  });

  it('exits 2 with the usage text on a usage error', async () => {
    const result = await cli(['create-key', '--org', 'acme', '--permission', '*', '--account', 'first'], env);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('admin: --account must be a positive decimal integer, got "first"');
    expect(result.stderr).toContain('Usage: npm run admin -- <command> [options]');
  });

  it('reports an unreachable gateway with its URL and exits 1', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const result = await cli(['revoke-key', 'whatever'], { ...env, GATEWAY_URL: closed });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`gateway unreachable at ${closed}`);
  });
});
