import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { Allowlist } from './allowlist';
import { fetchDeadline } from './deadline';
import { responseTooLarge, connectionFailed } from './errors';
import { guardedBody } from './guarded-body';
import { openGuardedConnection, resolveCheckedAddresses } from './guarded-connection';
import { systemResolver, type HostResolver } from './host-resolution';

export interface OutboundBudget {
  /** Aborts with OUTBOUND_TIMEOUT when the time is up (OUTBOUND_STALLED when the host goes quiet): connects and reads listen to it. */
  signal: AbortSignal;
  /**
   * The body behind the byte cap (OUTBOUND_RESPONSE_TOO_LARGE) and the deadline; the clock stops when
   * it ends. A failure of the source becomes `describeError(error)` (default: OUTBOUND_CONNECTION_FAILED).
   */
  limitBody(source: Readable, describeError?: (error: Error) => Error): Readable;
  /** Stops the clock (a failure before the body was handed on). */
  dispose(): void;
}

/**
 * The caps of an outbound fetch for protocols other than HTTP (FTP, SFTP): one deadline for the
 * connection and the whole transfer, a byte cap counted on what arrives and, with idleTimeoutMs,
 * the longest the host may send nothing (from the start until the body's first byte, then between chunks).
 */
export function startOutboundBudget(url: URL, limits: { maxBytes: number; timeoutMs: number; idleTimeoutMs?: number }): OutboundBudget {
  const deadline = fetchDeadline(() => url, limits);
  return {
    signal: deadline.signal,
    dispose: () => deadline.dispose(),
    limitBody: (source, describeError = (error) => connectionFailed(url, error)) =>
      guardedBody(source, { maxBytes: limits.maxBytes, tooLarge: () => responseTooLarge(url, limits.maxBytes), describeError, deadline }),
  };
}

export interface GuardedConnector {
  /**
   * A TCP connection to the URL's host and explicit port, held to the outbound rules (the host
   * name, every address it resolves to and the address connected), unless host:port is on the
   * allowlist. For protocols whose client takes a connected socket (SSH) or a checked address (FTP).
   */
  connect(url: URL, signal: AbortSignal): Promise<Socket>;
  /**
   * The address to connect to, checked like connect's: for clients that open their own sockets
   * (FTP). Connecting to the literal address it answers leaves no second lookup to rebind.
   */
  resolve(url: URL, signal: AbortSignal): Promise<string>;
  /** Whether host:port is allowlisted (loopback and private addresses admitted). */
  permits(url: URL): boolean;
}

export function createGuardedConnector(options: { allowlist?: readonly string[]; lookup?: HostResolver } = {}): GuardedConnector {
  const allowlist = new Allowlist(options.allowlist ?? []);
  const resolve = options.lookup ?? systemResolver;
  return {
    permits: (url) => allowlist.permits(url),
    connect: (url, signal) => openGuardedConnection({ url, enforceAddressPolicy: !allowlist.permits(url), resolve, signal }),
    async resolve(url, signal) {
      const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
      const [first] = await resolveCheckedAddresses(hostname, { url, enforceAddressPolicy: !allowlist.permits(url), resolve, signal });
      return first.address;
    },
  };
}
