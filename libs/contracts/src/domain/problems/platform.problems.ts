import { defineProblems } from './problem-entry';

/**
 * Problems of the platform itself, answered by any operation whatever its domain: the request's
 * shape, identity and scope, the method, the rate limit, and our own dependencies failing.
 */
export const PLATFORM_PROBLEMS = defineProblems({
  VALIDATION_FAILED: { status: 400, title: 'The request is not valid' },
  MALFORMED_JSON: { status: 400, title: 'The request body is not valid JSON' },
  MALFORMED_BODY: { status: 400, title: 'The request body could not be decoded' },
  AUTHENTICATION_REQUIRED: { status: 401, title: 'An API key is required' },
  API_KEY_INVALID: { status: 401, title: 'The API key is invalid or revoked' },
  ADMIN_TOKEN_INVALID: { status: 401, title: 'The admin token is missing or wrong' },
  // Between the gateway and a service: a caller never sees these unless the deployment is misconfigured.
  PRINCIPAL_MISSING: { status: 401, title: 'The call carries no principal' },
  PRINCIPAL_INVALID: { status: 401, title: 'The principal signature does not verify' },
  PRINCIPAL_EXPIRED: { status: 401, title: 'The principal is too old' },
  PERMISSION_DENIED: { status: 403, title: 'The API key lacks the permission' },
  // Outside the key's scope answers the same as missing, so neither reveals the other.
  ORG_NOT_FOUND: { status: 404, title: 'Organization not found' },
  ACCOUNT_NOT_FOUND: { status: 404, title: 'Account not found' },
  ROUTE_NOT_FOUND: { status: 404, title: 'No operation at this path' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed on this path' },
  // Idempotency-Key (docs/architecture.md, "Idempotent writes"): one key, one request.
  IDEMPOTENCY_REQUEST_IN_PROGRESS: { status: 409, title: 'A request with this idempotency key is still running' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, title: 'The idempotency key was used for another request' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'The request body is too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'The request body media type is not supported' },
  RATE_LIMITED: { status: 429, title: 'Too many requests' },
  // The account already runs as many jobs of the kind as it may (JOB_CONCURRENCY_CAPS); one must end first.
  JOB_LIMIT_REACHED: { status: 429, title: 'Too many jobs running for the account' },
  INTERNAL_ERROR: { status: 500, title: 'Internal error' },
  NOT_IMPLEMENTED: { status: 501, title: 'Not implemented' },
  // A server the gateway passes requests through to (the ad server, under `npm start`) could not be reached.
  BAD_GATEWAY: { status: 502, title: 'Bad Gateway' },
  SERVICE_UNAVAILABLE: { status: 503, title: 'A service is unavailable' },
  NOT_READY: { status: 503, title: 'Not ready' },
  OBJECT_STORE_UNAVAILABLE: { status: 503, title: 'The object storage is unavailable' },
  UPSTREAM_TIMEOUT: { status: 504, title: 'A service did not answer in time' },
});
