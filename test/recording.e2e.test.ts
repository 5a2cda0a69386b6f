import { bestPassWordErrorRate, MEETING_SCRIPT, speechRecording, startReceiver, type TestReceiver } from '@svc/service/testing';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
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
  saveScreenshot,
  type RoomPage,
} from './support/browser';
import { call, startService, tempDataDir, unlimitedKey, type ServiceProcess } from './support/service-process';

jest.setTimeout(300_000);

/** The scripted meeting: a greeting, a decision, and an action item with its owner (the host) and due date. */
const SCRIPT = [MEETING_SCRIPT[0]!, MEETING_SCRIPT[3]!, MEETING_SCRIPT[4]!];
const EVENTS = ['recording.ready', 'transcript.ready', 'summary.ready'];

/** Where the recording's composite MP4 is kept to look at (test/artifacts is not committed). */
const RECORDED_MP4 = path.join(ARTIFACTS_DIR, 'recording-e2e.mp4');

function seconds(file: string): number {
  return Number(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file], { encoding: 'utf8' }));
}

function streamsOf(file: string): string[] {
  const out = execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_type', '-of', 'csv=p=0', file], { encoding: 'utf8' });
  return out.split('\n').filter(Boolean);
}

describe('a meeting spoken by flite in Chromium: recorded, transcribed, summarized and searchable', () => {
  let dataDir: string;
  let workDir: string;
  let key: string;
  let svc: ServiceProcess;
  let browser: Browser;
  let receiver: TestReceiver;
  let host: RoomPage | undefined;
  let speech: string;

  beforeAll(async () => {
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-recording-'));
    const spoken = path.join(workDir, 'speech.webm');
    speech = path.join(workDir, 'speech.wav');
    speechRecording(SCRIPT, spoken);
    // Chromium's fake capture takes a wav file, and plays it at 48 kHz best.
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', spoken, '-ar', '48000', '-ac', '1', speech]);
    dataDir = tempDataDir();
    key = unlimitedKey(dataDir);
    [svc, browser, receiver] = await Promise.all([
      startService(dataDir, roomServiceEnv({ SVC_ALLOW_INSECURE_WEBHOOKS: 'true' })),
      launchBrowser({ extraArgs: [`--use-file-for-fake-audio-capture=${speech}`] }),
      startReceiver(() => ({ status: 204 })),
    ]);
    const endpoint = await call(svc.url, 'POST', '/api/v1/public/webhook-endpoints', key, {
      url: receiver.url,
      events: EVENTS,
    });
    expect(endpoint.status).toBe(201);
  }, 90_000);

  afterAll(async () => {
    await host?.close();
    await browser?.close();
    await svc?.stop();
    await receiver?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('the host records from the toolbar; the composite MP4 downloads by its signed URL with ranges and lasts as long as recorded; its transcript, summary, search hits and events follow', async () => {
    const speechSeconds = seconds(speech);
    const meeting = await createMeeting(svc.url, key, { title: 'Weekly planning' });
    host = await openPage(browser, await hostLink(svc.url, key, meeting.id, 'Robert Brown'));
    const page = host.page;
    expect(await joinRoom(page)).toBe('room');
    const record = page.getByTestId('toggle-recording');
    await record.waitFor({ timeout: 10_000 });
    // The recording takes the cameras present when it starts: wait until the page sends both.
    await pollUntil(
      () => 'the page to send microphone and camera',
      async () => {
        const sending = (await page.evaluate('window.__svcRoom.sending()')) as string[];
        return sending.includes('microphone') && sending.includes('camera');
      },
      15_000,
    );
    expect(await record.textContent()).toBe('Record');

    await record.click();
    const started = Date.now();
    await host.page.locator('.rec-badge').waitFor({ state: 'visible', timeout: 10_000 });
    await pollUntil(
      () => 'the record button to offer stopping',
      async () => (await record.textContent()) === 'Stop recording',
      10_000,
      100,
    );
    await saveScreenshot(host.page, 'room-recording');
    // The fake microphone loops the script from when it opened: recording two lengths of it holds one whole pass.
    await pollUntil(
      () => 'the whole script to be spoken',
      () => Date.now() - started > (2 * speechSeconds + 1) * 1000,
      (2 * speechSeconds + 5) * 1000,
      200,
    );
    await record.click();
    const stopped = Date.now();
    await host.page.locator('.rec-badge').waitFor({ state: 'hidden', timeout: 15_000 });

    // recording.ready fires once the composite is rendered and verified.
    await eventually(() => {
      const ready = receiver.requests.filter((r) => JSON.parse(r.rawBody.toString()).type === 'recording.ready');
      expect(ready).toHaveLength(1);
    }, 120_000);
    expect(receiver.requests).toHaveLength(1);
    const list = await call(svc.url, 'GET', `/api/v1/public/meetings/${meeting.id}/recordings`, key);
    expect(list.body.data).toHaveLength(2);
    const [recording, tracks] = list.body.data;
    expect(recording).toMatchObject({ kind: 'video', status: 'ready', content_type: 'video/mp4', source_recording_id: tracks.id });
    expect(tracks).toMatchObject({ kind: 'tracks', status: 'ready', content_type: 'video/x-matroska' });
    expect(Math.abs(recording.duration_seconds - tracks.duration_seconds)).toBeLessThanOrEqual(1);
    const recordedFor = (stopped - started) / 1000;
    expect(recording.duration_seconds).toBeGreaterThan(2 * speechSeconds);
    expect(recording.duration_seconds).toBeGreaterThan(recordedFor - 3);
    expect(recording.duration_seconds).toBeLessThan(recordedFor + 1);

    // The signed URL needs no API key, and serves ranges (the service's base URL is not where this test reaches it).
    const signed = new URL(recording.download_url);
    const downloadUrl = `${svc.url}${signed.pathname}${signed.search}`;
    expect(signed.searchParams.get('token')).toBeTruthy();
    const whole = await fetch(downloadUrl);
    expect(whole.status).toBe(200);
    const bytes = Buffer.from(await whole.arrayBuffer());
    expect(bytes.length).toBe(recording.size_bytes);
    const part = await fetch(downloadUrl, { headers: { range: 'bytes=0-99' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 0-99/${bytes.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(0, 100))).toBe(true);
    const tampered = await fetch(downloadUrl.replace(/token=./, (m) => (m.endsWith('a') ? 'token=b' : 'token=a')));
    expect(tampered.status).toBe(401);

    fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
    fs.writeFileSync(RECORDED_MP4, bytes);
    expect(streamsOf(RECORDED_MP4).sort()).toEqual(['audio', 'video']);

    // What transcription will get: 16 kHz mono, and the speech is in it.
    const mono = path.join(workDir, 'recording-16k.wav');
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', RECORDED_MP4, '-map', '0:a:0', '-ac', '1', '-ar', '16000', mono]);
    const detect = spawnSync('ffmpeg', ['-i', mono, '-af', 'volumedetect', '-f', 'null', '-'], { encoding: 'utf8' });
    const mean = Number(/mean_volume: (-?[\d.]+) dB/.exec(detect.stderr)?.[1]);
    expect(mean).toBeGreaterThan(-60);

    // Transcribed by pocketsphinx in the service's job queue.
    expect((await call(svc.url, 'POST', `/api/v1/public/meetings/${meeting.id}/transcript`, key)).status).toBe(202);
    const get = (p: string) => call(svc.url, 'GET', `/api/v1/public/meetings/${meeting.id}${p}`, key);
    await pollUntil(
      () => 'the transcript',
      async () => (await get('/transcript')).status === 200,
      180_000,
      500,
    );
    const transcript = (await get('/transcript')).body;
    const wer = bestPassWordErrorRate(SCRIPT.join(' '), transcript.text);
    process.stdout.write(
      `recording e2e: WER ${wer.toFixed(3)} of the best pass, ${transcript.segments.length} segments: ${transcript.text}\n`,
    );
    expect(wer).toBeLessThanOrEqual(0.25);
    // Times are times into the recording, although the browser sent no audio in the pauses (the speech runs to its end).
    expect(transcript.segments.at(-1).end).toBeLessThanOrEqual(recording.duration_seconds + 0.5);
    expect(transcript.segments.at(-1).end).toBeGreaterThan(recording.duration_seconds - 3);
    // The recorder knew whose microphone it recorded: every segment names the host and their participant.
    const robert = ((await get('/participants')).body.data as { id: string; name: string }[]).find((p) => p.name === 'Robert Brown')!;
    for (const segment of transcript.segments) expect(segment).toMatchObject({ speaker: 'Robert Brown', participant_id: robert.id });

    await pollUntil(
      () => 'the summary',
      async () => (await get('/summary')).status === 200,
      60_000,
      500,
    );
    const summary = (await get('/summary')).body;
    expect(summary.decisions.map((d: { text: string }) => d.text)).toContainEqual(
      expect.stringMatching(/we decided to launch the billing service on friday/i),
    );
    const item = summary.action_items.find((a: { owner: string | null }) => a.owner === 'Robert Brown');
    expect(item).toMatchObject({ text: expect.stringMatching(/update the customer documentation/i), due: expect.any(String) });

    const hits = (await call(svc.url, 'GET', `/api/v1/public/search?q=${encodeURIComponent('customer documentation')}`, key)).body.data;
    expect(hits[0]).toMatchObject({
      meeting: { id: meeting.id },
      source: 'transcript',
      snippet: expect.stringContaining('[customer] [documentation]'),
    });
    expect(transcript.segments[hits[0].segment_index].text).toMatch(/customer documentation/);

    const types = () => receiver.requests.map((r) => JSON.parse(r.rawBody.toString()) as { type: string }).map((e) => e.type);
    await pollUntil(
      () => 'the three events',
      () => types().length >= 3,
      30_000,
      200,
    );
    expect(types()).toEqual(EVENTS);
  });
});
