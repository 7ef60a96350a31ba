import type { LookupAddress } from 'node:dns';
import net, { Socket } from 'node:net';
import tls from 'node:tls';
import { isLocalHostname, judgeAddress } from './address-policy';
import { effectivePort } from './allowlist';
import { onAbort } from './deadline';
import { addressNotAllowed, connectionFailed, dnsFailed } from './errors';
import { HostResolver, lookupFromCheckedAddresses } from './host-resolution';

export interface GuardedConnectionRequest {
  url: URL;
  /** False only for allowlisted endpoints, which are loopback or private by design. */
  enforceAddressPolicy: boolean;
  resolve: HostResolver;
  signal: AbortSignal;
  /** Extra CA certificates trusted on top of the system roots (on-premise sources, tests). */
  extraCaCertificates?: readonly string[];
}

/**
 * Opens the TCP (and for https the TLS) connection of one request hop, checking the target three
 * times: the host name, every address it resolves to, and the address the socket actually
 * connected to. The socket is handed to the HTTP client only after all three pass, so not one
 * byte of the request (nor a TLS ClientHello) reaches a refused address.
 */
export async function openGuardedConnection(request: GuardedConnectionRequest): Promise<Socket> {
  const hostname = bareHostname(request.url);
  const addresses = await resolveCheckedAddresses(hostname, request);
  const socket = await connectTcp(hostname, addresses, request);
  try {
    if (request.enforceAddressPolicy) assertConnectedAddressAllowed(socket, request.url);
    return request.url.protocol === 'https:' ? await startTls(socket, hostname, request) : socket;
  } catch (error) {
    socket.destroy();
    throw error;
  }
}

/**
 * Refuses a socket whose peer address is not allowed. Defence in depth: the address came from a
 * checked lookup, but this is the one check that sees where packets really go.
 */
export function assertConnectedAddressAllowed(socket: Socket, url: URL): void {
  const connected = socket.remoteAddress;
  if (!connected) throw addressNotAllowed(url, 'the connected address is unknown');
  const verdict = judgeAddress(connected);
  if (!verdict.allowed) throw addressNotAllowed(url, `the connection reached an address that is not allowed: ${verdict.reason}`);
}

/** URL.hostname keeps the brackets of an IPv6 literal; sockets and DNS want the bare address. */
function bareHostname(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

export async function resolveCheckedAddresses(hostname: string, request: GuardedConnectionRequest): Promise<LookupAddress[]> {
  const { url, enforceAddressPolicy } = request;
  const literalFamily = net.isIP(hostname);
  if (literalFamily === 0 && enforceAddressPolicy && isLocalHostname(hostname)) {
    throw addressNotAllowed(url, `the host name "${hostname}" always means this machine`);
  }
  const addresses = literalFamily ? [{ address: hostname, family: literalFamily }] : await resolveHostname(hostname, request);
  if (enforceAddressPolicy) {
    // Every address must pass, not just the first: the socket may try any of them.
    for (const { address } of addresses) {
      const verdict = judgeAddress(address);
      if (!verdict.allowed) {
        throw addressNotAllowed(url, literalFamily ? verdict.reason : `the host "${hostname}" resolves to an address that is not allowed: ${verdict.reason}`);
      }
    }
  }
  return addresses;
}

async function resolveHostname(hostname: string, request: GuardedConnectionRequest): Promise<LookupAddress[]> {
  let addresses: LookupAddress[];
  try {
    addresses = await untilAborted(request.resolve(hostname), request.signal);
  } catch (error) {
    if (request.signal.aborted) throw error;
    throw dnsFailed(request.url, hostname, error);
  }
  if (addresses.length === 0) throw dnsFailed(request.url, hostname, new Error('no addresses'));
  return addresses;
}

function connectTcp(hostname: string, addresses: LookupAddress[], request: GuardedConnectionRequest): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: effectivePort(request.url), lookup: lookupFromCheckedAddresses(addresses) });
    settleOnEvent(socket, 'connect', request, resolve, reject);
  });
}

function startTls(socket: Socket, hostname: string, request: GuardedConnectionRequest): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const secureSocket = tls.connect({
      socket,
      // Certificates are verified against `host`; SNI must not carry an IP literal (RFC 6066).
      host: hostname,
      servername: net.isIP(hostname) ? undefined : hostname,
      ca: request.extraCaCertificates?.length ? [...tls.rootCertificates, ...request.extraCaCertificates] : undefined,
      ALPNProtocols: ['http/1.1'],
    });
    settleOnEvent(secureSocket, 'secureConnect', request, resolve, reject);
  });
}

/** Resolves when `socket` emits `event`; rejects on its error or when the deadline passes. */
function settleOnEvent<T extends Socket>(
  socket: T,
  event: 'connect' | 'secureConnect',
  request: GuardedConnectionRequest,
  resolve: (socket: T) => void,
  reject: (error: unknown) => void,
): void {
  const stopListening = onAbort(request.signal, (reason) => {
    socket.destroy();
    reject(reason);
  });
  const onError = (error: Error) => {
    stopListening();
    reject(connectionFailed(request.url, error));
  };
  socket.once('error', onError);
  socket.once(event, () => {
    stopListening();
    socket.off('error', onError);
    resolve(socket);
  });
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const stopListening = onAbort(signal, reject);
    promise.then(
      (value) => {
        stopListening();
        resolve(value);
      },
      (error: unknown) => {
        stopListening();
        reject(error);
      },
    );
  });
}
