import { isIP } from 'node:net';

/** True for addresses no public webhook may reach: loopback, private, link-local, unspecified, CGNAT, ULA. */
export function isPrivateAddress(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '').toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(ip);
  if (mapped) return isPrivateAddress(mapped[1]!);
  if (isIP(ip) === 4) {
    const [a, b] = ip.split('.').map(Number) as [number, number];
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 100 && b >= 64 && b <= 127) ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      a >= 224
    );
  }
  if (isIP(ip) === 6) return ip === '::' || ip === '::1' || /^f[cd]/.test(ip) || /^fe[89ab]/.test(ip) || /^ff/.test(ip);
  return false;
}

/** Why `raw` cannot be a webhook URL, or null when it can. */
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
  const host = url.hostname.toLowerCase();
  if (!allowInsecure && (host === 'localhost' || host.endsWith('.localhost') || isPrivateAddress(host))) {
    return 'must point at a public host';
  }
  return null;
}
