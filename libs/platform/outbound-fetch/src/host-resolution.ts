import dns, { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';

/**
 * Resolves a hostname to every address it has. Injectable so tests can make a name resolve to a
 * private address without touching real DNS.
 */
export type HostResolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: HostResolver = (hostname) => dns.promises.lookup(hostname, { all: true });

/**
 * A `lookup` for net.connect that answers only with addresses resolved and checked beforehand.
 * Resolving once and connecting to exactly what was checked closes the DNS-rebinding gap
 * between "check the name" and "connect to the name".
 */
export function lookupFromCheckedAddresses(addresses: readonly LookupAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const candidates = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : [...addresses];
    if (candidates.length === 0) {
      const error: NodeJS.ErrnoException = new Error(`no IPv${family} address among the checked addresses`);
      error.code = 'ENOTFOUND';
      callback(error, '');
      return;
    }
    if (options.all) {
      callback(null, candidates);
      return;
    }
    callback(null, candidates[0].address, candidates[0].family);
  };
}
