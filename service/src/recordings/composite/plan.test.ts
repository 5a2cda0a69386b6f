import type { RecordedTrack } from '../recordings.service';
import { filterGraph, gridRects, participants, speakerWindows, spansExpr, timeline } from './plan';

const frame = { width: 640, height: 360, fps: 15 };
const ada = { participant_id: 'prt_ada', name: 'Ada' };
const bob = { participant_id: 'prt_bob', name: 'Bob' };
const track = (t: Partial<RecordedTrack> & Pick<RecordedTrack, 'kind' | 'stream'>): RecordedTrack => ({
  source: t.kind === 'audio' ? 'microphone' : 'camera',
  owner: null,
  offset_seconds: 0,
  end_seconds: 20,
  ...t,
});
const micAda = track({ kind: 'audio', stream: 0, owner: ada });
const micBob = track({ kind: 'audio', stream: 1, owner: bob, offset_seconds: 2 });
const camAda = track({ kind: 'video', stream: 0, owner: ada });
const camBob = track({ kind: 'video', stream: 1, owner: bob, offset_seconds: 4 });
const screenBob = track({ kind: 'video', stream: 2, owner: bob, source: 'screen', offset_seconds: 10, end_seconds: 14 });
const QUIET = -90;
const LOUD = -20;

/** Levels per 1 s window: `loud` lists the seconds each microphone speaks in. */
const levels = (seconds: number, ...loud: number[][]) =>
  loud.map((l) => Array.from({ length: seconds }, (_, s) => (l.includes(s) ? LOUD : QUIET)));

describe('speakerWindows', () => {
  it('puts the first voice on stage at once, switches after two windows of another, and keeps the speaker through silence', () => {
    const windows = speakerWindows([micAda, micBob], levels(20, [1, 2, 3, 9], [6, 7, 8, 15]), 1, 20);
    expect(windows).toEqual([
      { start: 0, end: 1, speaker: null },
      { start: 1, end: 6, speaker: 'prt_ada' },
      { start: 6, end: 20, speaker: 'prt_bob' },
    ]);
  });

  it('ignores a voice below the threshold and a one-window interjection', () => {
    const quietBob = [Array(10).fill(LOUD) as number[], Array(10).fill(-60) as number[]];
    expect(speakerWindows([micAda, micBob], quietBob, 1, 10)).toEqual([{ start: 0, end: 10, speaker: 'prt_ada' }]);
    expect(speakerWindows([micAda, micBob], levels(10, [0, 1], [5]), 1, 10)).toEqual([{ start: 0, end: 10, speaker: 'prt_ada' }]);
  });

  it('leaves nobody on stage in a silent recording', () => {
    expect(speakerWindows([micAda], levels(5, []), 1, 5)).toEqual([{ start: 0, end: 5, speaker: null }]);
  });
});

describe('timeline', () => {
  const speakers = [
    { start: 0, end: 6, speaker: 'prt_ada' },
    { start: 6, end: 20, speaker: 'prt_bob' },
  ];
  const all = [micAda, micBob, camAda, camBob, screenBob];

  it("active speaker: the speaker's camera, a name card while their camera has not started, the screen share with the speaker in a corner", () => {
    const segments = timeline(all, speakers, 'active_speaker', frame);
    const full = { x: 0, y: 0, w: 640, h: 360 };
    expect(segments).toEqual([
      { start: 0, end: 6, tiles: [{ rect: full, video: 0, label: 'Ada' }] },
      { start: 6, end: 10, tiles: [{ rect: full, video: 1, label: 'Bob' }] },
      {
        start: 10,
        end: 14,
        tiles: [
          { rect: full, video: 2, label: 'Bob (screen)' },
          { rect: { x: 472, y: 262, w: 160, h: 90 }, video: 1, label: 'Bob' },
        ],
      },
      { start: 14, end: 20, tiles: [{ rect: full, video: 1, label: 'Bob' }] },
    ]);
    // Bob speaks before his camera starts: his name on a card.
    const early = timeline(all, [{ start: 0, end: 20, speaker: 'prt_bob' }], 'active_speaker', frame);
    expect(early[0]).toEqual({ start: 0, end: 4, tiles: [{ rect: full, card: 'Bob' }] });
  });

  it('grid: a tile per participant (camera or name card), the screen share on stage while shared', () => {
    const segments = timeline(all, speakers, 'grid', frame);
    const [left, right] = gridRects(2, frame);
    expect(segments[0]).toEqual({
      start: 0,
      end: 4,
      tiles: [
        { rect: left, video: 0, label: 'Ada' },
        { rect: right, card: 'Bob' },
      ],
    });
    expect(segments[1]).toEqual({
      start: 4,
      end: 10,
      tiles: [
        { rect: left, video: 0, label: 'Ada' },
        { rect: right, video: 1, label: 'Bob' },
      ],
    });
    expect(segments[2]!.tiles[0]).toMatchObject({ video: 2 });
    expect(segments.at(-1)).toMatchObject({ start: 14, end: 20 });
  });

  it("grid rectangles keep the frame's shape and fit in it", () => {
    expect(gridRects(1, frame)).toEqual([{ x: 0, y: 0, w: 640, h: 360 }]);
    expect(gridRects(2, frame)).toEqual([
      { x: 0, y: 90, w: 320, h: 180 },
      { x: 320, y: 90, w: 320, h: 180 },
    ]);
    for (const n of [3, 4, 5, 7, 9, 12]) {
      for (const r of gridRects(n, frame)) {
        expect(r.x + r.w).toBeLessThanOrEqual(640);
        expect(r.y + r.h).toBeLessThanOrEqual(360);
        expect(Math.abs(r.w / r.h - 16 / 9)).toBeLessThan(0.05);
      }
    }
    expect(participants(all).map((p) => p.name)).toEqual(['Ada', 'Bob']);
  });
});

describe('filterGraph', () => {
  it('aligns and mixes every microphone, pads each camera to the start, overlays it while shown, labels every tile from a file', () => {
    const segments = timeline(
      [micAda, micBob, camAda, camBob, screenBob],
      [{ start: 0, end: 20, speaker: 'prt_ada' }],
      'active_speaker',
      frame,
    );
    const { graph, labels } = filterGraph([micAda, micBob, camAda, camBob, screenBob], segments, {
      ...frame,
      durationSeconds: 20,
      fontFile: '/f.ttf',
      labelDir: '/w',
    });
    expect(graph).toContain('[0:a:0]aresample=async=1:first_pts=0[a0]');
    expect(graph).toContain('[0:a:1]aresample=async=1:first_pts=0[a1]');
    expect(graph).toContain('[a0][a1]amix=inputs=2:normalize=0');
    expect(graph).toContain('[0:v:0]fps=15:start_time=0,format=yuv420p,split=2[v0s0][v0s1]');
    expect(graph).toContain('[0:v:2]fps=15:start_time=0');
    // Bob's camera is never on stage here: it is not decoded into the graph.
    expect(graph).not.toContain('[0:v:1]');
    expect(graph).toContain(
      `enable='${spansExpr([
        [0, 10],
        [14, 20],
      ])}'`,
    );
    expect(graph).toMatch(/\[vout\]/);
    expect(graph).toMatch(/\[aout\]$/);
    expect([...labels.values()]).toEqual(['Ada', 'Bob (screen)']);
    expect(graph).toContain('textfile=/w/label-0.txt');
  });

  it('gives a recording without microphones a silent track', () => {
    const { graph } = filterGraph([camAda], timeline([camAda], [], 'active_speaker', frame), {
      ...frame,
      durationSeconds: 5,
      fontFile: '/f',
      labelDir: '/w',
    });
    expect(graph).toContain('anullsrc=r=48000:cl=mono,atrim=duration=5.000[aout]');
  });

  it('spansExpr is true inside the spans only', () => {
    expect(spansExpr([[1, 2]])).toBe('between(t,1.000,1.999)');
    expect(spansExpr([])).toBe('0');
  });
});
