import { AppError, problem } from '@platform/errors';
import { isOutboundFetchError, type OutboundFetchErrorCode } from '@platform/outbound-fetch';

/**
 * Every way reading a feed fails, as the problem the customer sees: what they can fix in the feed's
 * settings or at its host (refused address, credentials, 404, size, not a feed) apart from what failed
 * on the way (unreachable host, error status). Messages name the host and path, never credentials.
 */
export const feedRefused = (detail: string) => problem('FEED_REFUSED', detail);
export const feedAuthFailed = (where: string) => problem('FEED_AUTH_FAILED', `${where} refused the credentials of the feed.`);
export const feedNotFound = (where: string) => problem('FEED_NOT_FOUND', `There is no feed at ${where}.`);
export const feedTooLarge = (where: string, maxBytes: number) =>
  problem('FEED_TOO_LARGE', `The feed at ${where} is larger than the cap of ${maxBytes} bytes.`, { extensions: { maxBytes } });
export const feedNotAFeed = (detail: string) => problem('FEED_NOT_A_FEED', detail);
/** A compressed feed (gzip, zip) is held to the same cap once decompressed: a small file must not inflate without bound. */
export const feedDecompressedTooLarge = (where: string, maxBytes: number) =>
  problem('FEED_TOO_LARGE', `The feed at ${where} decompresses to more than the cap of ${maxBytes} bytes.`, { extensions: { maxBytes } });
/** `cause` as the outbound guard's failures carry it (e.g. OUTBOUND_CONNECTION_FAILED), for a transport that met the failure itself. */
export const feedUnreachable = (detail: string, cause?: OutboundFetchErrorCode) =>
  problem('FEED_UNREACHABLE', detail, cause ? { extensions: { cause } } : undefined);
export const feedBadStatus = (where: string, status: number) =>
  problem('FEED_BAD_STATUS', `${where} answered ${status}.`, { extensions: { upstreamStatus: status } });

const REFUSED_FETCH: readonly OutboundFetchErrorCode[] = ['OUTBOUND_INVALID_URL', 'OUTBOUND_SCHEME_NOT_ALLOWED', 'OUTBOUND_ADDRESS_NOT_ALLOWED'];

/** The outbound guard's failures as feed problems (its messages are already redacted). */
export function feedProblemOf(error: unknown, maxBytes: number): unknown {
  if (error instanceof AppError || !isOutboundFetchError(error)) return error;
  if (error.code === 'OUTBOUND_RESPONSE_TOO_LARGE') return problem('FEED_TOO_LARGE', error.message, { extensions: { maxBytes } });
  if (REFUSED_FETCH.includes(error.code)) return problem('FEED_REFUSED', error.message, { extensions: { cause: error.code } });
  return problem('FEED_UNREACHABLE', error.message, { extensions: { cause: error.code } });
}

/**
 * A read failure another try a few minutes on may not meet: the host unreachable, resetting or gone
 * quiet (not the whole read's time cap spent), or answering 5xx or 429. What the owner must fix
 * (credentials, the path, the address, the size, the format) is not.
 */
export function isTransientFeedFailure(error: unknown): boolean {
  if (!(error instanceof AppError)) return false;
  if (error.code === 'FEED_UNREACHABLE') return error.extensions?.['cause'] !== 'OUTBOUND_TIMEOUT';
  if (error.code === 'FEED_BAD_STATUS') {
    const status = Number(error.extensions?.['upstreamStatus']);
    return status >= 500 || status === 429;
  }
  return false;
}
