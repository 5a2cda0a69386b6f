/** The spatial layer a tile this wide (in device pixels) needs: 0 up to 400 px, 1 up to 800 px, 2 beyond. */
export function layerForWidth(pixels: number): number {
  return pixels <= 400 ? 0 : pixels <= 800 ? 1 : 2;
}

/** Column count that makes `count` 16:9 tiles largest in a `width` x `height` area, and the tile width. */
export function gridFor(count: number, width: number, height: number, gap = 8): { cols: number; tileWidth: number } {
  let best = { cols: 1, tileWidth: 0 };
  for (let cols = 1; cols <= Math.max(1, count); cols++) {
    const rows = Math.ceil(count / cols);
    const w = Math.min((width - gap * (cols - 1)) / cols, ((height - gap * (rows - 1)) / rows) * (16 / 9));
    if (w > best.tileWidth) best = { cols, tileWidth: Math.floor(w) };
  }
  return best;
}

/** What the stage holds and how wide it is: the input of `arrange`. */
export interface StageInput {
  layout: 'grid' | 'speaker';
  /** Camera tiles (one per person with a tile). */
  tiles: number;
  /** Screen shares. */
  screens: number;
  /** Whether the viewer's own tile is among the camera tiles. */
  hasSelfTile: boolean;
  /** A phone-sized window (up to 700 px wide). */
  phone: boolean;
  width: number;
  height: number;
}

/** How the stage is arranged: the classes it gets and the width of a tile in the grid or strip. */
export interface Arrangement {
  presenting: boolean;
  speakerView: boolean;
  /** The speaker layout with nobody in the strip (alone in the call). */
  stripEmpty: boolean;
  /** On a phone your own camera floats small in a corner, as in the phone apps, instead of taking the first full-width tile. */
  selfPip: boolean;
  /** The picture-in-picture with exactly one other person. */
  oneOther: boolean;
  /** The width of a tile (at least 120 px). */
  tileWidth: number;
}

/** Arranges the stage: a screen share or the speaker layout puts the cameras in a strip; else a grid of the largest tiles. */
export function arrange(input: StageInput): Arrangement {
  const presenting = input.screens > 0;
  const speakerView = input.layout === 'speaker' && !presenting && input.tiles > 0;
  const selfPip = input.phone && !presenting && !speakerView && input.tiles > 1 && input.hasSelfTile;
  const inStrip = speakerView ? input.tiles - 1 : input.tiles;
  let tileWidth: number;
  if (presenting || speakerView)
    tileWidth = input.phone ? Math.min(160, (input.width - 8 * Math.max(0, inStrip - 1)) / Math.max(1, inStrip)) : input.width;
  else tileWidth = gridFor(selfPip ? input.tiles - 1 : input.tiles, input.width, input.height).tileWidth;
  return {
    presenting,
    speakerView,
    stripEmpty: speakerView && inStrip === 0,
    selfPip,
    oneOther: selfPip && input.tiles === 2,
    tileWidth: Math.max(120, tileWidth),
  };
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
