import ipaddr from 'ipaddr.js';

// Special-purpose blocks (IANA IPv4 and IPv6 special-purpose address registries) that ipaddr.js's
// range() does not single out, or names but calls globally reachable. Anything that embeds or
// translates to another address (mapped, compatible, NAT64, 6to4, Teredo) is refused outright.
const NOT_PUBLIC_IPV4 = [
  '0.0.0.0/8',
  '100.64.0.0/10',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.31.196.0/24',
  '192.52.193.0/24',
  '192.88.99.0/24',
  '192.175.48.0/24',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '240.0.0.0/4',
].map((cidr) => ipaddr.IPv4.parseCIDR(cidr));

const NOT_PUBLIC_IPV6 = [
  '64:ff9b::/96',
  '64:ff9b:1::/48',
  '100::/64',
  '2001::/23',
  '2001:db8::/32',
  '2002::/16',
  '3fff::/20',
  '5f00::/16',
].map((cidr) => ipaddr.IPv6.parseCIDR(cidr));

// Only global unicast (2000::/3) is public in IPv6; the rest is loopback, link-local, ULA, multicast or reserved.
const GLOBAL_UNICAST_IPV6 = ipaddr.IPv6.parseCIDR('2000::/3');

/** True only for an IP address that a webhook may reach: global unicast, outside every special-purpose range. */
export function isPublicAddress(address: string): boolean {
  const literal = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(literal)) return false;
  const ip = ipaddr.parse(literal);
  if (ip.kind() === 'ipv4') {
    const v4 = ip as ipaddr.IPv4;
    return v4.range() === 'unicast' && !NOT_PUBLIC_IPV4.some((cidr) => v4.match(cidr));
  }
  const v6 = ip as ipaddr.IPv6;
  return v6.range() === 'unicast' && v6.match(GLOBAL_UNICAST_IPV6) && !NOT_PUBLIC_IPV6.some((cidr) => v6.match(cidr));
}

/** True for an IP literal in any spelling the URL parser leaves (IPv6 with or without brackets). */
export function isIpLiteral(host: string): boolean {
  const literal = host.replace(/^\[|\]$/g, '');
  return ipaddr.IPv4.isValidFourPartDecimal(literal) || ipaddr.IPv6.isValid(literal);
}

/** Why `raw` cannot be a webhook (or Teams workflow) URL, or null when it can. Host names are checked again on their resolved address at send time. */
export function webhookUrlProblem(raw: string, allowInsecure: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(allowInsecure && url.protocol === 'http:')) {
    return allowInsecure ? 'must be an http or https URL' : 'must be an https URL';
  }
  if (allowInsecure) return null;
  // The WHATWG parser has already turned 127.1, 2130706433 and 0x7f000001 into 127.0.0.1.
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return 'must point at a public host';
  if (isIpLiteral(host) && !isPublicAddress(host)) return 'must point at a public host';
  return null;
}
