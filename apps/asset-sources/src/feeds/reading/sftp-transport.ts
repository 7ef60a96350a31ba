import { createHash } from 'node:crypto';
import type { Socket } from 'node:net';
import SftpClient from 'ssh2-sftp-client';
import { isOutboundFetchError, startOutboundBudget, type GuardedConnector } from '@platform/outbound-fetch';
import type { FeedLocation } from '../feed-reading';
import { feedAuthFailed, feedNotFound, feedProblemOf, feedRefused, feedTooLarge, feedUnreachable } from './feed-errors';
import { describeFeedUrl, type FeedBytes, type FeedReadLimits, type FeedTransport } from './feed-transport';

/**
 * sftp feeds: the SSH connection runs over a socket the guard opened and checked, authenticated by
 * password or private key (urlConfig), on urlConfig.portNumber or the URL's port (default 22);
 * bytes and time capped. The server's host key must have urlConfig.hostKeyFingerprint when it is
 * set (checked before any credential is sent); its fingerprint is answered either way, so a source
 * can pin the first one it meets.
 */
export function sftpTransport(connector: GuardedConnector): FeedTransport {
  return {
    async open(location: FeedLocation, limits: FeedReadLimits, signal?: AbortSignal): Promise<FeedBytes> {
      const url = parseSftpUrl(location);
      const where = describeFeedUrl(location.url);
      const budget = startOutboundBudget(url, limits);
      const client = new SftpClient();
      let presented: string | undefined;
      let sock: Socket | undefined;
      // Ending the client alone does not stop a handshake under way: the socket goes too.
      const endOnTimeout = () => {
        sock?.destroy();
        void client.end().catch(() => undefined);
      };
      budget.signal.addEventListener('abort', endOnTimeout, { once: true });
      const abort = () => budget.dispose();
      signal?.addEventListener('abort', abort, { once: true });
      try {
        sock = await connector.connect(url, budget.signal);
        const { username, password, privateKey, hostKeyFingerprint: pinned } = location.urlConfig;
        await client.connect({
          sock,
          hostVerifier: (key: Buffer) => {
            presented = sshFingerprint(key);
            return pinned === undefined || presented === pinned;
          },
          username: username ?? '',
          ...(password ? { password } : {}),
          ...(privateKey ? { privateKey } : {}),
          readyTimeout: limits.timeoutMs,
          // A password server that also offers keyboard-interactive gets the same password.
          tryKeyboard: Boolean(password),
        });
        const path = decodeURIComponent(url.pathname);
        const stats = await client.stat(path).catch((error: unknown) => {
          throw isMissing(error) ? feedNotFound(where) : error;
        });
        if (!stats.isFile) throw feedNotFound(where);
        if (stats.size > limits.maxBytes) throw feedTooLarge(where, limits.maxBytes);
        const raw = client.createReadStream(path);
        const body = budget.limitBody(raw, (error) => sftpProblem(error, where, limits.maxBytes) as Error);
        body.once('close', () => void client.end().catch(() => undefined));
        return {
          body,
          version: { lastModified: stats.modifyTime ? new Date(stats.modifyTime).toUTCString() : undefined },
          hostKeyFingerprint: presented,
        };
      } catch (error) {
        await client.end().catch(() => undefined);
        budget.dispose();
        const { hostKeyFingerprint: pinned } = location.urlConfig;
        if (pinned !== undefined && presented !== undefined && presented !== pinned)
          throw feedRefused(
            `The SFTP server at ${where} presented host key ${presented}, not the pinned ${pinned}: the connection may be intercepted, so no credential was sent. ` +
              'If the server was given a new key, update the source with urlConfig.hostKeyFingerprint.',
          );
        throw budget.signal.aborted && !isOutboundFetchError(error)
          ? feedProblemOf(budget.signal.reason, limits.maxBytes)
          : sftpProblem(error, where, limits.maxBytes);
      } finally {
        budget.signal.removeEventListener('abort', endOnTimeout);
        signal?.removeEventListener('abort', abort);
      }
    },
  };
}

/** An SSH host key's fingerprint as OpenSSH prints it: `SHA256:` and the unpadded base64 of the key's digest. */
export const sshFingerprint = (key: Buffer): string => `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;

function parseSftpUrl(location: FeedLocation): URL {
  let url: URL;
  try {
    url = new URL(location.url);
  } catch {
    throw feedRefused('The feed url is not a valid sftp:// URL.');
  }
  if (url.protocol !== 'sftp:') throw feedRefused('An sftp feed needs an sftp:// url.');
  if (url.pathname === '/' || url.pathname === '') throw feedRefused('The sftp url names no file.');
  const port = location.urlConfig.portNumber ?? (url.port ? Number(url.port) : 22);
  url.port = String(port);
  return url;
}

const isMissing = (error: unknown) => {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === 2 || code === 'ENOENT' || (typeof message === 'string' && /no such file/i.test(message));
};

function sftpProblem(error: unknown, where: string, maxBytes: number): unknown {
  if (isOutboundFetchError(error)) return feedProblemOf(error, maxBytes);
  if (error instanceof Error && !('status' in error)) {
    const level = (error as { level?: unknown }).level;
    if (level === 'client-authentication' || /authentication/i.test(error.message)) return feedAuthFailed(where);
    if (isMissing(error)) return feedNotFound(where);
    if (/private ?key|cannot parse/i.test(error.message)) return feedRefused(`The privateKey of the feed at ${where} cannot be read.`);
    // The connection failed past the guard (the SSH handshake, the session): the cause http and the guard give that.
    return feedUnreachable(`The SFTP connection to ${where} failed: ${error.message.replace(/^[a-zA-Z]+: /, '')}`, 'OUTBOUND_CONNECTION_FAILED');
  }
  return error;
}
