import { startReceiver, type TestReceiver } from '@svc/service/testing';
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

jest.setTimeout(120_000);

/** The scripted meeting: a decision and an action item with its owner and due date. */
export const RECORDING_SCRIPT =
  'Good morning everyone. We decided to ship the beta on Monday. ' +
  'Alice will write the release notes by Friday. Bob will test the installer on Linux.';

/** Where the recorded webm is kept for the transcription tests (test/artifacts is not committed). */
export const RECORDED_WEBM = path.join(ARTIFACTS_DIR, 'recording-e2e.webm');

function seconds(file: string): number {
  return Number(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file], { encoding: 'utf8' }));
}

function streamsOf(file: string): string[] {
  const out = execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_type', '-of', 'csv=p=0', file], { encoding: 'utf8' });
  return out.split('\n').filter(Boolean);
}

describe('recording a meeting spoken by flite in Chromium', () => {
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
    const raw = path.join(workDir, 'speech-raw.wav');
    speech = path.join(workDir, 'speech.wav');
    execFileSync('flite', ['-voice', 'rms', '-t', RECORDING_SCRIPT, '-o', raw]);
    // Chromium's fake capture plays the file at 48 kHz best.
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', raw, '-ar', '48000', '-ac', '1', speech]);
    dataDir = tempDataDir();
    key = unlimitedKey(dataDir);
    [svc, browser, receiver] = await Promise.all([
      startService(dataDir, roomServiceEnv({ SVC_ALLOW_INSECURE_WEBHOOKS: 'true' })),
      launchBrowser({ extraArgs: [`--use-file-for-fake-audio-capture=${speech}`] }),
      startReceiver(() => ({ status: 204 })),
    ]);
    const endpoint = await call(svc.url, 'POST', '/api/v1/public/webhook-endpoints', key, {
      url: receiver.url,
      events: ['recording.ready'],
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

  it('the host records from the toolbar; the webm downloads by its signed URL with ranges, lasts as long as recorded and is not silent', async () => {
    const speechSeconds = seconds(speech);
    const meeting = await createMeeting(svc.url, key, { title: 'Beta planning' });
    host = await openPage(browser, await hostLink(svc.url, key, meeting.id, 'Hana Host'));
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
    // The fake microphone loops the script: record it once through, and a little more.
    await pollUntil(
      () => 'the whole script to be spoken',
      () => Date.now() - started > (speechSeconds + 1) * 1000,
      (speechSeconds + 5) * 1000,
      200,
    );
    await record.click();
    const stopped = Date.now();
    await host.page.locator('.rec-badge').waitFor({ state: 'hidden', timeout: 15_000 });

    await eventually(() => {
      const ready = receiver.requests.filter((r) => JSON.parse(r.rawBody.toString()).type === 'recording.ready');
      expect(ready).toHaveLength(1);
    }, 20_000);
    const list = await call(svc.url, 'GET', `/api/v1/public/meetings/${meeting.id}/recordings`, key);
    expect(list.body.data).toHaveLength(1);
    const recording = list.body.data[0];
    expect(recording).toMatchObject({ kind: 'video', status: 'ready', content_type: 'video/webm' });
    const recordedFor = (stopped - started) / 1000;
    expect(recording.duration_seconds).toBeGreaterThan(speechSeconds);
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
    fs.writeFileSync(RECORDED_WEBM, bytes);
    const streams = streamsOf(RECORDED_WEBM);
    expect(streams).toContain('audio');
    expect(streams).toContain('video');

    // What transcription will get: 16 kHz mono, and the speech is in it.
    const mono = path.join(workDir, 'recording-16k.wav');
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', RECORDED_WEBM, '-map', '0:a:0', '-ac', '1', '-ar', '16000', mono]);
    const detect = spawnSync('ffmpeg', ['-i', mono, '-af', 'volumedetect', '-f', 'null', '-'], { encoding: 'utf8' });
    const mean = Number(/mean_volume: (-?[\d.]+) dB/.exec(detect.stderr)?.[1]);
    expect(mean).toBeGreaterThan(-60);
    expect(seconds(mono)).toBeGreaterThan(speechSeconds);
  });
});
