import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Whether an outbound fetch may connect to an address, and if not, why (for the error message). */
export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

const allowed: AddressVerdict = { allowed: true };
const refused = (reason: string): AddressVerdict => ({ allowed: false, reason });

// NAT64 well-known prefix (RFC 6052): the last 32 bits are an IPv4 address the translator will
// reach for us, so 64:ff9b::a00:1 is really 10.0.0.1.
const nat64WellKnownPrefix = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

/**
 * Judges one IP address (v4 or v6, as a string). Only globally routable unicast passes: we list
 * what is allowed rather than what is refused, so a range ipaddr.js learns about later
 * (or one we forgot) is refused by default.
 *
 * IPv6 forms that carry an IPv4 address (IPv4-mapped ::ffff:a.b.c.d, IPv4-translated, NAT64,
 * 6to4) are judged by the IPv4 address inside, because that is where the packets end up.
 */
export function judgeAddress(address: string): AddressVerdict {
  // Only the canonical forms sockets and resolvers produce; exotic spellings such as 0177.0.0.1
  // are refused rather than interpreted, so no two parsers can disagree about where they go.
  const family = isIP(address);
  if (family === 4) return judgeIPv4(ipaddr.IPv4.parse(address));
  if (family === 6) return judgeIPv6(ipaddr.IPv6.parse(canonicalIPv6(address)));
  return refused(`"${address}" is not an IP address`);
}

export function isAddressAllowed(address: string): boolean {
  return judgeAddress(address).allowed;
}

function judgeIPv4(address: ipaddr.IPv4): AddressVerdict {
  const range = address.range();
  // 'unicast' is ipaddr.js's name for "in none of the special-purpose ranges".
  return range === 'unicast' ? allowed : refused(`${address.toString()} is in the ${range} range`);
}

function judgeIPv6(address: ipaddr.IPv6): AddressVerdict {
  const range = address.range();
  const embedded = embeddedIPv4(address, range);
  if (embedded === 'refuse') {
    return refused(`${address.toString()} is in the ${range} range`);
  }
  if (embedded) {
    const embeddedRange = embedded.range();
    return embeddedRange === 'unicast' ? allowed : refused(`${address.toString()} embeds IPv4 ${embedded.toString()}, which is in the ${embeddedRange} range`);
  }
  if (range !== 'unicast') return refused(`${address.toString()} is in the ${range} range`);
  if (isIPv4Compatible(address)) {
    // ::a.b.c.d (deprecated by RFC 4291) has no legitimate use and hosts may route it oddly.
    return refused(`${address.toString()} is a deprecated IPv4-compatible address`);
  }
  return allowed;
}

/**
 * The IPv4 address an IPv6 address stands for, undefined when it carries none, or 'refuse'
 * when it carries one at a position we do not decode (local-use NAT64 prefixes may put it
 * anywhere, so we cannot judge the destination and refuse instead).
 */
function embeddedIPv4(address: ipaddr.IPv6, range: string): ipaddr.IPv4 | undefined | 'refuse' {
  const [, p1, p2, , , , p6, p7] = address.parts;
  switch (range) {
    case 'ipv4Mapped':
      return address.toIPv4Address();
    case 'rfc6145': // ::ffff:0:a.b.c.d, IPv4-translated
      return ipv4FromHextets(p6, p7);
    case 'rfc6052':
      return address.match(nat64WellKnownPrefix) ? ipv4FromHextets(p6, p7) : 'refuse';
    case '6to4': // 2002:AABB:CCDD::/48 routes to IPv4 AA.BB.CC.DD
      return ipv4FromHextets(p1, p2);
    default:
      return undefined;
  }
}

/**
 * The WHATWG URL spelling of an IPv6 address (zone dropped). ipaddr.js reads "::1.2.3.4" as
 * ::ffff:1.2.3.4, while the kernel and URL parsers read ::102:304; normalizing first makes us
 * judge the address the socket will actually use.
 */
function canonicalIPv6(address: string): string {
  const withoutZone = address.split('%')[0];
  return new URL(`http://[${withoutZone}]/`).hostname.slice(1, -1);
}

function isIPv4Compatible(address: ipaddr.IPv6): boolean {
  return address.parts.slice(0, 6).every((part) => part === 0);
}

function ipv4FromHextets(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/**
 * Names that mean "this machine" whatever DNS says (RFC 6761). Refused before any lookup so a
 * resolver that maps them somewhere unexpected cannot matter.
 */
export function isLocalHostname(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}
