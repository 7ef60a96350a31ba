import http, { IncomingMessage } from 'node:http';
import { effectivePort } from './allowlist';
import { onAbort } from './deadline';
import { connectionFailed, isOutboundFetchError } from './errors';
import { GuardedConnectionRequest, openGuardedConnection } from './guarded-connection';

export type OutboundMethod = 'GET' | 'POST' | 'HEAD';

/** One HTTP request of a redirect chain. Header names are lower-case so redirects can drop some. */
export interface HopRequest {
  url: URL;
  method: OutboundMethod;
  headers: Record<string, string>;
  body?: Buffer;
}

/**
 * Sends one request over a guarded connection and resolves with the response head; the body is
 * left unread for the caller. Redirects are never followed here: each hop is a separate call so
 * the full policy applies to every one.
 */
export async function sendHop(hop: HopRequest, connection: Omit<GuardedConnectionRequest, 'url'>): Promise<IncomingMessage> {
  const socket = await openGuardedConnection({ ...connection, url: hop.url });
  return new Promise((resolve, reject) => {
    const request = http.request({
      // The socket is already connected and checked; http only speaks HTTP over it.
      createConnection: () => socket,
      host: hop.url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: effectivePort(hop.url),
      // Lets the Host header omit a default port, as browsers do (signed S3 URLs depend on it).
      defaultPort: hop.url.protocol === 'https:' ? 443 : 80,
      method: hop.method,
      path: `${hop.url.pathname}${hop.url.search}`,
      headers: withBodyLength(hop),
      auth: basicAuthFromUrl(hop.url),
    });
    const stopListening = onAbort(connection.signal, (reason) => {
      request.destroy(reason);
      reject(reason);
    });
    request.on('error', (error) => {
      stopListening();
      reject(isOutboundFetchError(error) ? error : connectionFailed(hop.url, error));
    });
    request.once('response', (response) => {
      stopListening();
      resolve(response);
    });
    request.end(hop.body);
  });
}

function withBodyLength(hop: HopRequest): Record<string, string> {
  if (!hop.body || 'content-length' in hop.headers) return hop.headers;
  return { ...hop.headers, 'content-length': String(hop.body.length) };
}

/** Userinfo in the URL becomes basic auth, the way curl and browsers treat it. */
function basicAuthFromUrl(url: URL): string | undefined {
  if (!url.username && !url.password) return undefined;
  return `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
}
