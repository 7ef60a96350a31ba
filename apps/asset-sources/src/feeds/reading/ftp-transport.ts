import { PassThrough } from 'node:stream';
import { isIPv6 } from 'node:net';
import { Client, FTPError, enterPassiveModeIPv6, type FTPContext, type FTPResponse } from 'basic-ftp';
// Not re-exported by the package's index; the parse of a 227 reply and the data connection are what our strategy reuses.
import { connectForPassiveTransfer, parsePasvResponse } from 'basic-ftp/dist/transfer';
import { describeCause, isOutboundFetchError, startOutboundBudget, type GuardedConnector } from '@platform/outbound-fetch';
import type { FeedLocation } from '../feed-reading';
import { feedAuthFailed, feedNotFound, feedProblemOf, feedRefused, feedTooLarge, feedUnreachable } from './feed-errors';
import { describeFeedUrl, type FeedBytes, type FeedReadLimits, type FeedTransport } from './feed-transport';

const unmapped = (address: string | undefined) => (address ?? '').replace(/^::ffff:/, '');

/**
 * Passive mode that only ever connects to the host of the control connection: a 227 reply naming
 * another address (an FTP bounce, or a server steering us at an internal host) is refused, not
 * followed and not rewritten, and the data connection goes to the address the guard checked.
 */
export async function passiveToControlHostOnly(ftp: FTPContext): Promise<FTPResponse> {
  // EPSV names only a port: the data connection goes to the control host by definition.
  if (isIPv6(unmapped(ftp.socket.remoteAddress))) return enterPassiveModeIPv6(ftp);
  const response = await ftp.request('PASV');
  const target = parsePasvResponse(response.message);
  if (!target) throw new Error(`Can't parse PASV response: ${response.message}`);
  const controlHost = unmapped(ftp.socket.remoteAddress);
  if (unmapped(target.host) !== controlHost) throw new ForeignPassiveHostError(target.host);
  await connectForPassiveTransfer(controlHost, target.port, ftp);
  return response;
}

export class ForeignPassiveHostError extends Error {
  constructor(readonly host: string) {
    super(`the server named another host (${host}) for the data connection`);
    this.name = 'ForeignPassiveHostError';
  }
}

/** ftp feeds: basic-ftp, its control address checked by the guard, passive mode to that address only, bytes and time capped. */
export function ftpTransport(connector: GuardedConnector): FeedTransport {
  return {
    async open(location: FeedLocation, limits: FeedReadLimits, signal?: AbortSignal): Promise<FeedBytes> {
      const url = parseFtpUrl(location.url);
      const where = describeFeedUrl(location.url);
      const budget = startOutboundBudget(url, limits);
      const stop = () => budget.dispose();
      signal?.addEventListener('abort', stop, { once: true });
      const client = new Client(limits.timeoutMs);
      client.prepareTransfer = passiveToControlHostOnly;
      const closeOnTimeout = () => client.close();
      budget.signal.addEventListener('abort', closeOnTimeout, { once: true });
      try {
        const address = await connector.resolve(url, budget.signal);
        await client.access({
          host: address,
          port: Number(url.port || 21),
          user: location.urlConfig.username || 'anonymous',
          password: location.urlConfig.password || 'anonymous@',
          secure: false,
        });
        const path = decodeURIComponent(url.pathname);
        const size = await client.size(path).catch((error: unknown) => {
          if (error instanceof FTPError && error.code === 550) throw feedNotFound(where);
          return undefined;
        });
        if (size !== undefined && size > limits.maxBytes) throw feedTooLarge(where, limits.maxBytes);
        const lastModified = await client.lastMod(path).catch(() => undefined);
        const raw = new PassThrough();
        // Failures of the transfer are feed problems already (mapped below).
        const body = budget.limitBody(raw, (error) => error);
        body.once('close', () => client.close());
        client.downloadTo(raw, path).then(
          () => raw.end(),
          (error: unknown) => raw.destroy(ftpProblem(error, where, limits.maxBytes) as Error),
        );
        return { body, version: { lastModified: lastModified?.toUTCString() } };
      } catch (error) {
        client.close();
        budget.dispose();
        throw budget.signal.aborted && !isOutboundFetchError(error)
          ? feedProblemOf(budget.signal.reason, limits.maxBytes)
          : ftpProblem(error, where, limits.maxBytes);
      } finally {
        budget.signal.removeEventListener('abort', closeOnTimeout);
        signal?.removeEventListener('abort', stop);
      }
    },
  };
}

function parseFtpUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw feedRefused('The feed url is not a valid ftp:// URL.');
  }
  if (url.protocol !== 'ftp:') throw feedRefused('An ftp feed needs an ftp:// url.');
  if (url.pathname === '/' || url.pathname === '') throw feedRefused('The ftp url names no file.');
  // The guard and its allowlist work on an explicit host:port.
  if (!url.port) url.port = '21';
  return url;
}

function ftpProblem(error: unknown, where: string, maxBytes: number): unknown {
  if (error instanceof ForeignPassiveHostError) return feedRefused(`Refused the data connection of ${where}: ${error.message}.`);
  if (error instanceof FTPError) {
    if (error.code === 530) return feedAuthFailed(where);
    if (error.code === 550) return feedNotFound(where);
    // A reply code is the server's answer; a socket's error code (ECONNREFUSED) means no connection was made.
    if (typeof error.code === 'number') return feedUnreachable(`${where} answered FTP ${error.code}.`);
  }
  if (isOutboundFetchError(error)) return feedProblemOf(error, maxBytes);
  if (error instanceof Error && !('status' in error))
    return feedUnreachable(`The FTP connection to ${where} failed${describeCause(error)}.`, 'OUTBOUND_CONNECTION_FAILED');
  return error;
}
