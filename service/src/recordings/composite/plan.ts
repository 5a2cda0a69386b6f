/**
 * The composite's plan, as pure functions: who speaks when (from each microphone's levels), what is on screen
 * when (the timeline: a screen share on stage while it is shared, else the active speaker or the grid), and the
 * ffmpeg filter graph that renders it from the per-track file in one pass (every track aligned by its offset).
 */
import type { RecordedTrack } from '../recordings.service';

/** The composite's layouts: one speaker on stage, or every participant in a grid. */
export const RECORDING_LAYOUTS = ['active_speaker', 'grid'] as const;
/** A composite layout. */
export type RecordingLayout = (typeof RECORDING_LAYOUTS)[number];

/** A track of the per-track file, with when it starts and ends. */
export type PlannedTrack = RecordedTrack;

/** A span of the recording and who speaks in it (the key of a participant, or null: nobody yet). */
export interface SpeakerWindow {
  start: number;
  end: number;
  speaker: string | null;
}

/** A rectangle of the frame. */
export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** What fills a rectangle: a video track (by its index among the file's video streams), or a name on a card. */
export type Tile = { rect: Rect; video: number; label: string } | { rect: Rect; card: string };

/** A span of the recording and the tiles on screen during it. */
export interface TimelineSegment {
  start: number;
  end: number;
  tiles: Tile[];
}

/** What the render needs to know besides the tracks. */
export interface FrameOptions {
  width: number;
  height: number;
  fps: number;
}

/** Who a track belongs to, as a key: the participant, else the name, else the track itself. */
export function participantKey(track: RecordedTrack): string {
  return track.owner?.participant_id ?? (track.owner?.name ? `name:${track.owner.name}` : `${track.kind}:${track.stream}`);
}

/** The name shown for a participant. */
export function participantName(track: RecordedTrack): string {
  return track.owner?.name ?? (track.source === 'screen' ? 'Screen' : 'Guest');
}

/**
 * Who speaks when, from each microphone's level per window (dBFS, `levels[n]` for the audio track with stream n,
 * window `windowSeconds` from the file's start): the loudest microphone above `thresholdDb` takes the stage once
 * it has been the loudest for `switchAfter` windows in a row; silence keeps the last speaker on stage.
 */
export function speakerWindows(
  audio: RecordedTrack[],
  levels: number[][],
  windowSeconds: number,
  durationSeconds: number,
  opts: { thresholdDb?: number; switchAfter?: number } = {},
): SpeakerWindow[] {
  const threshold = opts.thresholdDb ?? -45;
  const switchAfter = opts.switchAfter ?? 2;
  const windows = Math.ceil(durationSeconds / windowSeconds);
  const keyOf = new Map(audio.map((t) => [t.stream, participantKey(t)]));
  const out: SpeakerWindow[] = [];
  let current: string | null = null;
  let candidate: string | null = null;
  let streak = 0;
  for (let w = 0; w < windows; w++) {
    let loudest: string | null = null;
    let loudestDb = threshold;
    levels.forEach((track, stream) => {
      const db = track[w] ?? -Infinity;
      if (db > loudestDb && keyOf.has(stream)) {
        loudestDb = db;
        loudest = keyOf.get(stream)!;
      }
    });
    if (loudest !== null && loudest !== current) {
      streak = loudest === candidate ? streak + 1 : 1;
      candidate = loudest;
      // The first voice takes the stage at once, and from the window its streak began.
      if (current === null || streak >= switchAfter) {
        const from = current === null ? w : w - streak + 1;
        current = loudest;
        push(out, from * windowSeconds, current);
        streak = 0;
      }
    } else if (loudest === current) {
      streak = 0;
    }
  }
  if (out.length === 0 || out[0]!.start > 0) out.unshift({ start: 0, end: 0, speaker: null });
  for (let i = 0; i < out.length; i++) out[i]!.end = out[i + 1]?.start ?? durationSeconds;
  return out.filter((s) => s.end > s.start);
}

function push(out: SpeakerWindow[], start: number, speaker: string): void {
  const last = out.at(-1);
  if (last && last.start >= start) out.pop();
  out.push({ start, end: start, speaker });
}

/** The frame's grid for `n` tiles: as square as fits, centred. */
export function gridRects(n: number, frame: FrameOptions): Rect[] {
  const cols = Math.max(1, Math.ceil(Math.sqrt(n)));
  const rows = Math.max(1, Math.ceil(n / cols));
  // Tiles keep the frame's shape.
  const scale = Math.min(1 / cols, 1 / rows);
  const w = even(frame.width * scale);
  const h = even(frame.height * scale);
  return Array.from({ length: n }, (_, i) => {
    const row = Math.floor(i / cols);
    const inRow = Math.min(cols, n - row * cols);
    const x0 = evenOffset((frame.width - inRow * w) / 2);
    return { x: x0 + (i % cols) * w, y: evenOffset((frame.height - rows * h) / 2) + row * h, w, h };
  });
}

function even(value: number): number {
  return Math.max(2, evenOffset(value));
}

function evenOffset(value: number): number {
  return Math.max(0, Math.floor(value / 2) * 2);
}

/**
 * What is on screen when: a screen share fills the frame while it is shared (the newest one when several are), with
 * the active speaker's camera in a corner; otherwise the active speaker's camera (or their name on a card) fills the
 * frame (`active_speaker`), or every participant has a tile, camera or name card (`grid`).
 */
export function timeline(
  tracks: PlannedTrack[],
  speakers: SpeakerWindow[],
  layout: RecordingLayout,
  frame: FrameOptions,
): TimelineSegment[] {
  const duration = Math.max(0, ...tracks.map((t) => t.end_seconds), ...speakers.map((s) => s.end));
  const video = tracks.filter((t) => t.kind === 'video');
  const cuts = new Set<number>([0, duration]);
  for (const t of video) cuts.add(clamp(t.offset_seconds, duration)).add(clamp(t.end_seconds, duration));
  for (const s of speakers) cuts.add(clamp(s.start, duration));
  const times = [...cuts].sort((a, b) => a - b);
  const people = participants(tracks);
  const full: Rect = { x: 0, y: 0, w: frame.width, h: frame.height };
  const pip: Rect = { w: even(frame.width / 4), h: even(frame.height / 4), x: 0, y: 0 };
  pip.x = frame.width - pip.w - 8;
  pip.y = frame.height - pip.h - 8;
  const segments: TimelineSegment[] = [];
  for (let i = 0; i + 1 < times.length; i++) {
    const [start, end] = [times[i]!, times[i + 1]!];
    const mid = (start + end) / 2;
    const live = video.filter((t) => t.offset_seconds <= mid && t.end_seconds > mid);
    const cameraOf = (key: string) => live.filter((t) => t.source !== 'screen' && participantKey(t) === key).at(-1);
    const speaking = speakers.find((s) => s.start <= mid && s.end > mid)?.speaker ?? null;
    const onStage =
      speaking ??
      (live.find((t) => t.source !== 'screen') ? participantKey(live.find((t) => t.source !== 'screen')!) : people[0]?.key) ??
      null;
    const screen = live.filter((t) => t.source === 'screen').at(-1);
    const tileOf = (key: string | null, rect: Rect): Tile[] => {
      if (key === null) return [];
      const camera = cameraOf(key);
      const name = people.find((p) => p.key === key)?.name ?? 'Guest';
      return [camera ? { rect, video: camera.stream, label: name } : { rect, card: name }];
    };
    let tiles: Tile[];
    if (screen) {
      const camera = onStage === null ? undefined : cameraOf(onStage);
      tiles = [{ rect: full, video: screen.stream, label: `${participantName(screen)} (screen)` }];
      if (camera) tiles.push({ rect: pip, video: camera.stream, label: people.find((p) => p.key === onStage)?.name ?? '' });
    } else if (layout === 'grid' && people.length > 0) {
      const rects = gridRects(people.length, frame);
      tiles = people.flatMap((p, n) => tileOf(p.key, rects[n]!));
    } else {
      tiles = tileOf(onStage, full);
    }
    const last = segments.at(-1);
    if (last && last.end === start && JSON.stringify(last.tiles) === JSON.stringify(tiles)) last.end = end;
    else segments.push({ start, end, tiles });
  }
  return segments;
}

function clamp(value: number, max: number): number {
  return Math.min(Math.max(0, value), max);
}

/** Every participant of the recording once, in order of their first track. */
export function participants(tracks: RecordedTrack[]): { key: string; name: string }[] {
  const seen = new Map<string, string>();
  for (const t of [...tracks].sort((a, b) => a.offset_seconds - b.offset_seconds)) {
    if (t.source === 'screen' && t.kind === 'video' && !tracks.some((o) => o !== t && participantKey(o) === participantKey(t))) continue;
    if (!seen.has(participantKey(t))) seen.set(participantKey(t), participantName(t));
  }
  return [...seen].map(([key, name]) => ({ key, name }));
}

/** Inputs of the filter graph that are files: each label's text (drawtext reads it from a file: no escaping of names). */
export interface FilterGraph {
  graph: string;
  /** Label texts, by the file name the graph refers to (`textfile=<dir>/<name>`). */
  labels: Map<string, string>;
}

/**
 * The ffmpeg filter graph of a composite: input 0 is the per-track file. Each video track is padded back to the
 * file's start (`fps=...:start_time=0`), scaled once per rectangle it appears in, labelled, and overlaid on a
 * plain background while its tile is on screen (`enable`); name cards are drawn on the background. Every
 * microphone is aligned to the file's start (`aresample=async=1:first_pts=0`, which also fills the gaps a
 * browser leaves in silences) and mixed into one track. Outputs `[vout]` and `[aout]`.
 */
export function filterGraph(
  tracks: PlannedTrack[],
  segments: TimelineSegment[],
  frame: FrameOptions & { durationSeconds: number; fontFile: string; labelDir: string },
): FilterGraph {
  const labels = new Map<string, string>();
  const textFile = (text: string): string => {
    const existing = [...labels].find(([, t]) => t === text)?.[0];
    if (existing) return `${frame.labelDir}/${existing}`;
    const name = `label-${labels.size}.txt`;
    labels.set(name, text);
    return `${frame.labelDir}/${name}`;
  };
  const d = frame.durationSeconds.toFixed(3);
  const parts: string[] = [`color=c=0x202124:s=${frame.width}x${frame.height}:r=${frame.fps}:d=${d},format=yuv420p[bg0]`];
  // Where each video track is shown, per rectangle, and when.
  const shows = new Map<string, { video: number; rect: Rect; label: string; spans: [number, number][] }>();
  const cards = new Map<string, { rect: Rect; name: string; spans: [number, number][] }>();
  for (const segment of segments) {
    for (const tile of segment.tiles) {
      const key = `${'video' in tile ? `v${tile.video}` : `c${tile.card}`}@${tile.rect.x},${tile.rect.y},${tile.rect.w},${tile.rect.h}`;
      if ('video' in tile) {
        const show = shows.get(key) ?? { video: tile.video, rect: tile.rect, label: tile.label, spans: [] };
        show.spans.push([segment.start, segment.end]);
        shows.set(key, show);
      } else {
        const card = cards.get(key) ?? { rect: tile.rect, name: tile.card, spans: [] };
        card.spans.push([segment.start, segment.end]);
        cards.set(key, card);
      }
    }
  }
  let base = 'bg0';
  let step = 0;
  const font = `fontfile=${frame.fontFile}:expansion=none:fontcolor=white`;
  for (const card of cards.values()) {
    const size = Math.max(12, Math.round(card.rect.h / 8));
    const x = `${card.rect.x}+(${card.rect.w}-text_w)/2`;
    const y = `${card.rect.y}+(${card.rect.h}-text_h)/2`;
    parts.push(
      `[${base}]drawtext=${font}:textfile=${textFile(card.name)}:fontsize=${size}:x=${x}:y=${y}:enable='${spansExpr(card.spans)}'[bg${++step}]`,
    );
    base = `bg${step}`;
  }
  const all = [...shows.values()];
  const byVideo = new Map<number, number>();
  for (const show of all) byVideo.set(show.video, (byVideo.get(show.video) ?? 0) + 1);
  for (const [video, count] of byVideo) {
    const outs = Array.from({ length: count }, (_, n) => `[v${video}s${n}]`).join('');
    parts.push(`[0:v:${video}]fps=${frame.fps}:start_time=0,format=yuv420p${count > 1 ? `,split=${count}` : ''}${outs}`);
  }
  // Large tiles first: a corner picture is drawn over the stage.
  const used = new Map<number, number>();
  for (const use of all.sort((a, b) => b.rect.w * b.rect.h - a.rect.w * a.rect.h)) {
    const n = used.get(use.video) ?? 0;
    used.set(use.video, n + 1);
    const { w, h, x, y } = use.rect;
    const size = Math.max(10, Math.round(h / 14));
    parts.push(
      `[v${use.video}s${n}]scale=${w}:${h}:force_original_aspect_ratio=decrease,pad=${w}:${h}:(ow-iw)/2:(oh-ih)/2:color=black,` +
        `drawtext=${font}:textfile=${textFile(use.label)}:fontsize=${size}:box=1:boxcolor=black@0.55:boxborderw=4:x=8:y=h-text_h-10[t${use.video}s${n}]`,
    );
    parts.push(`[${base}][t${use.video}s${n}]overlay=x=${x}:y=${y}:eof_action=pass:enable='${spansExpr(use.spans)}'[bg${++step}]`);
    base = `bg${step}`;
  }
  parts.push(`[${base}]null[vout]`);
  const mics = tracks.filter((t) => t.kind === 'audio');
  if (mics.length === 0) parts.push(`anullsrc=r=48000:cl=mono,atrim=duration=${d}[aout]`);
  else {
    for (const mic of mics) parts.push(`[0:a:${mic.stream}]aresample=async=1:first_pts=0[a${mic.stream}]`);
    const ins = mics.map((m) => `[a${m.stream}]`).join('');
    parts.push(`${ins}amix=inputs=${mics.length}:normalize=0:dropout_transition=0,apad=whole_dur=${d},atrim=duration=${d}[aout]`);
  }
  return { graph: parts.join(';\n'), labels };
}

/** An ffmpeg expression true during any of `spans` (seconds). */
export function spansExpr(spans: [number, number][]): string {
  return spans.map(([a, b]) => `between(t,${a.toFixed(3)},${(b - 0.001).toFixed(3)})`).join('+') || '0';
}
