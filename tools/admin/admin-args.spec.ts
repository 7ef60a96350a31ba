import { AdminInvocation, parseAccountId, parseAdminArgs, UsageError } from './admin-args';

const parse = (argv: string[], env: NodeJS.ProcessEnv = {}) => parseAdminArgs(argv, env);
const requestOf = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
  const invocation = parse(argv, env) as Extract<AdminInvocation, { kind: 'request' }>;
  expect(invocation.kind).toBe('request');
  return invocation;
};
const usageError = (argv: string[], env: NodeJS.ProcessEnv = {}): string => {
  try {
    parse(argv, env);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error(`expected a usage error for ${argv.join(' ')}`);
};

describe('parseAdminArgs', () => {
  it.each([[['help']], [['--help']], [['-h']], [['create-key', '--help']], [['revoke-key', '-h']]])('%j asks for help', (argv) => {
    expect(parse(argv)).toEqual({ kind: 'help' });
  });

  it('create-org: every option, repeated dimensions, --retailer as isRetailer', () => {
    expect(
      requestOf(['create-org', '--name', 'Acme Retail', '--org-id', 'acme', '--retailer', '--dimension', '300x250', '--dimension', '728x90']).request,
    ).toEqual({
      command: 'create-org',
      body: { orgId: 'acme', name: 'Acme Retail', isRetailer: true, dimensionWhitelist: ['300x250', '728x90'] },
    });
  });

  it('create-org: optional members stay absent so the gateway applies its defaults', () => {
    expect(requestOf(['create-org', '--name', 'Brand Co']).request).toEqual({ command: 'create-org', body: { name: 'Brand Co', isRetailer: false } });
  });

  it('create-account', () => {
    expect(requestOf(['create-account', '--org', 'acme', '--name', 'Acme US']).request).toEqual({
      command: 'create-account',
      orgId: 'acme',
      body: { name: 'Acme US' },
    });
  });

  it('create-key: permissions and account ids as integers', () => {
    expect(
      requestOf(['create-key', '--org', 'acme', '--permission', '*', '--permission', 'MediaChannel_All', '--account', '1', '--account', '22']).request,
    ).toEqual({
      command: 'create-key',
      body: { orgId: 'acme', permissions: ['*', 'MediaChannel_All'], accountIds: [1, 22] },
    });
    expect(requestOf(['create-key', '--org', 'acme', '--permission', '*']).request).toEqual({
      command: 'create-key',
      body: { orgId: 'acme', permissions: ['*'] },
    });
  });

  it('revoke-key takes the keyId as its one positional argument', () => {
    expect(requestOf(['revoke-key', 'iCoJG7RT9iwWtHZV']).request).toEqual({ command: 'revoke-key', keyId: 'iCoJG7RT9iwWtHZV' });
  });

  it('gateway URL: --url over GATEWAY_URL over the default, trailing slashes dropped', () => {
    const argv = ['revoke-key', 'k'];
    expect(requestOf(argv).gatewayUrl).toBe('http://localhost:8080');
    expect(requestOf(argv, { GATEWAY_URL: 'http://gw:9000/' }).gatewayUrl).toBe('http://gw:9000');
    expect(requestOf([...argv, '--url', 'https://admin.example/prefix/'], { GATEWAY_URL: 'http://gw:9000' }).gatewayUrl).toBe('https://admin.example/prefix');
  });

  it.each([
    [[], 'missing command'],
    [['make-coffee'], 'unknown command "make-coffee"'],
    [['create-org'], 'missing required option --name'],
    [['create-org', '--name', 'x', '--colour', 'red'], 'unknown option --colour for create-org'],
    [['create-org', '--name'], "Option '--name <value>' argument missing"],
    [['create-org', '--name', 'x', '--retailer=yes'], "Option '--retailer' does not take an argument"],
    [['create-org', '--name', 'x', 'extra'], 'create-org takes no positional arguments, got "extra"'],
    [['create-account', '--name', 'Acme US'], 'missing required option --org'],
    [['create-account', '--org', 'acme'], 'missing required option --name'],
    [['create-key', '--permission', '*'], 'missing required option --org'],
    [['create-key', '--org', 'acme'], "missing required option --permission (use --permission '*' for every permission)"],
    [['revoke-key'], 'revoke-key needs the keyId'],
    [['revoke-key', 'a', 'b'], 'revoke-key takes one keyId, got 2'],
    [['revoke-key', 'k', '--url', 'not a url'], 'gateway URL "not a url" is not a URL'],
    [['revoke-key', 'k', '--url', 'ftp://gw'], 'gateway URL "ftp://gw" must use http or https'],
  ])('%j is a usage error: %s', (argv, message) => {
    expect(usageError(argv)).toContain(message);
  });

  it.each([['abc'], ['0'], ['-1'], ['1.5'], ['1e3'], ['0x10'], ['01'], [' 1'], [''], ['9007199254740993']])(
    '--account %j is refused before any request',
    (text) => {
      expect(usageError(['create-key', '--org', 'acme', '--permission', '*', `--account=${text}`])).toBe(
        `--account must be a positive decimal integer, got ${JSON.stringify(text)}`,
      );
    },
  );

  it('accepts the largest safe account id', () => {
    expect(parseAccountId(String(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER);
  });

  it.each([['--token=s3cret-value'], ['--admin-token']])('%s is refused without echoing a value, pointing at ADMIN_TOKEN', (flag) => {
    const message = usageError(['create-org', '--name', 'x', flag]);
    expect(message).toBe('the admin token is read from the environment variable ADMIN_TOKEN, never from a flag');
    expect(message).not.toContain('s3cret');
  });
});
