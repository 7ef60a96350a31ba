import { describeFailure, runAdminCli } from './admin-run';

interface Call {
  url: string;
  method?: string;
  headers: Record<string, string>;
  body?: unknown;
}

/** A fetch that records what the CLI sends and answers as the gateway would. */
function fakeGateway(answer: () => Promise<Response> | Response) {
  const calls: Call[] = [];
  const fetchImpl = (async (input: string | URL | Request, init?: RequestInit) => {
    calls.push({
      url: String(input),
      method: init?.method,
      headers: init?.headers as Record<string, string>,
      body: init?.body === undefined ? undefined : JSON.parse(String(init.body)),
    });
    return answer();
  }) as typeof fetch;
  return { calls, fetchImpl };
}

async function run(argv: string[], env: NodeJS.ProcessEnv, answer: () => Promise<Response> | Response) {
  const gateway = fakeGateway(answer);
  let stdout = '';
  let stderr = '';
  const code = await runAdminCli(argv, env, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), fetch: gateway.fetchImpl });
  return { code, stdout, stderr, calls: gateway.calls };
}

const json = (status: number, body: unknown, contentType = 'application/json') =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': contentType } });
const problem = (status: number, body: Record<string, unknown>) =>
  json(status, { type: 'about:blank', title: 'Problem', status, ...body }, 'application/problem+json; charset=utf-8');

describe('runAdminCli', () => {
  it('sends each command as its admin API request with the token from ADMIN_TOKEN', async () => {
    const env = { ADMIN_TOKEN: 'token-from-env-0123456789', GATEWAY_URL: 'http://gw:1234' };
    const cases: [string[], Omit<Call, 'headers'>][] = [
      [
        ['create-org', '--name', 'Acme', '--org-id', 'acme'],
        { url: 'http://gw:1234/admin/v1/orgs', method: 'POST', body: { orgId: 'acme', name: 'Acme', isRetailer: false } },
      ],
      [['create-account', '--org', 'a b/c', '--name', 'US'], { url: 'http://gw:1234/admin/v1/orgs/a%20b%2Fc/accounts', method: 'POST', body: { name: 'US' } }],
      [
        ['create-key', '--org', 'acme', '--permission', '*', '--account', '7'],
        { url: 'http://gw:1234/admin/v1/api-keys', method: 'POST', body: { orgId: 'acme', permissions: ['*'], accountIds: [7] } },
      ],
      [['revoke-key', 'k/1'], { url: 'http://gw:1234/admin/v1/api-keys/k%2F1', method: 'DELETE', body: undefined }],
    ];
    for (const [argv, expected] of cases) {
      const { calls } = await run(argv, env, () => json(201, {}));
      expect(calls).toEqual([{ ...expected, headers: expect.objectContaining({ authorization: 'Bearer token-from-env-0123456789' }) }]);
    }
  });

  it('falls back to the development token when ADMIN_TOKEN is unset or empty', async () => {
    for (const env of [{}, { ADMIN_TOKEN: '' }]) {
      const { calls } = await run(['revoke-key', 'k'], env, () => new Response(null, { status: 204 }));
      expect(calls[0].headers.authorization).toBe('Bearer dev-admin-token');
    }
  });

  it('prints the JSON answer on stdout and exits 0', async () => {
    const result = await run(['create-key', '--org', 'acme', '--permission', '*'], {}, () => json(201, { keyId: 'k1', apiKey: 'rmk_k1_secret' }));
    expect(result).toEqual(expect.objectContaining({ code: 0, stdout: '{"keyId":"k1","apiKey":"rmk_k1_secret"}\n', stderr: '' }));
  });

  it('answers a 204 revoke with a JSON line too, so stdout stays machine-readable', async () => {
    const result = await run(['revoke-key', 'k1'], {}, () => new Response(null, { status: 204 }));
    expect(result).toEqual(expect.objectContaining({ code: 0, stdout: '{"keyId":"k1","revoked":true}\n', stderr: '' }));
  });

  it('prints a problem as "<status> <code>: <detail>" plus its field errors on stderr and exits 1', async () => {
    const result = await run(['create-key', '--org', 'acme', '--permission', 'Nope'], {}, () =>
      problem(400, {
        code: 'VALIDATION_FAILED',
        detail: 'The request has 3 invalid fields.',
        errors: [
          { pointer: '/permissions/0', code: 'UNKNOWN_PERMISSION', detail: 'Unknown permission "Nope".' },
          { parameter: 'orgId', code: 'INVALID_FORMAT', detail: 'orgId must match a pattern.' },
          { header: 'content-type', code: 'UNSUPPORTED', detail: 'Send JSON.' },
        ],
      }),
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      [
        '400 VALIDATION_FAILED: The request has 3 invalid fields.',
        '  /permissions/0 UNKNOWN_PERMISSION: Unknown permission "Nope".',
        '  parameter orgId INVALID_FORMAT: orgId must match a pattern.',
        '  header content-type UNSUPPORTED: Send JSON.',
        '',
      ].join('\n'),
    );
  });

  it('on 401 says where the token comes from, without printing it', async () => {
    const token = 'wrong-token-abcdefghij';
    const result = await run(['revoke-key', 'k'], { ADMIN_TOKEN: token }, () =>
      problem(401, { code: 'ADMIN_TOKEN_INVALID', detail: 'The admin API needs a bearer token.' }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      '401 ADMIN_TOKEN_INVALID: The admin API needs a bearer token.\n  the admin token is read from the environment variable ADMIN_TOKEN\n',
    );
    expect(result.stdout + result.stderr).not.toContain(token);
  });

  it('reports an unreachable gateway with its URL and exits 1', async () => {
    const refused = Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
    const result = await run(['revoke-key', 'k', '--url', 'http://127.0.0.1:9'], {}, () => Promise.reject(refused));
    expect(result).toEqual(expect.objectContaining({ code: 1, stdout: '', stderr: 'gateway unreachable at http://127.0.0.1:9 (ECONNREFUSED)\n' }));
  });

  it('reports a gateway that does not answer in time', async () => {
    const timeout = Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' });
    const result = await run(['revoke-key', 'k'], {}, () => Promise.reject(timeout));
    expect(result).toEqual(expect.objectContaining({ code: 1, stderr: 'gateway at http://localhost:8080 did not answer within 30 s\n' }));
  });

  it('prints the usage text and exits 2 on a usage error, without sending anything', async () => {
    const result = await run(['create-key', '--org', 'acme', '--permission', '*', '--account', 'two'], {}, () => json(201, {}));
    expect(result.code).toBe(2);
    expect(result.calls).toEqual([]);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^admin: --account must be a positive decimal integer, got "two"\n\nUsage: npm run admin -- <command>/);
  });

  it('prints the usage text on stdout for help and exits 0', async () => {
    const result = await run(['help'], {}, () => json(201, {}));
    expect(result).toEqual(expect.objectContaining({ code: 0, stderr: '', calls: [] }));
    expect(result.stdout).toContain('create-key --org <orgId> --permission <name>...');
  });
});

describe('describeFailure', () => {
  it('falls back to the status text and the start of the body when the answer is not a problem', () => {
    expect(describeFailure(502, 'Bad Gateway', 'text/html', '<html>upstream down</html>')).toBe('502 Bad Gateway: <html>upstream down</html>\n');
    expect(describeFailure(503, '', 'text/plain', '')).toBe('503 error: (empty answer)\n');
  });

  it('uses the title when a problem has no code or detail', () => {
    expect(describeFailure(404, 'Not Found', 'application/problem+json', JSON.stringify({ title: 'Not Found', status: 404 }))).toBe(
      '404 Not Found: Not Found\n',
    );
  });
});
