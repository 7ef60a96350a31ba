export {
  createOutboundFetch,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_REDIRECTS,
  DEFAULT_TIMEOUT_MS,
  type OutboundFetch,
  type OutboundFetchOptions,
  type OutboundRequestInit,
  type OutboundResponse,
  type OutboundStreamResponse,
} from './outbound-fetch';
export type { OutboundMethod } from './hop-request';
export type { HostResolver } from './host-resolution';
export { OutboundFetchError, describeCause, isOutboundFetchError, type OutboundFetchErrorCode } from './errors';
export { parseAllowlist, normalizeAllowlistEntry } from './allowlist';
export { judgeAddress, isAddressAllowed, isLocalHostname, type AddressVerdict } from './address-policy';
export { redactUrl } from './redact-url';
export { createGuardedConnector, startOutboundBudget, type GuardedConnector, type OutboundBudget } from './guarded-socket';
