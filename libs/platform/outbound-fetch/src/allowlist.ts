/**
 * OUTBOUND_ALLOWLIST: comma-separated "host:port" entries naming endpoints an outbound fetch may
 * reach even though they resolve to a loopback or private address (test servers, on-premise
 * sources). An entry matches one exact host as written in the URL and one port, nothing wider:
 * no wildcards, no CIDR, because each entry is a hole in the guard.
 */

// host is a name, an IPv4 literal or a bracketed IPv6 literal; the port is mandatory.
const entryPattern = /^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]@]+):(\d{1,5})$/;

/**
 * Parses the OUTBOUND_ALLOWLIST value into normalized "host:port" entries. Throws on the first
 * malformed entry so a typo fails at startup instead of silently leaving a source blocked.
 */
export function parseAllowlist(value: string | undefined): string[] {
  if (!value) return [];
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
    .map(normalizeAllowlistEntry);
}

/**
 * Canonical form of one "host:port" entry, spelled the way WHATWG URL spells the host of a
 * request URL ("LOCALHOST:80" -> "localhost:80", "[0:0::1]:80" -> "[::1]:80"), so matching is a
 * plain string comparison.
 */
export function normalizeAllowlistEntry(entry: string): string {
  const match = entryPattern.exec(entry.trim());
  if (!match) {
    throw new Error(`OUTBOUND_ALLOWLIST entry "${entry}" is not of the form host:port`);
  }
  const [, host, portText] = match;
  const port = Number(portText);
  if (port < 1 || port > 65535) {
    throw new Error(`OUTBOUND_ALLOWLIST entry "${entry}" has port ${portText}, outside 1-65535`);
  }
  let hostname: string;
  try {
    hostname = new URL(`http://${host}/`).hostname;
  } catch {
    throw new Error(`OUTBOUND_ALLOWLIST entry "${entry}" has an invalid host`);
  }
  return `${hostname}:${port}`;
}

/** Decides whether one request URL targets an allowlisted endpoint. */
export class Allowlist {
  private readonly entries: ReadonlySet<string>;

  constructor(entries: readonly string[]) {
    this.entries = new Set(entries.map(normalizeAllowlistEntry));
  }

  permits(url: URL): boolean {
    return this.entries.has(`${url.hostname}:${effectivePort(url)}`);
  }
}

/** The port a request to this URL connects to: the explicit one, else the scheme's default. */
export function effectivePort(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}
