import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { joinRoom as joinSocket, type RoomClient } from '@svc/service/testing';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Caption, JoinCredential } from '../service/src/rooms/room.protocol';
import {
  createMeeting,
  freePort,
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

jest.setTimeout(240_000);

/** What each fake microphone says, over and over (Chromium loops the file), with a pause after it. */
const ROBERT = 'Grace will write the release notes by Thursday.';
const DANA = 'We decided to launch the billing service on Friday.';

/** An embedding page on another origin that frames `src` and records the room's protocol events, as docs/embed-protocol.md shows. */
function hostPage(src: string, serviceOrigin: string): string {
  return `<!doctype html><html><head><title>Host</title></head><body>
<iframe id="room" title="Meeting" src="${src}" allow="camera; microphone; autoplay" style="width:960px;height:640px;border:0"></iframe>
<script>
  window.__events = [];
  const room = document.getElementById('room');
  window.addEventListener('message', (event) => {
    if (event.source !== room.contentWindow || event.origin !== ${JSON.stringify(serviceOrigin)}) return;
    const m = event.data;
    if (m && m.source === 'svc-embed' && m.v === 1 && m.dir === 'event') window.__events.push(m);
  });
</script></body></html>`;
}

/** flite's `voice` saying `text`, then 2 s of silence, as the 48 kHz wav Chromium's fake microphone plays. */
function voiceFile(dir: string, voice: string, text: string): string {
  const raw = path.join(dir, `${voice}-raw.wav`);
  const wav = path.join(dir, `${voice}.wav`);
  execFileSync('flite', ['-voice', voice, '-t', text, '-o', raw]);
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', raw, '-af', 'apad=pad_dur=2', '-ar', '48000', '-ac', '1', wav]);
  return wav;
}

type EmbedEvent = { type: string } & Record<string, unknown>;

describe('live captions in a two-browser meeting (real service, mediasoup, ffmpeg, pocketsphinx)', () => {
  let workDir: string;
  let dataDir: string;
  let key: string;
  let svc: ServiceProcess;
  let robertBrowser: Browser;
  let danaBrowser: Browser;
  let hosts: http.Server;
  let hostOrigin: string;
  let robert: RoomPage | undefined;
  let danaContext: BrowserContext | undefined;
  let guestSocket: RoomClient | undefined;

  beforeAll(async () => {
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-captions-'));
    dataDir = tempDataDir();
    key = unlimitedKey(dataDir);
    // A fixed port, so that embed_url (built from the base URL) points at this process.
    const port = await freePort();
    hosts = http.createServer((req, res) => {
      const src = new URL(req.url ?? '/', 'http://host').searchParams.get('src') ?? '';
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(hostPage(src, `http://127.0.0.1:${port}`));
    });
    await new Promise<void>((resolve) => hosts.listen(0, '127.0.0.1', resolve));
    hostOrigin = `http://localhost:${(hosts.address() as AddressInfo).port}`;
    const fake = (wav: string) => [`--use-file-for-fake-audio-capture=${wav}`];
    [svc, robertBrowser, danaBrowser] = await Promise.all([
      startService(dataDir, roomServiceEnv({ PORT: String(port), SVC_BASE_URL: `http://127.0.0.1:${port}` })),
      launchBrowser({ extraArgs: fake(voiceFile(workDir, 'rms', ROBERT)) }),
      launchBrowser({ extraArgs: fake(voiceFile(workDir, 'slt', DANA)) }),
    ]);
  }, 90_000);

  afterAll(async () => {
    guestSocket?.close();
    await robert?.close();
    await danaContext?.close();
    await robertBrowser?.close();
    await danaBrowser?.close();
    hosts?.close();
    await svc?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(workDir, { recursive: true, force: true });
  });

  const api = async (method: string, p: string, body?: unknown) => {
    const res = await call(svc.url, method, `/api/v1/public${p}`, key, body);
    if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const captionLines = (page: Page) => page.getByTestId('caption-line').allTextContents();
  const embedEvents = (page: Page) => page.evaluate('window.__events') as Promise<EmbedEvent[]>;

  it("shows each speaker's captions with their name in the other's room and in the embed's caption events; a guest cannot switch them", async () => {
    const meeting = await createMeeting(svc.url, key, { title: 'Release planning' });
    await api('PUT', `/meetings/${meeting.code}/embed-origins`, { origins: [hostOrigin] });
    const { embed_url: embedUrl } = (await api('POST', '/embed/tokens', { meeting: meeting.code, name: 'Dana White' })) as {
      embed_url: string;
    };

    // Robert, the host, in his browser (rms voice); Dana, a guest, embedded in a page of another site in hers (slt voice).
    robert = await openPage(robertBrowser, await hostLink(svc.url, key, meeting.id, 'Robert Brown'));
    expect(await joinRoom(robert.page)).toBe('room');
    danaContext = await danaBrowser.newContext({ viewport: { width: 1000, height: 700 } });
    const dana = await danaContext.newPage();
    const frameSrc = `${embedUrl}${embedUrl.includes('?') ? '&' : '?'}origin=${encodeURIComponent(hostOrigin)}`;
    await dana.goto(`${hostOrigin}/host?${new URLSearchParams({ src: frameSrc })}`);
    const danaRoom = dana.frameLocator('#room');
    await danaRoom.getByRole('button', { name: 'Join', exact: true }).click();
    await danaRoom.getByTestId('room').waitFor({ timeout: 20_000 });

    // A guest sees no CC button while captions are off, and the service refuses a guest's setCaptions at the socket.
    expect(await danaRoom.getByTestId('toggle-captions').isVisible()).toBe(false);
    const credential = (await call(svc.url, 'POST', `/rooms/v1/${meeting.code}/credentials`, undefined, { name: 'Gus' }))
      .body as JoinCredential;
    guestSocket = (await joinSocket(credential)).client;
    const refused = await guestSocket.call('setCaptions', { on: true });
    expect(refused).toMatchObject({ ok: false, error: { code: 'insufficient_scope' } });

    // The host switches captions on from the toolbar; the keyboard reaches the button.
    const cc = robert.page.getByTestId('toggle-captions');
    await cc.focus();
    await robert.page.keyboard.press('Enter');
    await pollUntil('the CC button to be pressed', async () => (await cc.getAttribute('aria-pressed')) === 'true', 10_000);
    await danaRoom.getByTestId('captions').waitFor({ state: 'visible', timeout: 10_000 });
    expect(await guestSocket.next('captions')).toEqual({ active: true });

    // Each fake microphone loops its sentence: both are captioned, named after their speaker, in the other's room.
    const heard = (lines: string[], name: string, words: RegExp) => lines.some((line) => line.startsWith(`${name}: `) && words.test(line));
    let seen: string[] = [];
    await pollUntil(
      () => `Robert's words in Dana's room (saw ${JSON.stringify(seen)})`,
      async () => heard((seen = await danaRoom.getByTestId('caption-line').allTextContents()), 'Robert Brown', /release notes/),
      60_000,
      200,
    );
    await pollUntil(
      () => `Dana's words in Robert's room (saw ${JSON.stringify(seen)})`,
      async () => heard((seen = await captionLines(robert!.page)), 'Dana White', /billing service|friday/),
      60_000,
      200,
    );
    // The embedding page hears the captions as protocol events.
    const captions = (await embedEvents(dana)).filter((e) => e.type === 'caption') as unknown as Caption[];
    const people = (await api('GET', `/meetings/${meeting.id}/participants`)).data as { id: string; name: string }[];
    expect(captions.find((c) => c.speaker === 'Robert Brown' && /release notes/.test(c.text))).toMatchObject({
      final: true,
      participant_id: people.find((p) => p.name === 'Robert Brown')!.id,
      at: expect.any(String),
    });
    // Everyone in the room gets them: the third participant's socket has both speakers'.
    expect(new Set(guestSocket.all('caption').map((c) => c.speaker))).toEqual(new Set(['Robert Brown', 'Dana White']));

    await robert.page.evaluate("document.documentElement.dataset.theme = 'light'");
    await saveScreenshot(robert.page, 'captions-desktop-light');
    await robert.page.evaluate("document.documentElement.dataset.theme = 'dark'");
    await saveScreenshot(robert.page, 'captions-desktop-dark');
    await robert.page.setViewportSize({ width: 390, height: 844 });
    await saveScreenshot(robert.page, 'captions-phone-dark');
    await robert.page.evaluate("document.documentElement.dataset.theme = 'light'");
    await saveScreenshot(robert.page, 'captions-phone-light');
    await saveScreenshot(dana, 'captions-embedded');

    // Off again: the bar goes away for everyone.
    await robert.page.setViewportSize({ width: 1280, height: 800 });
    await cc.click();
    await danaRoom.getByTestId('captions').waitFor({ state: 'hidden', timeout: 10_000 });
    expect(await guestSocket.next('captions', 1)).toEqual({ active: false });
  });
});
