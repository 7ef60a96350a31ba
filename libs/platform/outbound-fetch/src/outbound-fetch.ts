import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { Allowlist } from './allowlist';
import { fetchDeadline, type Deadline } from './deadline';
import { connectionFailed, invalidUrl, isOutboundFetchError, responseTooLarge, schemeNotAllowed, tooManyRedirects } from './errors';
import { guardedBody } from './guarded-body';
import { HopRequest, OutboundMethod, sendHop } from './hop-request';
import { HostResolver, systemResolver } from './host-resolution';
import { redactUrl } from './redact-url';
import { redirectTarget, requestAfterRedirect } from './redirects';

export const DEFAULT_MAX_BYTES = 50 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_REDIRECTS = 5;

export interface OutboundFetchOptions {
  /** Normalized "host:port" entries that may be loopback/private, usually parseAllowlist(env.OUTBOUND_ALLOWLIST). */
  allowlist?: readonly string[];
  /** Default byte cap of a response body. */
  maxBytes?: number;
  /** Default total time of a fetch: DNS, connects, every redirect hop and the body. */
  timeoutMs?: number;
  /** Default number of redirects followed before giving up. */
  maxRedirects?: number;
  /** Resolves host names; defaults to the system resolver. Tests inject one. */
  lookup?: HostResolver;
  /** PEM CA certificates trusted in addition to the system roots (on-premise sources with a private CA). */
  extraCaCertificates?: readonly string[];
}

export interface OutboundRequestInit {
  method?: OutboundMethod;
  headers?: Record<string, string>;
  body?: string | Buffer;
  maxBytes?: number;
  timeoutMs?: number;
  /** The longest the host may send nothing: before the answer's head, then between chunks of its body (OUTBOUND_STALLED). None by default. */
  idleTimeoutMs?: number;
  maxRedirects?: number;
}

interface OutboundResponseHead {
  status: number;
  headers: IncomingHttpHeaders;
  /** The URL that produced this response, after redirects, for messages: without userinfo, query or fragment (`redactUrl`). */
  url: string;
}

export interface OutboundResponse extends OutboundResponseHead {
  body: Buffer;
}

export interface OutboundStreamResponse extends OutboundResponseHead {
  /**
   * The response body. Errors with OUTBOUND_RESPONSE_TOO_LARGE past maxBytes and with
   * OUTBOUND_TIMEOUT when the deadline passes while it is still being read.
   */
  body: Readable;
}

export interface OutboundFetch {
  /** Fetches a customer-supplied URL and buffers the whole body (up to maxBytes). */
  fetch(url: string, init?: OutboundRequestInit): Promise<OutboundResponse>;
  /** Same guard, but the body is streamed; the deadline keeps running until it is consumed. */
  fetchStream(url: string, init?: OutboundRequestInit): Promise<OutboundStreamResponse>;
}

interface Limits {
  maxBytes: number;
  timeoutMs: number;
  idleTimeoutMs?: number;
  maxRedirects: number;
}

/**
 * The one way to fetch a URL a customer gave us (feeds, remote sources, customer buckets).
 * Non-2xx statuses are returned, not thrown: what a bad status means is the caller's business;
 * the guard only refuses what must never be reached and caps what may be.
 */
export function createOutboundFetch(options: OutboundFetchOptions = {}): OutboundFetch {
  const allowlist = new Allowlist(options.allowlist ?? []);
  const resolve = options.lookup ?? systemResolver;
  const defaults: Limits = {
    maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRedirects: options.maxRedirects ?? DEFAULT_MAX_REDIRECTS,
  };
  assertValidLimits(defaults);

  async function fetchStream(url: string, init: OutboundRequestInit = {}): Promise<OutboundStreamResponse> {
    const limits: Limits = {
      maxBytes: init.maxBytes ?? defaults.maxBytes,
      timeoutMs: init.timeoutMs ?? defaults.timeoutMs,
      idleTimeoutMs: init.idleTimeoutMs,
      maxRedirects: init.maxRedirects ?? defaults.maxRedirects,
    };
    assertValidLimits(limits);
    let hop: HopRequest = {
      url: parseFetchableUrl(url),
      method: init.method ?? 'GET',
      headers: lowerCaseNames(init.headers ?? {}),
      body: init.body === undefined ? undefined : Buffer.from(init.body),
    };
    const deadline = fetchDeadline(() => hop.url, limits);
    try {
      for (let redirectsFollowed = 0; ; redirectsFollowed++) {
        const response = await sendHop(hop, {
          enforceAddressPolicy: !allowlist.permits(hop.url),
          resolve,
          signal: deadline.signal,
          extraCaCertificates: options.extraCaCertificates,
        });
        const nextUrl = redirectTarget(response, hop.url);
        if (!nextUrl) return streamResponse(response, hop, limits, deadline);
        // The redirect's own body is never read; closing the connection is cheaper than draining it.
        response.destroy();
        if (redirectsFollowed >= limits.maxRedirects) throw tooManyRedirects(hop.url, limits.maxRedirects);
        hop = requestAfterRedirect(hop, response.statusCode ?? 0, assertFetchableScheme(nextUrl));
      }
    } catch (error) {
      deadline.dispose();
      throw error;
    }
  }

  async function fetch(url: string, init: OutboundRequestInit = {}): Promise<OutboundResponse> {
    const { body, ...head } = await fetchStream(url, init);
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of body) chunks.push(chunk as Buffer);
    } catch (error) {
      throw isOutboundFetchError(error) ? error : connectionFailed(new URL(head.url), error);
    }
    return { ...head, body: Buffer.concat(chunks) };
  }

  return { fetch, fetchStream };
}

function parseFetchableUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalidUrl(url, 'it is not a valid absolute URL');
  }
  return assertFetchableScheme(parsed);
}

function assertFetchableScheme(url: URL): URL {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw schemeNotAllowed(url);
  return url;
}

/**
 * Hands the body to the caller behind the byte cap, with the deadline still armed until the body
 * has been read (a server trickling bytes must not outlive the budget).
 */
function streamResponse(response: IncomingMessage, hop: HopRequest, limits: Limits, deadline: Deadline): OutboundStreamResponse {
  const announced = Number(response.headers['content-length']);
  // A HEAD answer announces the size of the GET it stands for; there is no body to refuse.
  if (hop.method !== 'HEAD' && Number.isFinite(announced) && announced > limits.maxBytes) {
    response.destroy();
    throw responseTooLarge(hop.url, limits.maxBytes, announced);
  }
  const body = guardedBody(response, {
    maxBytes: limits.maxBytes,
    tooLarge: () => responseTooLarge(hop.url, limits.maxBytes),
    describeError: (error) => connectionFailed(hop.url, error),
    deadline,
  });
  return { status: response.statusCode ?? 0, headers: response.headers, url: redactUrl(hop.url), body };
}

function lowerCaseNames(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

function assertValidLimits(limits: Limits): void {
  const problems = [
    Number.isFinite(limits.maxBytes) && limits.maxBytes >= 0 ? undefined : 'maxBytes must be a number >= 0',
    Number.isFinite(limits.timeoutMs) && limits.timeoutMs > 0 ? undefined : 'timeoutMs must be a number > 0',
    limits.idleTimeoutMs === undefined || (Number.isFinite(limits.idleTimeoutMs) && limits.idleTimeoutMs > 0)
      ? undefined
      : 'idleTimeoutMs must be a number > 0',
    Number.isInteger(limits.maxRedirects) && limits.maxRedirects >= 0 ? undefined : 'maxRedirects must be an integer >= 0',
  ].filter((problem): problem is string => problem !== undefined);
  if (problems.length > 0) throw new RangeError(`Invalid outbound fetch limits: ${problems.join('; ')}`);
}
