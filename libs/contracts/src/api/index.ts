import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './gateway-api';

// Generated from the gateway's OpenAPI document; regenerate with `npm run api:gen`, never edit gateway-api.ts.
export type { components, operations, paths } from './gateway-api';

export type ApiClient = Client<paths>;

export interface ApiClientOptions {
  /** The gateway's origin, e.g. http://127.0.0.1:8080; paths in calls start with /v2 or /admin/v1. */
  baseUrl: string;
  /** An API key for the /v2 operations. */
  apiKey?: string;
  /** The admin token for the /admin/v1 operations. */
  adminToken?: string;
  /** A fetch to send through instead of the global one (tests use it to check every answer). */
  fetch?: (request: Request) => Promise<Response>;
}

/**
 * A client typed by the gateway's generated `paths`: a renamed path, parameter or field breaks
 * type-checking at the call site instead of failing at run time.
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  // Both credentials travel as the same bearer header, so one client speaks as exactly one of them.
  if (options.apiKey !== undefined && options.adminToken !== undefined) throw new Error('createApiClient: give apiKey or adminToken, not both');
  const token = options.apiKey ?? options.adminToken;
  return createClient<paths>({
    baseUrl: options.baseUrl,
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
