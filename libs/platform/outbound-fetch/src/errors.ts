import { redactUrl } from './redact-url';

/**
 * Stable codes callers branch on (e.g. a feed job maps ADDRESS_NOT_ALLOWED to a 424 the customer
 * can act on, and TIMEOUT to a retry). Never rename one: they are part of the contract.
 */
export type OutboundFetchErrorCode =
  | 'OUTBOUND_INVALID_URL'
  | 'OUTBOUND_SCHEME_NOT_ALLOWED'
  | 'OUTBOUND_ADDRESS_NOT_ALLOWED'
  | 'OUTBOUND_TOO_MANY_REDIRECTS'
  | 'OUTBOUND_RESPONSE_TOO_LARGE'
  | 'OUTBOUND_TIMEOUT'
  | 'OUTBOUND_STALLED'
  | 'OUTBOUND_DNS_FAILED'
  | 'OUTBOUND_CONNECTION_FAILED';

/**
 * Every failure of an outbound fetch. `url` is the URL of the hop that failed with any
 * user:password removed, and the message is built from that same redacted URL, so the error can
 * be logged or shown to the customer as is.
 */
export class OutboundFetchError extends Error {
  constructor(
    readonly code: OutboundFetchErrorCode,
    message: string,
    readonly url: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'OutboundFetchError';
  }
}

export const isOutboundFetchError = (error: unknown): error is OutboundFetchError => error instanceof OutboundFetchError;

// One factory per failure so every message is worded once and always uses the redacted URL.

export const invalidUrl = (url: string, detail: string) =>
  new OutboundFetchError('OUTBOUND_INVALID_URL', `Refused to fetch ${redactUrl(url)}: ${detail}.`, redactUrl(url));

export const schemeNotAllowed = (url: URL) =>
  new OutboundFetchError(
    'OUTBOUND_SCHEME_NOT_ALLOWED',
    `Refused to fetch ${redactUrl(url)}: the scheme "${url.protocol}" is not allowed, only http: and https: are.`,
    redactUrl(url),
  );

export const addressNotAllowed = (url: URL, reason: string) =>
  new OutboundFetchError(
    'OUTBOUND_ADDRESS_NOT_ALLOWED',
    `Refused to fetch ${redactUrl(url)}: ${reason}. Outbound fetches may only reach public addresses.`,
    redactUrl(url),
  );

export const tooManyRedirects = (url: URL, maxRedirects: number) =>
  new OutboundFetchError('OUTBOUND_TOO_MANY_REDIRECTS', `Gave up fetching at ${redactUrl(url)}: more than ${maxRedirects} redirects.`, redactUrl(url));

export const responseTooLarge = (url: URL, maxBytes: number, announcedBytes?: number) =>
  new OutboundFetchError(
    'OUTBOUND_RESPONSE_TOO_LARGE',
    announcedBytes === undefined
      ? `The response from ${redactUrl(url)} exceeded the limit of ${maxBytes} bytes.`
      : `The response from ${redactUrl(url)} announces ${announcedBytes} bytes, more than the limit of ${maxBytes}.`,
    redactUrl(url),
  );

export const timedOut = (url: URL, timeoutMs: number) =>
  new OutboundFetchError('OUTBOUND_TIMEOUT', `Fetching ${redactUrl(url)} did not finish within ${timeoutMs} ms.`, redactUrl(url));

export const stalled = (url: URL, idleMs: number) =>
  new OutboundFetchError('OUTBOUND_STALLED', `Fetching ${redactUrl(url)} stalled: nothing arrived for ${idleMs} ms.`, redactUrl(url));

export const dnsFailed = (url: URL, hostname: string, cause: unknown) =>
  new OutboundFetchError('OUTBOUND_DNS_FAILED', `Could not resolve the host "${hostname}" of ${redactUrl(url)}${describeCause(cause)}.`, redactUrl(url), {
    cause,
  });

export const connectionFailed = (url: URL, cause: unknown) =>
  new OutboundFetchError('OUTBOUND_CONNECTION_FAILED', `The connection to ${redactUrl(url)} failed${describeCause(cause)}.`, redactUrl(url), { cause });

// System errors name the address and the errno ("connect ECONNREFUSED 127.0.0.1:80"), never the
// URL's userinfo, so their message is safe to quote. Exported for a transport that meets a connection
// failure past the guard (an FTP or SFTP client's own socket), so it reads as the guard's do.
export function describeCause(cause: unknown): string {
  const detail = causeDetail(cause);
  return detail ? `: ${detail}` : '';
}

// Duck-typed rather than instanceof: errors from Node internals may come from another realm
// (jest's sandbox, vm contexts), where `instanceof Error` is false.
function causeDetail(cause: unknown): string {
  if (typeof cause !== 'object' || cause === null) return '';
  const { message, errors, code, reason } = cause as { message?: unknown; errors?: unknown; code?: unknown; reason?: unknown };
  const tls = tlsDetail(message, code, reason);
  if (tls) return tls;
  if (typeof message === 'string' && tidy(message)) return tidy(message);
  // Node's happy-eyeballs connect fails with an AggregateError whose own message is empty.
  if (Array.isArray(errors)) return errors.map(causeDetail).filter(Boolean).join('; ');
  return typeof code === 'string' ? code : '';
}

// OpenSSL's own line: "<thread>:error:<code>:<library>:<function>:<reason>:<source file>:<line>:<data>\n"
// (OpenSSL 3; 1.1 has no thread). Of it the customer needs the reason only.
const OPENSSL_LINE = /^(?:[0-9A-F]+:)?error:[0-9A-F]+:[^:]*:[^:]*:([^:]*)/i;

/** A TLS failure in words: OpenSSL's line names its source file and ends in ":\n". */
function tlsDetail(message: unknown, code: unknown, reason: unknown): string | undefined {
  const line = typeof message === 'string' ? OPENSSL_LINE.exec(message) : null;
  if (!line && !(typeof code === 'string' && code.startsWith('ERR_SSL_'))) return undefined;
  const said = tidy(typeof reason === 'string' && reason ? reason : (line?.[1] ?? (typeof message === 'string' ? message : '')));
  // An https URL at a port that serves plain http: the reply to the ClientHello is not a TLS record.
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || said === 'wrong version number')
    return 'the TLS handshake failed because the server did not answer in TLS (perhaps it serves plain http)';
  return said ? `TLS error: ${said}` : 'TLS error';
}

/** One line, without the trailing colon, line break or full stop some causes end in (the message adds its own). */
const tidy = (text: string): string =>
  text
    .replace(/\s+/g, ' ')
    .replace(/[\s:.]+$/, '')
    .trim();
