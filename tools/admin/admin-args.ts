import { parseArgs, ParseArgsConfig } from 'node:util';

export const DEFAULT_GATEWAY_URL = 'http://localhost:8080';
export const DEFAULT_ADMIN_TOKEN = 'dev-admin-token';

export const USAGE = `Usage: npm run admin -- <command> [options]

Commands:
  create-org --name <name> [--org-id <id>] [--retailer] [--dimension <WxH>]...
      Create an organization; --dimension may repeat (e.g. 300x250).
  create-account --org <orgId> --name <name>
      Create an account in an organization.
  create-key --org <orgId> --permission <name>... [--account <id>]...
      Issue an API key, shown once. --permission '*' grants every permission;
      without --account the key covers every account of the org.
  revoke-key <keyId>
      Revoke an API key; it stops working at once.
  help
      Show this text.

Options of every command:
  --url <url>    gateway address (env GATEWAY_URL, default ${DEFAULT_GATEWAY_URL})
  -h, --help     show this text

The admin token is read from the environment variable ADMIN_TOKEN only (default
${DEFAULT_ADMIN_TOKEN}), so that it never lands in shell history.
Exit codes: 0 done, 1 refused by the gateway or unreachable, 2 usage error.
`;

/** What the CLI asks of the admin API, already validated and shaped as the request body. */
export type AdminRequest =
  | { command: 'create-org'; body: { orgId?: string; name: string; isRetailer: boolean; dimensionWhitelist?: string[] } }
  | { command: 'create-account'; orgId: string; body: { name: string } }
  | { command: 'create-key'; body: { orgId: string; accountIds?: number[]; permissions: string[] } }
  | { command: 'revoke-key'; keyId: string };

export type AdminInvocation = { kind: 'help' } | { kind: 'request'; gatewayUrl: string; request: AdminRequest };

/** A mistake in the command line: reported with the usage text and exit code 2, before any request. */
export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;

const COMMON_OPTIONS = {
  url: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} satisfies Options;

const COMMAND_OPTIONS = {
  'create-org': { name: { type: 'string' }, 'org-id': { type: 'string' }, retailer: { type: 'boolean' }, dimension: { type: 'string', multiple: true } },
  'create-account': { org: { type: 'string' }, name: { type: 'string' } },
  'create-key': { org: { type: 'string' }, permission: { type: 'string', multiple: true }, account: { type: 'string', multiple: true } },
  'revoke-key': {},
} satisfies Record<AdminRequest['command'], Options>;

type CommandName = keyof typeof COMMAND_OPTIONS;
type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

const isCommand = (name: string): name is CommandName => Object.prototype.hasOwnProperty.call(COMMAND_OPTIONS, name);

function required(values: Values, option: string): string {
  const value = values[option];
  if (value === undefined) throw new UsageError(`missing required option --${option}`);
  return value as string;
}

/** Account ids are validated here so a typo never reaches the gateway as a float, a negative or a name. */
export function parseAccountId(text: string): number {
  const value = Number(text);
  if (!/^[1-9][0-9]*$/.test(text) || !Number.isSafeInteger(value))
    throw new UsageError(`--account must be a positive decimal integer, got ${JSON.stringify(text)}`);
  return value;
}

export function resolveGatewayUrl(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  const text = flag ?? (env.GATEWAY_URL || DEFAULT_GATEWAY_URL);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`gateway URL ${JSON.stringify(text)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`gateway URL ${JSON.stringify(text)} must use http or https`);
  // Kept as given (minus trailing slashes) so a gateway served under a path prefix still works.
  return text.replace(/\/+$/, '');
}

function toRequest(command: CommandName, values: Values, positionals: string[]): AdminRequest {
  if (command === 'revoke-key') {
    if (positionals.length !== 1)
      throw new UsageError(positionals.length === 0 ? 'revoke-key needs the keyId' : `revoke-key takes one keyId, got ${positionals.length}`);
    return { command, keyId: positionals[0] };
  }
  if (positionals.length > 0) throw new UsageError(`${command} takes no positional arguments, got ${JSON.stringify(positionals[0])}`);
  switch (command) {
    case 'create-org': {
      const dimensions = values.dimension as string[] | undefined;
      const orgId = values['org-id'] as string | undefined;
      return {
        command,
        body: {
          ...(orgId !== undefined && { orgId }),
          name: required(values, 'name'),
          isRetailer: values.retailer === true,
          ...(dimensions && { dimensionWhitelist: dimensions }),
        },
      };
    }
    case 'create-account':
      return { command, orgId: required(values, 'org'), body: { name: required(values, 'name') } };
    case 'create-key': {
      const orgId = required(values, 'org');
      const permissions = values.permission as string[] | undefined;
      if (!permissions) throw new UsageError("missing required option --permission (use --permission '*' for every permission)");
      const accounts = values.account as string[] | undefined;
      return { command, body: { orgId, ...(accounts && { accountIds: accounts.map(parseAccountId) }), permissions } };
    }
  }
}

function describeParseError(command: CommandName, error: Error & { code?: string }): string {
  const option = error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'([^']+)'/.exec(error.message)?.[1] : undefined;
  if (option === undefined) return error.message;
  if (/^--(admin-)?token$/.test(option)) return 'the admin token is read from the environment variable ADMIN_TOKEN, never from a flag';
  return `unknown option ${option} for ${command}`;
}

/** Turns the arguments after `npm run admin --` into a validated invocation; throws UsageError otherwise. */
export function parseAdminArgs(argv: string[], env: NodeJS.ProcessEnv): AdminInvocation {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError('missing command');
  if (command === 'help' || command === '--help' || command === '-h') return { kind: 'help' };
  if (!isCommand(command)) throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  let parsed: { values: Values; positionals: string[] };
  try {
    // Widened to Options: one parse for every command, each command's members read by toRequest.
    const options: Options = { ...COMMON_OPTIONS, ...COMMAND_OPTIONS[command] };
    parsed = parseArgs({ args: rest, options, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError(describeParseError(command, error as Error & { code?: string }));
  }
  if (parsed.values.help === true) return { kind: 'help' };
  const request = toRequest(command, parsed.values, parsed.positionals);
  return { kind: 'request', gatewayUrl: resolveGatewayUrl(parsed.values.url as string | undefined, env), request };
}
