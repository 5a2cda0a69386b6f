import { getPublicSuffix } from 'tldts';

/**
 * The allow-list entries of an embedded room: `https://host[:port]` or `https://*.host[:port]`, and `http://`
 * only for loopback development hosts. Pure functions, used for the stored list, the CSP and the parent check.
 */

/** At most this many entries per meeting. */
export const MAX_EMBED_ORIGINS = 50;

const LOOPBACK_HOSTS = /^(localhost|[a-z0-9-]+(\.[a-z0-9-]+)*\.localhost|127\.0\.0\.1)$/;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** An entry in its stored form (lowercase, no default port), or the reason it is not one. */
export function normalizeEmbedOrigin(entry: string): { origin: string } | { error: string } {
  const match = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/(\*\.)?([^/:?#\s]+)(?::(\d{1,5}))?$/.exec(entry.trim());
  if (!match) return { error: 'must be an origin such as https://app.example.com or https://*.example.com, without a path' };
  const scheme = match[1]!.toLowerCase();
  const wildcard = Boolean(match[2]);
  const host = match[3]!.toLowerCase();
  const port = match[4] === undefined ? null : Number(match[4]);
  if (scheme !== 'https' && scheme !== 'http') return { error: 'must use https:// (http:// only for localhost)' };
  const labels = host.split('.');
  const isIp = /^\d{1,3}(\.\d{1,3}){3}$/.test(host);
  if (!isIp && !labels.every((label) => LABEL.test(label))) return { error: 'has an invalid host name' };
  if (isIp && (wildcard || host.split('.').some((part) => Number(part) > 255))) return { error: 'has an invalid host' };
  if (wildcard && host !== 'localhost' && isPublicSuffix(host)) {
    return {
      error: 'a wildcard cannot cover a public suffix (such as com, co.uk or github.io); use a domain below it, e.g. https://*.example.com',
    };
  }
  if (scheme === 'http' && !LOOPBACK_HOSTS.test(wildcard ? `x.${host}` : host)) {
    return { error: 'http:// is allowed only for localhost, *.localhost and 127.0.0.1; use https://' };
  }
  if (port !== null && (port < 1 || port > 65535)) return { error: 'has an invalid port' };
  const defaultPort = scheme === 'https' ? 443 : 80;
  const portPart = port === null || port === defaultPort ? '' : `:${port}`;
  return { origin: `${scheme}://${wildcard ? '*.' : ''}${host}${portPart}` };
}

/** True when anyone can register names directly below `host`: the Public Suffix List (bundled in tldts), its private section (github.io) included. */
function isPublicSuffix(host: string): boolean {
  return getPublicSuffix(host, { allowPrivateDomains: true }) === host;
}

/** `value` when it is exactly a browser's http(s) origin (`scheme://host[:port]`, as in `MessageEvent.origin`), else null. */
export function browserOrigin(value: string): URL | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  return url.origin === value && (url.protocol === 'https:' || url.protocol === 'http:') ? url : null;
}

/** Whether a browser origin is admitted by the stored list. */
export function embedOriginAllowed(origin: string, allowed: readonly string[]): boolean {
  const url = browserOrigin(origin);
  if (!url) return false;
  const scheme = url.protocol.slice(0, -1);
  return allowed.filter(stillValid).some((entry) => {
    const match = /^(https?):\/\/(\*\.)?([^:]+)(?::(\d+))?$/.exec(entry);
    if (!match || match[1] !== scheme || (match[4] ?? '') !== url.port) return false;
    // `*.example.com` admits any subdomain, never example.com itself.
    return match[2] ? url.hostname.endsWith(`.${match[3]}`) : url.hostname === match[3];
  });
}

/** The value of the embed page's `frame-ancestors` directive. */
export function frameAncestors(allowed: readonly string[]): string {
  const valid = allowed.filter(stillValid);
  return valid.length === 0 ? "'none'" : valid.join(' ');
}

/** A stored entry that today's rules still accept: a list saved before a rule was added (a public suffix wildcard) loses that entry. */
function stillValid(entry: string): boolean {
  return 'origin' in normalizeEmbedOrigin(entry);
}
