import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { Client } from 'minio';
import { isLocalHostname, judgeAddress, normalizeAllowlistEntry } from '@platform/outbound-fetch';

/** A customer's S3-compatible bucket, as a cloud service names it. */
export interface CustomerBucketTarget {
  /** Base URL; empty means AWS S3 in the region. */
  endpoint: string;
  region: string;
  bucket: string;
  accessKey: string;
  secretKey: string;
}

export class CustomerEndpointRefused extends Error {
  constructor(
    readonly endpoint: string,
    reason: string,
  ) {
    super(`The endpoint ${endpoint} is not allowed: ${reason}`);
    this.name = 'CustomerEndpointRefused';
  }
}

export const awsEndpoint = (region: string) => `https://s3.${region || 'us-east-1'}.amazonaws.com`;

/**
 * A minio client for a customer's bucket, held to the outbound-fetch rules: a loopback, private,
 * link-local or metadata address is refused (the host name, every address it resolves to, and the
 * address connected, through the agent's lookup), unless `host:port` is on OUTBOUND_ALLOWLIST.
 * minio speaks its own HTTP, so the guard sits in its transport agent rather than in a fetch.
 */
export function openCustomerBucket(target: CustomerBucketTarget, allowlist: readonly string[]): Client {
  const endpoint = target.endpoint || awsEndpoint(target.region);
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new CustomerEndpointRefused(endpoint, 'it is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CustomerEndpointRefused(endpoint, 'only http and https are allowed');
  if (url.pathname !== '/' || url.search || url.username || url.password) throw new CustomerEndpointRefused(endpoint, 'it must be a bare origin');
  const useSSL = url.protocol === 'https:';
  const port = url.port ? Number(url.port) : useSSL ? 443 : 80;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const allowlisted = allowlist.includes(normalizeAllowlistEntry(`${url.hostname}:${port}`));
  if (!allowlisted) {
    if (isIP(host)) {
      const verdict = judgeAddress(host);
      if (!verdict.allowed) throw new CustomerEndpointRefused(endpoint, verdict.reason);
    } else if (isLocalHostname(host)) {
      throw new CustomerEndpointRefused(endpoint, 'the host name always means this machine');
    }
  }
  const agentOptions = { keepAlive: true, ...(allowlisted ? {} : { lookup: guardedLookup }) };
  return new Client({
    endPoint: host,
    port,
    useSSL,
    accessKey: target.accessKey,
    secretKey: target.secretKey,
    region: target.region || 'us-east-1',
    pathStyle: !host.endsWith('amazonaws.com'),
    transportAgent: useSSL ? new https.Agent(agentOptions) : new http.Agent(agentOptions),
  });
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A dns.lookup that answers only addresses the outbound rules allow. */
function guardedLookup(hostname: string, options: { all?: boolean }, callback: LookupCallback): void {
  dnsLookup(hostname, { all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const refused = addresses.find((a) => !judgeAddress(a.address).allowed);
    if (refused || addresses.length === 0) {
      const reason = refused ? (judgeAddress(refused.address) as { reason: string }).reason : 'no address';
      return callback(Object.assign(new Error(`${hostname} resolves to an address that is not allowed: ${reason}`), { code: 'EADDRNOTALLOWED' }), []);
    }
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
}

/** The S3 error code of a minio failure, when it has one. */
export function s3CodeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
