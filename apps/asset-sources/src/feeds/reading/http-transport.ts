import type { OutboundFetch } from '@platform/outbound-fetch';
import type { FeedLocation } from '../feed-reading';
import { feedAuthFailed, feedBadStatus, feedNotFound, feedProblemOf } from './feed-errors';
import { describeFeedUrl, type FeedBytes, type FeedReadLimits, type FeedTransport } from './feed-transport';

/** The request a feed's http settings describe: additionalParams as the query (GET) or a form body (POST), basic auth from username/password. */
export function feedHttpRequest(location: FeedLocation): { url: string; method: 'GET' | 'POST'; headers: Record<string, string>; body?: string } {
  const { additionalParams = '', httpMethod = 'GET', username, password } = location.urlConfig;
  const params = additionalParams.replace(/^[?&]+/, '');
  const headers: Record<string, string> = {};
  if (username || password) headers.authorization = `Basic ${Buffer.from(`${username ?? ''}:${password ?? ''}`).toString('base64')}`;
  if (httpMethod === 'POST') {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    return { url: location.url, method: 'POST', headers, body: params };
  }
  if (params === '') return { url: location.url, method: 'GET', headers };
  return { url: `${location.url}${location.url.includes('?') ? '&' : '?'}${params}`, method: 'GET', headers };
}

/** http and https feeds, through the outbound guard (addresses checked on every hop, bytes and time capped). */
export function httpTransport(outbound: OutboundFetch): FeedTransport {
  return {
    async open(location: FeedLocation, limits: FeedReadLimits): Promise<FeedBytes> {
      const { url, ...init } = feedHttpRequest(location);
      const where = describeFeedUrl(location.url);
      let response;
      try {
        response = await outbound.fetchStream(url, { ...init, maxBytes: limits.maxBytes, timeoutMs: limits.timeoutMs, idleTimeoutMs: limits.idleTimeoutMs });
      } catch (error) {
        throw feedProblemOf(error, limits.maxBytes);
      }
      if (response.status < 200 || response.status > 299) {
        response.body.on('error', () => undefined);
        response.body.destroy();
        if (response.status === 401 || response.status === 403) throw feedAuthFailed(where);
        if (response.status === 404 || response.status === 410) throw feedNotFound(where);
        throw feedBadStatus(where, response.status);
      }
      const header = (name: string) => {
        const value = response.headers[name];
        return typeof value === 'string' ? value : undefined;
      };
      return { body: response.body, version: { etag: header('etag'), lastModified: header('last-modified') } };
    },
  };
}
