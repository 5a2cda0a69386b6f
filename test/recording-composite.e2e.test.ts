import { startReceiver, type TestReceiver } from '@svc/service/testing';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import {
  ARTIFACTS_DIR,
  createMeeting,
  eventually,
  hostLink,
  joinRoom,
  launchBrowser,
  openPage,
  pollUntil,
  roomServiceEnv,
  roomUrl,
  type RoomPage,
} from './support/browser';
import { call, startService, tempDataDir, unlimitedKey, type ServiceProcess } from './support/service-process';

jest.setTimeout(420_000);

/** Two speakers with their own flite voice, their own words, and a camera of one plain colour. */
const ALICE = {
  name: 'Alice Adams',
  voice: 'rms',
  colour: 'blue',
  text: 'The billing service passed all of its tests on the staging server. We decided to launch the billing service on Friday.',
  words: ['billing', 'service', 'tests', 'staging', 'server', 'launch', 'friday'],
};
const BOB = {
  name: 'Bob Brown',
  voice: 'awb',
  colour: 'red',
  text: 'Customers asked for a faster search page and better reports. The support team will watch the error logs.',
  words: ['customers', 'faster', 'search', 'page', 'reports', 'support', 'team', 'error', 'logs'],
};
const MODEL = '/usr/share/pocketsphinx/model/en-us';

const ffmpeg = (...args: string[]) => execFileSync('ffmpeg', ['-nostdin', '-v', 'error', '-y', ...args]);

/** The speakers' words as 48 kHz wavs for Chromium's fake microphones, taking turns in one loop of the same length. */
function fakeMicrophones(dir: string, speakers: (typeof ALICE)[]): string[] {
  const raws = speakers.map((speaker) => {
    const raw = path.join(dir, `${speaker.voice}-raw.wav`);
    execFileSync('flite', ['-voice', speaker.voice, '-t', speaker.text, '-o', raw]);
    return raw;
  });
  const turn =
    Math.max(
      ...raws.map((raw) =>
        Number(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', raw], { encoding: 'utf8' })),
      ),
    ) + 3;
  // Each speaks in their own turn of the loop, with 3 s to spare: pages that open their microphones within a
  // couple of seconds of each other do not talk over each other.
  return raws.map((raw, n) => {
    const wav = path.join(dir, `mic-${n}.wav`);
    const delay = Math.round(n * turn * 1000);
    ffmpeg('-i', raw, '-af', `aresample=48000,adelay=${delay},apad=whole_dur=${(speakers.length * turn).toFixed(2)}`, '-ac', '1', wav);
    return wav;
  });
}

/** A camera of one plain colour as a y4m file for Chromium's fake camera. */
function fakeCamera(dir: string, colour: string): string {
  const y4m = path.join(dir, `${colour}.y4m`);
  ffmpeg('-f', 'lavfi', '-i', `color=c=${colour}:s=320x180:r=15:d=2`, '-pix_fmt', 'yuv420p', y4m);
  return y4m;
}

/** The mean colour [r, g, b] of the video's frame at `seconds`, optionally saved as a PNG under test/artifacts. */
function meanColour(video: string, seconds: number, png?: string): number[] {
  if (png) ffmpeg('-ss', seconds.toFixed(2), '-i', video, '-frames:v', '1', path.join(ARTIFACTS_DIR, png));
  const raw = execFileSync('ffmpeg', [
    '-v',
    'error',
    '-ss',
    seconds.toFixed(2),
    '-i',
    video,
    '-frames:v',
    '1',
    '-vf',
    'scale=1:1:flags=area',
    '-f',
    'rawvideo',
    '-pix_fmt',
    'rgb24',
    '-',
  ]);
  return [...raw];
}

async function sending(page: Page): Promise<string[]> {
  return (await page.evaluate('window.__svcRoom.sending()')) as string[];
}

describe('a two-person meeting recorded in Chromium becomes one composite MP4 anyone can play', () => {
  let dataDir: string;
  let workDir: string;
  let key: string;
  let svc: ServiceProcess;
  let browsers: Browser[] = [];
  let receiver: TestReceiver;
  const pages: RoomPage[] = [];

  beforeAll(async () => {
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-composite-e2e-'));
    fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
    const microphones = fakeMicrophones(workDir, [ALICE, BOB]);
    const fakes = [ALICE, BOB].map((s, n) => [
      `--use-file-for-fake-audio-capture=${microphones[n]}`,
      `--use-file-for-fake-video-capture=${fakeCamera(workDir, s.colour)}`,
    ]);
    dataDir = tempDataDir();
    key = unlimitedKey(dataDir);
    let alice: Browser;
    let bob: Browser;
    [svc, alice, bob, receiver] = await Promise.all([
      startService(dataDir, roomServiceEnv({ SVC_ALLOW_INSECURE_WEBHOOKS: 'true' })),
      launchBrowser({ extraArgs: fakes[0] }),
      launchBrowser({ extraArgs: fakes[1] }),
      startReceiver(() => ({ status: 204 })),
    ]);
    browsers = [alice, bob];
    expect(
      (await call(svc.url, 'POST', '/api/v1/public/webhook-endpoints', key, { url: receiver.url, events: ['recording.ready'] })).status,
    ).toBe(201);
  }, 120_000);

  afterAll(async () => {
    for (const p of pages) await p.close().catch(() => undefined);
    for (const b of browsers) await b.close().catch(() => undefined);
    await svc?.stop();
    await receiver?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('two voices, two cameras and a late screen share: one audio and one video stream, both voices heard, the share on stage, plays in <video>', async () => {
    const meeting = await createMeeting(svc.url, key, { title: 'Composite', settings: { recording_layout: 'active_speaker' } });
    // Both open and join at the same time, so that their fake microphones' loops start together.
    const aliceLink = await hostLink(svc.url, key, meeting.id, ALICE.name);
    const [alice, bob] = await Promise.all([
      openPage(browsers[0]!, aliceLink),
      openPage(browsers[1]!, roomUrl(svc.url, meeting.code, { name: BOB.name })),
    ]);
    pages.push(alice, bob);
    expect(await Promise.all([joinRoom(alice.page), joinRoom(bob.page)])).toEqual(['room', 'room']);
    for (const p of [alice, bob]) {
      await pollUntil(
        () => 'both pages to send microphone and camera',
        async () => ['microphone', 'camera'].every((s) => sending(p.page).then((list) => list.includes(s))),
        20_000,
      );
    }

    const record = alice.page.getByTestId('toggle-recording');
    await record.click();
    const started = Date.now();
    await alice.page.locator('.rec-badge').waitFor({ state: 'visible', timeout: 10_000 });
    const at = () => (Date.now() - started) / 1000;
    await pollUntil(
      () => '8 s of recording',
      () => at() > 8,
      15_000,
      100,
    );
    // Bob shares his screen after the recording started; it is recorded from then on.
    await bob.page.getByTestId('toggle-screen').click();
    await pollUntil(
      () => 'the screen share to be sent',
      async () => (await sending(bob.page)).includes('screen'),
      15_000,
    );
    const shareFrom = at();
    await pollUntil(
      () => '8 s of sharing',
      () => at() > shareFrom + 8,
      15_000,
      100,
    );
    await bob.page.getByTestId('toggle-screen').click();
    const shareTo = at();
    await pollUntil(
      () => '30 s of recording',
      () => at() > Math.max(30, shareTo + 6),
      40_000,
      100,
    );
    await record.click();
    const recordedFor = at();
    await alice.page.locator('.rec-badge').waitFor({ state: 'hidden', timeout: 20_000 });

    // recording.ready fires once, for the composite, when the render job has verified it.
    await eventually(
      () => expect(receiver.requests.map((r) => JSON.parse(r.rawBody.toString()).type)).toEqual(['recording.ready']),
      120_000,
    );
    const event = JSON.parse(receiver.requests[0]!.rawBody.toString()) as { data: { recording: { id: string; kind: string } } };
    expect(event.data.recording.kind).toBe('video');
    const list = (await call(svc.url, 'GET', `/api/v1/public/meetings/${meeting.id}/recordings`, key)).body.data;
    expect(list.map((r: { kind: string; status: string }) => `${r.kind}:${r.status}`)).toEqual(['video:ready', 'tracks:ready']);
    const [composite, tracks] = list;
    expect(composite).toMatchObject({ id: event.data.recording.id, content_type: 'video/mp4', source_recording_id: tracks.id });
    // Requested now: the checks below block this process (ffmpeg, pocketsphinx), and a POST is not sent twice.
    expect((await call(svc.url, 'POST', `/api/v1/public/meetings/${meeting.id}/transcript`, key)).status).toBe(202);
    const warnings = `${svc.stdout()}${svc.stderr()}`.split('\n').filter((l) => /track|record/i.test(l) && /warn/i.test(l));
    process.stdout.write(`recorder warnings: ${warnings.join('\n') || 'none'}\n`);
    // The tracks recording names every track: two microphones, two cameras and Bob's screen share, which started late.
    const names = tracks.tracks.map((t: { kind: string; source: string; name: string }) => `${t.kind}:${t.source}:${t.name}`).sort();
    expect(names).toEqual(
      [
        `audio:microphone:${ALICE.name}`,
        `audio:microphone:${BOB.name}`,
        `video:camera:${ALICE.name}`,
        `video:camera:${BOB.name}`,
        `video:screen:${BOB.name}`,
      ].sort(),
    );
    const screenTrack = tracks.tracks.find((t: { source: string }) => t.source === 'screen');
    expect(screenTrack.offset_seconds).toBeGreaterThan(shareFrom - 3);
    expect(Math.abs(composite.duration_seconds - tracks.duration_seconds)).toBeLessThanOrEqual(1);
    expect(composite.duration_seconds).toBeGreaterThan(recordedFor - 4);

    // Downloaded by its signed URL: one H.264 video and one AAC audio stream.
    const signed = new URL(composite.download_url);
    const downloadUrl = `${svc.url}${signed.pathname}${signed.search}`;
    const mp4 = path.join(ARTIFACTS_DIR, 'recording-composite-e2e.mp4');
    fs.writeFileSync(mp4, Buffer.from(await (await fetch(downloadUrl)).arrayBuffer()));
    const streams = execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_type,codec_name', '-of', 'csv=p=0', mp4], {
      encoding: 'utf8',
    });
    expect(streams.trim().split('\n').sort()).toEqual(['aac,audio', 'h264,video']);

    // The screen share (Chromium's fake desktop: green) is on stage while it was shared; a camera (blue or red) before it.
    const mid = screenTrack.offset_seconds + (screenTrack.end_seconds - screenTrack.offset_seconds) / 2;
    const [r, g, b] = meanColour(mp4, mid, 'recording-composite-e2e-screen.png');
    expect(g).toBeGreaterThan(r! + 40);
    expect(g).toBeGreaterThan(b! + 40);
    const before = meanColour(mp4, Math.max(1, screenTrack.offset_seconds - 3), 'recording-composite-e2e.png');
    expect(Math.max(before[0]!, before[2]!)).toBeGreaterThan(before[1]! + 40);

    // Both voices are in the one audio track: pocketsphinx hears each speaker's words in it.
    const wav = path.join(workDir, 'composite-16k.wav');
    ffmpeg('-i', mp4, '-map', '0:a', '-ac', '1', '-ar', '16000', wav);
    const heard = execFileSync(
      'pocketsphinx_continuous',
      [
        '-infile',
        wav,
        '-hmm',
        `${MODEL}/en-us`,
        '-lm',
        `${MODEL}/en-us.lm.bin`,
        '-dict',
        `${MODEL}/cmudict-en-us.dict`,
        '-logfn',
        '/dev/null',
      ],
      { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
    ).toLowerCase();
    process.stdout.write(`composite e2e heard: ${heard.replace(/\n/g, ' | ')}\n`);
    const found = (words: string[]) => words.filter((w) => new RegExp(`\\b${w}\\b`).test(heard));
    expect(found(ALICE.words).length).toBeGreaterThanOrEqual(3);
    expect(found(BOB.words).length).toBeGreaterThanOrEqual(3);

    // Transcribing the meeting reads the tracks recording: one speaker per microphone, each named (requested above).
    const transcriptOf = () => call(svc.url, 'GET', `/api/v1/public/meetings/${meeting.id}/transcript`, key);
    await pollUntil(
      () => 'the transcript',
      async () => (await transcriptOf()).status === 200,
      180_000,
      500,
    );
    const segments = (await transcriptOf()).body.segments as { speaker: string; text: string }[];
    expect([...new Set(segments.map((segment) => segment.speaker))].sort()).toEqual([ALICE.name, BOB.name].sort());
    expect(
      segments
        .filter((segment) => segment.speaker === BOB.name)
        .map((segment) => segment.text)
        .join(' '),
    ).toMatch(/customers/);

    // It plays in Chromium's <video>: time advances and frames decode.
    const viewer = await openPlayer(browsers[0]!, downloadUrl);
    pages.push(viewer);
    const playback = (await viewer.page.evaluate(`(async () => {
      const video = document.querySelector('video');
      await video.play();
      const t0 = video.currentTime;
      await new Promise((resolve) => {
        const give = setTimeout(resolve, 10000);
        const check = () => (video.currentTime > t0 + 1.5 ? (clearTimeout(give), resolve()) : setTimeout(check, 100));
        check();
      });
      return { time: video.currentTime, frames: video.getVideoPlaybackQuality().totalVideoFrames, width: video.videoWidth, error: video.error ? video.error.message : null };
    })()`)) as { time: number; frames: number; width: number; error: string | null };
    expect(playback).toMatchObject({ error: null, width: 640 });
    expect(playback.time).toBeGreaterThan(1.5);
    expect(playback.frames).toBeGreaterThan(10);
  });
});

/** A blank page with a muted <video> of `url` (a page of its own, so the service's pages are not involved). */
async function openPlayer(browser: Browser, url: string): Promise<RoomPage> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.setContent(`<video muted playsinline preload="auto" src="${url}"></video>`);
  return { page, context, logs: [], close: () => context.close() };
}
