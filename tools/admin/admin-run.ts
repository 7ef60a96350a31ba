import { AdminRequest, DEFAULT_ADMIN_TOKEN, parseAdminArgs, USAGE, UsageError } from './admin-args';

export interface AdminIo {
  stdout(text: string): void;
  stderr(text: string): void;
  fetch: typeof fetch;
}

/** Long enough for a slow database, short enough that a wedged gateway does not hang a script. */
const REQUEST_TIMEOUT_MS = 30_000;

interface FieldError {
  pointer?: string;
  parameter?: string;
  header?: string;
  code?: string;
  detail?: string;
}

interface Problem {
  title?: string;
  detail?: string;
  code?: string;
  errors?: FieldError[];
}

function toHttp(request: AdminRequest): { method: string; path: string; body?: unknown } {
  switch (request.command) {
    case 'create-org':
      return { method: 'POST', path: '/admin/v1/orgs', body: request.body };
    case 'create-account':
      return { method: 'POST', path: `/admin/v1/orgs/${encodeURIComponent(request.orgId)}/accounts`, body: request.body };
    case 'create-key':
      return { method: 'POST', path: '/admin/v1/api-keys', body: request.body };
    case 'revoke-key':
      return { method: 'DELETE', path: `/admin/v1/api-keys/${encodeURIComponent(request.keyId)}` };
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function fieldErrorLine(error: FieldError): string {
  const where =
    error.pointer ?? (error.parameter !== undefined ? `parameter ${error.parameter}` : error.header !== undefined ? `header ${error.header}` : undefined);
  const label = [where, error.code].filter((part) => part !== undefined).join(' ');
  return `  ${label || '-'}: ${error.detail ?? ''}`;
}

/** `<status> <code>: <detail>` and one indented line per field error, as documented in the usage text. */
export function describeFailure(status: number, statusText: string, contentType: string, text: string): string {
  const problem = /json/.test(contentType) ? (parseJson(text) as Problem | undefined) : undefined;
  if (!problem || typeof problem !== 'object') return `${status} ${statusText || 'error'}: ${text.trim().slice(0, 500) || '(empty answer)'}\n`;
  const lines = [`${status} ${problem.code ?? problem.title ?? statusText}: ${problem.detail ?? problem.title ?? ''}`];
  for (const error of Array.isArray(problem.errors) ? problem.errors : []) lines.push(fieldErrorLine(error));
  // The gateway's detail names the header; the CLI user needs to know where the token comes from.
  if (status === 401) lines.push('  the admin token is read from the environment variable ADMIN_TOKEN');
  return lines.join('\n') + '\n';
}

function describeUnreachable(gatewayUrl: string, error: unknown): string {
  if ((error as Error).name === 'TimeoutError') return `gateway at ${gatewayUrl} did not answer within ${REQUEST_TIMEOUT_MS / 1000} s\n`;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const reason = cause?.code ?? cause?.message ?? (error as Error).message;
  return `gateway unreachable at ${gatewayUrl} (${reason})\n`;
}

/** Runs one CLI invocation and resolves with its exit code: 0 done, 1 refused or unreachable, 2 usage. */
export async function runAdminCli(argv: string[], env: NodeJS.ProcessEnv, io: AdminIo): Promise<number> {
  let invocation;
  try {
    invocation = parseAdminArgs(argv, env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`admin: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (invocation.kind === 'help') {
    io.stdout(USAGE);
    return 0;
  }
  const { gatewayUrl, request } = invocation;
  const { method, path, body } = toHttp(request);
  const headers: Record<string, string> = { authorization: `Bearer ${env.ADMIN_TOKEN || DEFAULT_ADMIN_TOKEN}`, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  let text: string;
  try {
    response = await io.fetch(`${gatewayUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    text = await response.text();
  } catch (error) {
    io.stderr(describeUnreachable(gatewayUrl, error));
    return 1;
  }
  if (!response.ok) {
    io.stderr(describeFailure(response.status, response.statusText, response.headers.get('content-type') ?? '', text));
    return 1;
  }
  // 204 has no body; a JSON line keeps stdout machine-readable for every command.
  const answer = text === '' && request.command === 'revoke-key' ? { keyId: request.keyId, revoked: true } : (parseJson(text) ?? text);
  io.stdout(`${typeof answer === 'string' ? answer : JSON.stringify(answer)}\n`);
  return 0;
}
