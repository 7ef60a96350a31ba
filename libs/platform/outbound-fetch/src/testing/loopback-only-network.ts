import type { LookupAddress } from 'node:dns';
import net, { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

type Connect = (this: net.Socket, ...args: unknown[]) => net.Socket;
type ConnectOptions = { host?: string; lookup?: LookupFunction };

/**
 * Test safety net: makes every outgoing TCP connection to a non-loopback address fail before a
 * packet leaves the machine. Refusal tests name private and metadata addresses; if the guard
 * under test were broken they must fail, not reach 10.0.0.1 or 169.254.169.254 for real.
 * Returns the function that removes the net.
 */
export function allowOnlyLoopbackConnections(): () => void {
  const prototype = net.Socket.prototype as unknown as { connect: Connect };
  const originalConnect = prototype.connect;
  prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    // net.connect() passes its normalized arguments as one array.
    const options = (Array.isArray(args[0]) ? args[0][0] : args[0]) as ConnectOptions | undefined;
    if (options && typeof options === 'object' && typeof options.host === 'string') {
      const { host } = options;
      if (net.isIP(host) && !isLoopback(host)) {
        throw new Error(`test safety net: refused a connection to non-loopback ${host}`);
      }
      const lookup = options.lookup;
      if (!net.isIP(host) && !lookup) {
        throw new Error(`test safety net: refused a connection resolving ${host} through system DNS`);
      }
      if (lookup) options.lookup = loopbackOnlyLookup(lookup);
    }
    return originalConnect.apply(this, args);
  };
  return () => {
    prototype.connect = originalConnect;
  };
}

function loopbackOnlyLookup(lookup: LookupFunction): LookupFunction {
  return (hostname, lookupOptions, callback) =>
    lookup(hostname, lookupOptions, (error, address, family) => {
      const addresses: LookupAddress[] = typeof address === 'string' ? [{ address, family: family ?? 4 }] : address;
      const outside = addresses.find((candidate) => candidate.address && !isLoopback(candidate.address));
      if (!error && outside) {
        callback(new Error(`test safety net: refused a connection to non-loopback ${outside.address}`), '');
        return;
      }
      callback(error, address, family);
    });
}

function isLoopback(address: string): boolean {
  return ipaddr.process(address).range() === 'loopback';
}
