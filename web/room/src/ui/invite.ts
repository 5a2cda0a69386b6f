/**
 * The guest link of the meeting this page shows: the room's address without query or fragment, so a host link's
 * `host=` token (or a registrant's `invite=`) never goes along.
 */
export function guestLink(page: Pick<Location, 'origin' | 'pathname'>, code: string): string {
  // A service behind a path prefix serves the page at <prefix>/m/<code>; the embed page's path is no guest link.
  const prefix = /^(.*?)\/m\/[^/]+$/.exec(page.pathname)?.[1] ?? '';
  return `${page.origin}${prefix.endsWith('/embed') ? '' : prefix}/m/${encodeURIComponent(code)}`;
}

/** Puts `text` on the clipboard; false when the browser refuses (no permission, an insecure or unfocused page). */
export async function copyToClipboard(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}
