/** How the call's tiles are arranged: all alike in a grid, or the active speaker large with the others in a strip. */
export type StageLayout = 'grid' | 'speaker';

/** Where the page remembers the viewer's choice (per browser, for every meeting). */
export const LAYOUT_STORAGE_KEY = 'svc.room.layout';

/** The layout the viewer chose last time in this browser; grid when none was chosen or storage is blocked. */
export function savedLayout(): StageLayout {
  try {
    return localStorage.getItem(LAYOUT_STORAGE_KEY) === 'speaker' ? 'speaker' : 'grid';
  } catch {
    // A third-party frame with storage blocked throws on access.
    return 'grid';
  }
}

/** Remembers the viewer's layout for the next call. */
export function saveLayout(layout: StageLayout): void {
  try {
    localStorage.setItem(LAYOUT_STORAGE_KEY, layout);
  } catch {
    // Not remembered: the choice still holds for this call.
  }
}

/**
 * The peer shown large in the speaker layout: the active speaker unless it is yourself, else whoever was shown,
 * else the first other person; yourself only when alone.
 */
export function featuredPeer(
  peerIds: readonly string[],
  selfId: string | null,
  activeSpeaker: string | null,
  shown: string | null,
): string | null {
  const others = peerIds.filter((id) => id !== selfId);
  if (activeSpeaker && others.includes(activeSpeaker)) return activeSpeaker;
  if (shown && others.includes(shown)) return shown;
  return others[0] ?? (selfId && peerIds.includes(selfId) ? selfId : null);
}
