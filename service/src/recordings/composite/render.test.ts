import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { syntheticTracksFile } from '@svc/service/testing';
import { audioLevels, probeMedia, renderComposite, verifyComposite } from './render';

const ARTIFACTS = path.resolve(__dirname, '../../../../test/artifacts');
let dir: string;
let file: string;
let tracks: Awaited<ReturnType<typeof syntheticTracksFile>>['tracks'];
const DURATION = 16;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-composite-test-'));
  ({ file, tracks } = await syntheticTracksFile(
    {
      participants: [
        { name: 'Ada Lovelace', participantId: 'prt_ada', voice: 'rms', camera: 'testsrc2' },
        // Her camera starts late (the track is shifted by its offset).
        { name: "Grace O'Hara: ops", participantId: 'prt_grace', voice: 'slt', camera: 'smptebars', cameraFrom: 3 },
      ],
      sentences: ['The billing service passed its tests.', 'We decided to launch on Friday.'],
      durationSeconds: DURATION,
      screen: { by: 1, from: 8, to: 12, color: 'red' },
    },
    dir,
  ));
}, 120_000);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The mean colour of the composite's frame at `seconds`, as [r, g, b]. */
function meanColour(mp4: string, seconds: number, pngName?: string, crop = 'crop=iw:ih:0:0'): number[] {
  const vf = `${crop},scale=1:1:flags=area`;
  const raw = execFileSync('ffmpeg', [
    '-v',
    'error',
    '-ss',
    String(seconds),
    '-i',
    mp4,
    '-frames:v',
    '1',
    '-vf',
    vf,
    '-f',
    'rawvideo',
    '-pix_fmt',
    'rgb24',
    '-',
  ]);
  if (pngName) {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-ss', String(seconds), '-i', mp4, '-frames:v', '1', path.join(ARTIFACTS, pngName)]);
  }
  return [...raw];
}

describe('rendering a composite from a per-track file', () => {
  it('the merged file holds every track at its offset', async () => {
    expect(tracks.map((t) => `${t.kind}:${t.stream}:${t.source}:${t.offset_seconds}`)).toEqual([
      'audio:0:microphone:0',
      'audio:1:microphone:0',
      'video:0:camera:0',
      'video:1:camera:3',
      'video:2:screen:8',
    ]);
    const probe = await probeMedia(file);
    expect(probe.streams.map((s) => s.codec_name)).toEqual(['opus', 'opus', 'vp8', 'vp8', 'vp8']);
    const levels = await audioLevels(file, 0);
    expect(levels.length).toBeGreaterThanOrEqual(DURATION * 2 - 1);
    expect(Math.max(...levels)).toBeGreaterThan(-30);
  });

  it.each(['active_speaker', 'grid'] as const)(
    'renders %s: one H.264 and one AAC stream, as long as the recording, the screen share on stage while shared',
    async (layout) => {
      const out = path.join(dir, `${layout}.mp4`);
      const rendered = await renderComposite(file, tracks, DURATION, out, { layout, preset: 'ultrafast' });
      expect(Math.abs(rendered.durationSeconds - DURATION)).toBeLessThanOrEqual(1);
      const probe = await probeMedia(out);
      expect(probe.streams.map((s) => `${s.codec_type}:${s.codec_name}`).sort()).toEqual(['audio:aac', 'video:h264']);
      // faststart: the index (moov) comes before the media (mdat).
      const head = fs
        .readFileSync(out)
        .subarray(0, 64 * 1024)
        .toString('latin1');
      expect(head.indexOf('moov')).toBeGreaterThan(-1);
      expect(head.indexOf('moov')).toBeLessThan(head.indexOf('mdat') === -1 ? Infinity : head.indexOf('mdat'));
      // The red screen share fills the frame while it is shared, and is gone afterwards.
      const [r, g, b] = meanColour(out, 10, `composite-${layout}-screen.png`);
      expect(r).toBeGreaterThan(150);
      expect(g! + b!).toBeLessThan(150);
      // The speaker's camera (Ada's test pattern) is in the corner over the share.
      const corner = meanColour(out, 10, undefined, 'crop=160:90:472:262');
      expect(Math.abs(corner[0]! - corner[1]!) + Math.abs(corner[0]! - corner[2]!)).toBeLessThan(150);
      expect(corner[0]! > 150 && corner[1]! + corner[2]! < 150).toBe(false);
      const after = meanColour(out, 14, `composite-${layout}.png`);
      expect(after[0]! - after[1]!).toBeLessThan(100);
    },
    120_000,
  );

  it('verification refuses a file with the wrong streams or length', async () => {
    const webm = path.join(dir, 'audio-only.mka');
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'sine=d=3', '-c:a', 'libopus', webm]);
    await expect(verifyComposite(webm, 3)).rejects.toThrow(/0 video and 1 audio/);
    const out = path.join(dir, 'active_speaker.mp4');
    await expect(verifyComposite(out, DURATION + 5)).rejects.toThrow(/lasts/);
  });
});
