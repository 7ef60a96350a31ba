import type { IncomingMessage } from 'node:http';
import { invalidUrl } from './errors';
import type { HopRequest } from './hop-request';

const followedStatuses = new Set([301, 302, 303, 307, 308]);

// Sent only to the origin the caller addressed; a redirect elsewhere must not carry them along.
const originBoundHeaders = ['authorization', 'cookie', 'proxy-authorization', 'host'];
const bodyHeaders = ['content-type', 'content-length', 'content-encoding', 'content-language', 'transfer-encoding'];

/**
 * Where a response redirects to, or undefined when it is not a redirect we follow (other 3xx, or
 * no Location). A relative Location is resolved against the URL that answered.
 */
export function redirectTarget(response: IncomingMessage, currentUrl: URL): URL | undefined {
  const location = response.headers.location;
  if (!followedStatuses.has(response.statusCode ?? 0) || !location) return undefined;
  try {
    return new URL(location, currentUrl);
  } catch {
    throw invalidUrl(currentUrl.href, `it redirects to an invalid Location`);
  }
}

/**
 * The request for the next hop, following the Fetch standard: 303 turns anything but HEAD into
 * a body-less GET, and so do 301/302 after a POST (what every browser does); 307/308 repeat the
 * request as it was.
 */
export function requestAfterRedirect(previous: HopRequest, status: number, nextUrl: URL): HopRequest {
  const becomesGet = (status === 303 && previous.method !== 'HEAD') || ((status === 301 || status === 302) && previous.method === 'POST');
  const dropped = new Set<string>();
  if (becomesGet) bodyHeaders.forEach((name) => dropped.add(name));
  if (nextUrl.origin !== previous.url.origin) originBoundHeaders.forEach((name) => dropped.add(name));
  const headers = Object.fromEntries(Object.entries(previous.headers).filter(([name]) => !dropped.has(name)));
  return {
    url: nextUrl,
    method: becomesGet ? 'GET' : previous.method,
    headers,
    body: becomesGet ? undefined : previous.body,
  };
}
