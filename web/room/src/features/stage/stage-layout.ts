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
