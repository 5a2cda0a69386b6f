/** Where this browser keeps its holder secret, and this tab the host token of each meeting. */
const HOLDER_KEY = 'svc.room.holder';
const TOKEN_KEY_PREFIX = 'svc.room.host.';

/** A host link's token with the secret that proves this browser redeemed it first. */
export interface HostLinkCredentials {
  host: string;
  holder: string;
}

/**
 * The host link this page was opened with, or the one this tab opened earlier for the same meeting (a reload or
 * Rejoin). The token leaves the address bar at once (`history.replaceState`): whoever copies the address to invite
 * someone copies a guest link, and the service binds the token to this browser's holder secret anyway.
 */
export function takeHostLink(code: string, location: Location, history: History): HostLinkCredentials | null {
  const url = new URL(location.href);
  const fromUrl = url.searchParams.get('host');
  const tokenKey = TOKEN_KEY_PREFIX + code;
  if (fromUrl) {
    write(sessionStorageOrNull(), tokenKey, fromUrl);
    url.searchParams.delete('host');
    history.replaceState(history.state, '', url.pathname + url.search + url.hash);
  }
  const host = fromUrl ?? read(sessionStorageOrNull(), tokenKey);
  return host ? { host, holder: holderSecret() } : null;
}

/** Forgets the host token this tab keeps for the meeting (another browser owns it): the next Join is a guest's. */
export function forgetHostLink(code: string): void {
  try {
    sessionStorageOrNull()?.removeItem(TOKEN_KEY_PREFIX + code);
  } catch {
    // Blocked storage kept nothing.
  }
}

/** This browser's holder secret: made once (24 random bytes, base64url) and kept in localStorage, in memory when storage is blocked. */
function holderSecret(): string {
  const storage = localStorageOrNull();
  const kept = read(storage, HOLDER_KEY);
  if (kept && /^[A-Za-z0-9_-]{16,128}$/.test(kept)) return kept;
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  const secret = btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
  write(storage, HOLDER_KEY, secret);
  return secret;
}

// Storage may be switched off or throw (privacy settings, sandboxed frames): the page then works for this visit only.
function localStorageOrNull(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

function sessionStorageOrNull(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

function read(storage: Storage | null, key: string): string | null {
  try {
    return storage?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

function write(storage: Storage | null, key: string, value: string): void {
  try {
    storage?.setItem(key, value);
  } catch {
    // Full or blocked: the value lives as long as this page.
  }
}
