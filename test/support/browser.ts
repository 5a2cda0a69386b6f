import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type FrameLocator, type Page } from 'playwright-core';
import { call } from './service-process';

/** Debian's chromium, installed by scripts/ensure-chromium.sh (never playwright's own download). */
export const CHROMIUM_PATH = process.env.SVC_CHROMIUM_PATH || '/usr/bin/chromium';

/** Where browser tests save their screenshots (git-ignored). */
export const ARTIFACTS_DIR = path.resolve(__dirname, '../artifacts');

/** Flags that make headless Chromium capture from fake devices without prompts and run WebRTC on loopback. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--use-fake-device-for-media-stream',
  '--use-fake-ui-for-media-stream',
  '--allow-loopback-in-peer-connection',
  '--autoplay-policy=no-user-gesture-required',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-renderer-backgrounding',
  '--disable-background-timer-throttling',
  '--disable-backgrounding-occluded-windows',
];

/**
 * Launches headless Chromium; each `openPage` gets its own context (a fresh profile). With `blockDevices` the
 * browser refuses camera and microphone, as when a user clicks "Block"; `extraArgs` are added to the flags, `env` replaces
 * the browser's environment (a HOME whose NSS database trusts a test CA).
 */
export function launchBrowser(opts: { blockDevices?: boolean; extraArgs?: string[]; env?: Record<string, string> } = {}): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM_PATH)) throw new Error(`${CHROMIUM_PATH} is missing: run scripts/ensure-chromium.sh (npm test does)`);
  const args = opts.blockDevices
    ? [...CHROMIUM_ARGS.filter((a) => a !== '--use-fake-ui-for-media-stream'), '--deny-permission-prompts']
    : CHROMIUM_ARGS;
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: [...args, ...(opts.extraArgs ?? [])], env: opts.env });
}

/** A page in a fresh browser context, with what it logged (errors, warnings, signalling in short) kept for failure messages. */
export interface RoomPage {
  page: Page;
  context: BrowserContext;
  logs: string[];
  close(): Promise<void>;
}

/** Opens `url` in a new context (1280x800 unless `viewport` says otherwise) and waits for the page's first screen. */
export async function openPage(browser: Browser, url: string, viewport = { width: 1280, height: 800 }): Promise<RoomPage> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const logs: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error' || msg.type() === 'warning') logs.push(`${msg.type()}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => logs.push(`pageerror: ${err.message}`));
  // The signalling, in short (request methods, response ids, notification names), for failure messages.
  page.on('websocket', (ws) => {
    const short = (dir: string, payload: string | Buffer) => {
      const text = payload.toString();
      const m = /"(?:method|notification)":"(\w+)"/.exec(text) ?? /"id":(\d+),"ok":(true|false)/.exec(text);
      logs.push(`ws ${dir} ${m ? m.slice(1).join(' ') : text.slice(0, 60)}`);
    };
    ws.on('framesent', (f) => short('>', f.payload));
    ws.on('framereceived', (f) => short('<', f.payload));
    ws.on('close', () => logs.push('ws closed'));
  });
  await page.goto(url);
  await page.locator('[data-testid=prejoin], [data-testid=unavailable]').first().waitFor({ timeout: 15_000 });
  return { page, context, logs, close: () => context.close() };
}

/** Fills the name (unless left as `?name=` put it) and clicks Join; resolves once the page is in the room or waiting. */
export async function joinRoom(page: Page, name?: string): Promise<'room' | 'waiting'> {
  if (name !== undefined) await page.getByLabel('Your name').fill(name);
  await page.getByRole('button', { name: 'Join', exact: true }).click();
  return waitForScreen(page);
}

/** Waits for the room or the waiting screen (at most `timeoutMs`) and says which. */
export async function waitForScreen(page: Page, timeoutMs = 20_000): Promise<'room' | 'waiting'> {
  const screen = page.locator('[data-testid=room], [data-testid=waiting]').first();
  try {
    await screen.waitFor({ timeout: timeoutMs });
  } catch (err) {
    const shown = await page
      .locator('[role=alert], [data-testid=left], [data-testid=unavailable]')
      .allTextContents()
      .catch(() => []);
    throw new Error(
      `Neither the room nor the waiting screen showed; the page says ${JSON.stringify(shown.filter(Boolean))}: ${String(err)}`,
    );
  }
  return (await screen.getAttribute('data-testid')) as 'room' | 'waiting';
}

/** The parts of the page's global scope that functions run in the page use (the test project has no DOM types). */
interface PageScope {
  document: {
    querySelector(selector: string): { textContent: string | null; readyState?: number } | null;
    querySelectorAll(selector: string): { length: number };
  };
  __svcRoom: {
    peerId(): string | null;
    receiveStats(): Promise<ReceiveStats>;
    timings(): { joinClickedAt: number | null; firstRemoteFrameAt: number | null };
  };
}

/** Receive-side totals the page reports through its `window.__svcRoom` test handle. */
export interface ReceiveStats {
  peerId: string | null;
  transportId: string | null;
  audio: { bytesReceived: number; packetsReceived: number; streams: number };
  video: { bytesReceived: number; framesDecoded: number; streams: number; frameWidth: number };
}

/** The page's current receive statistics. */
export function receiveStats(page: Page): Promise<ReceiveStats> {
  return page.evaluate(() => (globalThis as unknown as PageScope).__svcRoom.receiveStats());
}

/** The page's own peer id in the room (null before it joined). */
export function peerIdOf(page: Page): Promise<string | null> {
  return page.evaluate(() => (globalThis as unknown as PageScope).__svcRoom.peerId());
}

/** Waits until the element `selector` has exactly the text `text`. */
export async function waitForText(page: Page, selector: string, text: string, timeoutMs = 15_000): Promise<void> {
  await page.waitForFunction(
    ([sel, t]) => (globalThis as unknown as PageScope).document.querySelector(sel)?.textContent === t,
    [selector, text] as const,
    {
      timeout: timeoutMs,
    },
  );
}

/** Waits until the pre-join preview plays the camera. */
export async function waitForPreview(page: Page, timeoutMs = 10_000): Promise<void> {
  await page.waitForFunction(() => (globalThis as unknown as PageScope).document.querySelector('.preview-video')?.readyState === 4, null, {
    timeout: timeoutMs,
  });
}

/** Polls `check` every `intervalMs` until it returns a value other than undefined/false, for at most `timeoutMs`. */
export async function pollUntil<T>(
  what: string | (() => string),
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs: number,
  intervalMs = 100,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > until) {
      const label = typeof what === 'string' ? what : what();
      throw new Error(`${label}: not within ${timeoutMs} ms${last ? ` (last error: ${String(last)})` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Waits until the page receives audio and video bytes and decodes at least `frames` more video frames than
 * when the wait began (so media is flowing now, not only once); resolves with the last statistics.
 */
export async function waitForMediaFlowing(
  page: Page,
  opts: { frames?: number; timeoutMs?: number; sinceTransport?: string } = {},
): Promise<ReceiveStats> {
  const frames = opts.frames ?? 10;
  let base: ReceiveStats | null = null;
  let last: ReceiveStats | null = null;
  return pollUntil(
    () => `audio and video received and decoded (first ${JSON.stringify(base)}, last ${JSON.stringify(last)})`,
    async () => {
      const s = await receiveStats(page);
      last = s;
      if (opts.sinceTransport && s.transportId === opts.sinceTransport) return false;
      if (!base || base.transportId !== s.transportId) base = s;
      return s.audio.bytesReceived > 0 && s.video.bytesReceived > 0 && s.video.framesDecoded >= base.video.framesDecoded + frames && s;
    },
    opts.timeoutMs ?? 20_000,
    200,
  );
}

/**
 * Clicks Join and measures the time to the first remote video frame: from the click to the first frame
 * the page rendered (requestVideoFrameCallback), or to the first decoded frame the statistics show if
 * the page could not tell. Needs someone already in the room sending video. Used by the benchmark too.
 */
export async function joinAndTimeFirstFrame(page: Page, name?: string, timeoutMs = 20_000): Promise<number> {
  if (name !== undefined) await page.getByLabel('Your name').fill(name);
  const clickedAt = Date.now();
  await page.getByRole('button', { name: 'Join', exact: true }).click();
  await pollUntil('a remote video frame', async () => (await receiveStats(page)).video.framesDecoded > 0, timeoutMs, 20);
  const decodedAfter = Date.now() - clickedAt;
  const timings = await page.evaluate(() => (globalThis as unknown as PageScope).__svcRoom.timings());
  if (timings.joinClickedAt !== null && timings.firstRemoteFrameAt !== null)
    return Math.round(timings.firstRemoteFrameAt - timings.joinClickedAt);
  return decodedAfter;
}

/** Saves a screenshot of the page to test/artifacts/<name>.png and returns its path. */
export async function saveScreenshot(page: Page, name: string, opts: { fullPage?: boolean } = {}): Promise<string> {
  fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const file = path.join(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: opts.fullPage ?? false });
  return file;
}

/** Waits until `selector` matches exactly `count` elements. */
export async function waitForCount(page: Page, selector: string, count: number, timeoutMs = 15_000): Promise<void> {
  await page.waitForFunction(
    ([sel, n]) => (globalThis as unknown as PageScope).document.querySelectorAll(sel).length === n,
    [selector, count] as const,
    {
      timeout: timeoutMs,
    },
  );
}

/** A random block of `size` ports in 41000-59000, so test files running at once use different RTC ports. */
export function randomPortRange(size = 20): { min: number; max: number } {
  const min = 41_000 + Math.floor(Math.random() * ((59_000 - 41_000 - size) / size)) * size;
  return { min, max: min + size - 1 };
}

/** Environment for a service that runs rooms in tests: one media worker on its own random port block, on loopback. */
export function roomServiceEnv(extra: Record<string, string> = {}): Record<string, string> {
  const ports = randomPortRange(20);
  return {
    SVC_RTC_WORKERS: '1',
    SVC_RTC_MIN_PORT: String(ports.min),
    SVC_RTC_MAX_PORT: String(ports.max),
    SVC_RTC_LISTEN_IP: '127.0.0.1',
    ...extra,
  };
}

/** A meeting as the REST API returns it (the fields the room tests use). */
export interface CreatedMeeting {
  id: string;
  code: string;
  title: string;
  status: string;
  join_url: string;
}

/** Creates a meeting through the public API and checks it was created. */
export async function createMeeting(url: string, key: string, body: Record<string, unknown>): Promise<CreatedMeeting> {
  const res = await call(url, 'POST', '/api/v1/public/meetings', key, body);
  if (res.status !== 201) throw new Error(`POST /meetings answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as CreatedMeeting;
}

/** The room page of a meeting on this service, with query parameters. */
export function roomUrl(url: string, code: string, query: Record<string, string> = {}): string {
  const qs = new URLSearchParams(query).toString();
  return `${url}/m/${code}${qs ? `?${qs}` : ''}`;
}

/** A host link for the meeting, with `name` added so the pre-join field is filled. */
export async function hostLink(url: string, key: string, meetingId: string, name: string): Promise<string> {
  const res = await call(url, 'POST', `/api/v1/public/meetings/${meetingId}/host-links`, key, {});
  if (res.status !== 201) throw new Error(`POST /host-links answered ${res.status}: ${JSON.stringify(res.body)}`);
  const link = new URL(res.body.url as string);
  link.searchParams.set('name', name);
  // The link carries the service's base URL; tests reach the service at `url`.
  return `${url}${link.pathname}${link.search}`;
}

/** Retries `assertion` (jest expects that throw) every 100 ms until it passes; after `timeoutMs` rethrows its last failure. */
export async function eventually(assertion: () => Promise<void> | void, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      await assertion();
      return;
    } catch (err) {
      if (Date.now() > until) throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A TCP port free on 127.0.0.1 right now (for a service that must come back on the same address). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Clicks the toolbar button `testId` (of a page or an embed's frame); where it folded into "More" (phones, crowded toolbars), through that menu. */
export async function clickTool(page: Page | FrameLocator, testId: string): Promise<void> {
  const button = page.getByTestId(testId);
  if (await button.isVisible()) return button.click();
  await page.getByTestId('more').click();
  await page.getByTestId(`more-${testId}`).click();
}
