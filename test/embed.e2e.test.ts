import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { createMeeting, eventually, freePort, launchBrowser, pollUntil, roomServiceEnv, saveScreenshot } from './support/browser';
import { startEmbedHost, type EmbedHost, type HostPageKind } from './support/embed-host';
import { call, startService, tempDataDir, unlimitedKey, type ServiceProcess } from './support/service-process';

jest.setTimeout(90_000);

/** A protocol message as the host page recorded it. */
type Message = { source: string; v: number; dir: string; type: string } & Record<string, unknown>;

/**
 * Host pages on a second origin, written against the protocol alone (no SDK), as docs/embed-protocol.md
 * shows: `/host?src=<embed URL>` frames the room and records its events in `window.__events`;
 * `/host?...&sibling=<url>` adds frames (other windows) next to the room.
 */
function hostPage(src: string, serviceOrigin: string, siblings: string[]): string {
  return `<!doctype html><html><head><title>Host</title></head><body>
<iframe id="room" title="Meeting" src="${src}" allow="camera; microphone; display-capture; autoplay" style="width:960px;height:600px;border:0"></iframe>
${siblings.map((sibling) => `<iframe title="Other" src="${sibling.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"></iframe>`).join('')}
<script>
  window.__events = [];
  const room = document.getElementById('room');
  window.addEventListener('message', (event) => {
    if (event.source !== room.contentWindow || event.origin !== ${JSON.stringify(serviceOrigin)}) return;
    const m = event.data;
    if (m === 'probe') window.__probed = true;
    if (!m || m.source !== 'svc-embed' || m.v !== 1 || m.dir !== 'event') return;
    window.__events.push(m);
  });
  window.__send = (command) => room.contentWindow.postMessage({ source: 'svc-embed', v: 1, dir: 'command', ...command }, ${JSON.stringify(serviceOrigin)});
</script></body></html>`;
}

/** A page in another window that sends `command` to the room frame of its parent (`target`: the targetOrigin it uses). */
function siblingPage(command: Record<string, unknown>, target: string): string {
  return `<!doctype html><html><body><script>
  window.__sendToRoom = () => parent.frames[0].postMessage(${JSON.stringify({ source: 'svc-embed', v: 1, dir: 'command', ...command })}, ${JSON.stringify(target)});
</script></body></html>`;
}

describe('the embedded room in Chromium: allowed origins, tokens and the postMessage protocol v1', () => {
  let svc: ServiceProcess;
  let key: string;
  let browser: Browser;
  let hosts: http.Server;
  let hostPort: number;
  let sdkHost: EmbedHost;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    const dataDir = tempDataDir();
    key = unlimitedKey(dataDir);
    // A fixed port, so that embed_url (built from the base URL) points at this process.
    const port = await freePort();
    const env = { PORT: String(port), SVC_BASE_URL: `http://127.0.0.1:${port}`, SVC_ROOM_RATE_LIMIT_PER_SECOND: '1000' };
    svc = await startService(dataDir, roomServiceEnv(env));
    hosts = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://host');
      const command = url.searchParams.get('command');
      const html = command
        ? siblingPage(JSON.parse(command), url.searchParams.get('target') ?? '*')
        : hostPage(url.searchParams.get('src') ?? '', new URL(svc.url).origin, url.searchParams.getAll('sibling'));
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    });
    await new Promise<void>((resolve) => hosts.listen(0, '127.0.0.1', resolve));
    hostPort = (hosts.address() as AddressInfo).port;
    sdkHost = await startEmbedHost();
    // *.localhost must reach the host server: Chromium resolves it to loopback, pinned here to IPv4.
    browser = await launchBrowser({ extraArgs: ['--host-resolver-rules=MAP *.localhost 127.0.0.1'] });
  });
  afterAll(async () => {
    await browser?.close();
    hosts?.close();
    await sdkHost?.close();
    await svc?.stop();
  });
  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });

  const origin = (host: string) => `http://${host}:${hostPort}`;
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await call(svc.url, method, `/api/v1/public${path}`, key, body);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const meetingWithOrigins = async (origins: string[], body: Record<string, unknown> = {}) => {
    const meeting = await createMeeting(svc.url, key, { title: 'Embedded standup', ...body });
    await api('PUT', `/meetings/${meeting.code}/embed-origins`, { origins });
    return meeting;
  };
  const tokenUrl = async (code: string, extra: Record<string, unknown> = {}) =>
    (await api('POST', '/embed/tokens', { meeting: code, name: 'Ann from Acme', ...extra })).embed_url as string;

  /** Opens the host page at `hostOrigin` framing `src` (with `?origin=` set to the host's origin unless `declared` says otherwise). */
  async function openHost(hostOrigin: string, src: string, opts: { declared?: string; siblings?: string[] } = {}) {
    const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
    contexts.push(context);
    const page = await context.newPage();
    const consoleLines: string[] = [];
    page.on('console', (msg) => consoleLines.push(msg.text()));
    const frameSrc = `${src}${src.includes('?') ? '&' : '?'}origin=${encodeURIComponent(opts.declared ?? hostOrigin)}`;
    const query = new URLSearchParams({ src: frameSrc });
    for (const sibling of opts.siblings ?? []) query.append('sibling', sibling);
    await page.goto(`${hostOrigin}/host?${query}`);
    return { page, consoleLines, room: () => page.frameLocator('#room') };
  }
  const events = (page: Page): Promise<Message[]> => page.evaluate(() => (globalThis as unknown as { __events: Message[] }).__events);
  const waitForEvent = (page: Page, type: string, match: (m: Message) => boolean = () => true) =>
    pollUntil(`event ${type}`, async () => (await events(page)).find((m) => m.type === type && match(m)), 20_000);
  const send = (page: Page, command: Record<string, unknown>) =>
    page.evaluate((c) => (globalThis as unknown as { __send(c: unknown): void }).__send(c), command);
  const roomFrame = (page: Page): Frame => page.frames().find((f) => f.url().startsWith(svc.url))!;

  it('runs the whole protocol for an allowed parent: ready, joined, mute -> media, toggleChat, setTheme, leave -> left', async () => {
    const meeting = await meetingWithOrigins([origin('localhost')]);
    const { page, room } = await openHost(origin('localhost'), await tokenUrl(meeting.code, { features: { participants: false } }));
    await waitForEvent(page, 'ready');
    // The token fixes the name: there is no name field, only Join.
    await room().getByText('You join as Ann from Acme.').waitFor();
    expect(await room().getByLabel('Your name').count()).toBe(0);
    await room().getByRole('button', { name: 'Join', exact: true }).click();
    const joined = await waitForEvent(page, 'joined');
    expect(joined).toMatchObject({
      source: 'svc-embed',
      v: 1,
      dir: 'event',
      participant: { name: 'Ann from Acme', role: 'guest' },
      meeting: { code: meeting.code, title: 'Embedded standup' },
    });
    await waitForEvent(page, 'participant-count', (m) => m.count === 1);
    await waitForEvent(page, 'media', (m) => m.kind === 'audio' && m.on === true);
    // A switched-off feature is not mounted at all: no button, no panel to open by other means.
    expect(await room().locator('[data-testid=open-people]').count()).toBe(0);
    expect(await room().locator('[data-testid=participant-list]').count()).toBe(0);

    await send(page, { type: 'mute' });
    await waitForEvent(page, 'media', (m) => m.kind === 'audio' && m.on === false);
    await send(page, { type: 'mute', kind: 'video' });
    await waitForEvent(page, 'media', (m) => m.kind === 'video' && m.on === false);
    await send(page, { type: 'unmute' });
    await eventually(async () =>
      expect((await events(page)).filter((m) => m.type === 'media' && m.kind === 'audio').at(-1)).toMatchObject({ on: true }),
    );
    await send(page, { type: 'toggleChat' });
    await room().locator('[data-testid=chat-input]').waitFor();
    await send(page, { type: 'setTheme', theme: 'dark' });
    await eventually(async () => expect(await roomFrame(page).locator('html').getAttribute('data-theme')).toBe('dark'));
    await saveScreenshot(page, 'embed-host-joined');

    await send(page, { type: 'leave' });
    expect(await waitForEvent(page, 'left')).toMatchObject({ reason: 'left' });
  });

  it.each<HostPageKind>(['script-tag', 'esm', 'react'])(
    'works through the SDK as %s: ready, joined, mute -> media, leave -> left',
    async (kind) => {
      const meeting = await meetingWithOrigins([sdkHost.origin('localhost')]);
      const { token } = await api('POST', '/embed/tokens', { meeting: meeting.code, name: `Guest via ${kind}` });
      const context = await browser.newContext({ viewport: { width: 1000, height: 760 } });
      contexts.push(context);
      const page = await context.newPage();
      await page.goto(sdkHost.url('localhost', kind, { serviceUrl: svc.url, options: { joinToken: token, theme: 'light', locale: 'en' } }));
      const sdkEvents = (): Promise<Message[]> => page.evaluate('window.__events') as Promise<Message[]>;
      const sdkEvent = (type: string, match: (m: Message) => boolean = () => true) =>
        pollUntil(`SDK event ${type}`, async () => (await sdkEvents()).find((m) => m.type === type && match(m)), 20_000);
      await sdkEvent('ready');
      const room = page.frameLocator('#meeting iframe');
      await room.getByRole('button', { name: 'Join', exact: true }).click();
      expect(await sdkEvent('joined')).toMatchObject({
        participant: { name: `Guest via ${kind}`, role: 'guest' },
        meeting: { code: meeting.code },
      });
      await sdkEvent('media', (m) => m.kind === 'audio' && m.on === true);
      await page.evaluate('window.__meeting.mute()');
      await sdkEvent('media', (m) => m.kind === 'audio' && m.on === false);
      if (kind === 'react') await saveScreenshot(page, 'embed-sdk-react-light');
      await page.evaluate('window.__meeting.leave()');
      expect(await sdkEvent('left')).toMatchObject({ reason: 'left' });
    },
  );

  it('takes a bare meeting code through the SDK: the name option pre-fills the field, switched-off features are not mounted', async () => {
    const meeting = await meetingWithOrigins([sdkHost.origin('localhost')]);
    const context = await browser.newContext({ viewport: { width: 1000, height: 760 } });
    contexts.push(context);
    const page = await context.newPage();
    const options = { meetingCode: meeting.code, name: 'Bea Bare', locale: 'fr', features: { chat: false } };
    await page.goto(sdkHost.url('localhost', 'script-tag', { serviceUrl: svc.url, options }));
    const sdkEvent = (type: string) =>
      pollUntil(
        `SDK event ${type}`,
        async () => ((await page.evaluate('window.__events')) as Message[]).find((m) => m.type === type),
        20_000,
      );
    await sdkEvent('ready');
    const room = page.frameLocator('#meeting iframe');
    expect(await room.getByLabel('Votre nom').inputValue()).toBe('Bea Bare');
    await room.getByLabel('Votre nom').fill('Bea Bare-Code');
    await room.getByRole('button', { name: 'Participer', exact: true }).click();
    expect(await sdkEvent('joined')).toMatchObject({ participant: { name: 'Bea Bare-Code', role: 'guest' } });
    await room.getByTestId('leave').waitFor();
    expect(await room.getByTestId('open-chat').count()).toBe(0);
    expect(await room.getByTestId('chat-input').count()).toBe(0);
    await expect(room.getByTestId('open-people').count()).resolves.toBe(1);
  });

  it("tells the SDK's error handler when its page is off the list (origin_not_allowed) or its token is bad (token_invalid)", async () => {
    const meeting = await meetingWithOrigins([sdkHost.origin('localhost')]);
    const token = (await api('POST', '/embed/tokens', { meeting: meeting.code, name: 'Ann' })).token as string;
    /** Opens the SDK's script-tag host page on `host` and returns it with its console lines. */
    const openSdkPage = async (host: string, options: Record<string, unknown>) => {
      const context = await browser.newContext({ viewport: { width: 1000, height: 700 } });
      contexts.push(context);
      const page = await context.newPage();
      const consoleLines: string[] = [];
      page.on('console', (msg) => consoleLines.push(msg.text()));
      await page.goto(sdkHost.url(host, 'script-tag', { serviceUrl: svc.url, options }));
      return { page, consoleLines };
    };
    const sdkEvents = (page: Page) => page.evaluate('window.__events') as Promise<Message[]>;
    const sdkError = (page: Page) =>
      pollUntil('an SDK error event', async () => (await sdkEvents(page)).find((m) => m.type === 'error'), 20_000);

    // intruder.localhost is not on the list: the browser refuses the frame (frame-ancestors), and the SDK says why.
    for (const options of [{ meetingCode: meeting.code }, { joinToken: token }]) {
      const intruder = await openSdkPage('intruder.localhost', options);
      expect(await sdkError(intruder.page)).toMatchObject({
        type: 'error',
        reason: 'origin_not_allowed',
        message: expect.stringContaining('intruder.localhost'),
      });
      await pollUntil('the CSP refusal', () => intruder.consoleLines.find((line) => line.includes('frame-ancestors')), 20_000);
      expect((await sdkEvents(intruder.page)).map((m) => m.type)).toEqual(['error']);
    }

    // A token changed on its way: nobody may frame its page, and the SDK says the token is the problem.
    const tampered = await openSdkPage('localhost', { joinToken: `${token}x` });
    expect(await sdkError(tampered.page)).toMatchObject({ reason: 'token_invalid' });

    // From the allowed origin the room comes up and no error is reported.
    const allowed = await openSdkPage('localhost', { meetingCode: meeting.code });
    await pollUntil('ready', async () => (await sdkEvents(allowed.page)).find((m) => m.type === 'ready'), 20_000);
    expect((await sdkEvents(allowed.page)).map((m) => m.type)).toEqual(['ready']);
  });

  it('cannot be displayed by a parent off the list, and with an empty list by nobody', async () => {
    const meeting = await meetingWithOrigins([origin('localhost')]);
    const refused = await openHost(origin('127.0.0.1'), await tokenUrl(meeting.code));
    await pollUntil('the CSP refusal', () => refused.consoleLines.find((line) => line.includes('frame-ancestors')), 20_000);
    expect(await events(refused.page)).toEqual([]);

    const closed = await createMeeting(svc.url, key, { title: 'Not embeddable' });
    const minted = await api('POST', '/embed/tokens', { meeting: closed.code, name: 'Ann' });
    expect(minted.embeddable).toBe(false);
    const nobody = await openHost(origin('localhost'), minted.embed_url);
    await pollUntil('the CSP refusal', () => nobody.consoleLines.find((line) => line.includes('frame-ancestors')), 20_000);
    expect(await events(nobody.page)).toEqual([]);
  });

  it('admits a subdomain through a wildcard entry and refuses the apex', async () => {
    const meeting = await meetingWithOrigins([`http://*.localhost:${hostPort}`]);
    const url = await tokenUrl(meeting.code);
    const sub = await openHost(origin('app.localhost'), url);
    await waitForEvent(sub.page, 'ready');
    const apex = await openHost(origin('localhost'), url);
    await pollUntil('the CSP refusal', () => apex.consoleLines.find((line) => line.includes('frame-ancestors')), 20_000);
    expect(await events(apex.page)).toEqual([]);
  });

  it('ignores commands from another window or an origin off the list, and never posts events to another origin', async () => {
    const meeting = await meetingWithOrigins([origin('localhost'), origin('app.localhost')]);
    const url = await tokenUrl(meeting.code);
    const serviceOrigin = new URL(svc.url).origin;
    // A second frame of the allowed origin (another window) and a frame of an origin off the list both try to leave.
    const leave = encodeURIComponent(JSON.stringify({ type: 'leave' }));
    const siblings = [
      `${origin('localhost')}/sibling?command=${leave}&target=${encodeURIComponent(serviceOrigin)}`,
      `${origin('127.0.0.1')}/sibling?command=${leave}&target=*`,
    ];
    const { page, room } = await openHost(origin('localhost'), url, { siblings });
    await waitForEvent(page, 'ready');
    await room().getByRole('button', { name: 'Join', exact: true }).click();
    await waitForEvent(page, 'joined');
    for (const frame of page.frames().filter((f) => f.url().includes('/sibling?'))) await frame.evaluate('window.__sendToRoom()');
    // Commands of another version or source are ignored as well.
    await page.evaluate(`{
      const frame = document.getElementById('room').contentWindow;
      frame.postMessage({ source: 'svc-embed', v: 2, dir: 'command', type: 'leave' }, ${JSON.stringify(serviceOrigin)});
      frame.postMessage({ source: 'other', v: 1, dir: 'command', type: 'leave' }, ${JSON.stringify(serviceOrigin)});
    }`);
    // The parent's own command after them is obeyed; the room is still there and nobody left.
    await send(page, { type: 'toggleChat' });
    await room().locator('[data-testid=chat-input]').waitFor();
    expect((await events(page)).filter((m) => m.type === 'left')).toEqual([]);
    expect(await room().locator('[data-testid=leave]').isVisible()).toBe(true);

    // Told that its parent is another (allowed) origin, the room posts to that origin only: the real parent gets nothing.
    const misdeclared = await openHost(origin('localhost'), url, { declared: origin('app.localhost') });
    await misdeclared.room().getByRole('button', { name: 'Join', exact: true }).waitFor();
    // Messages from one window arrive in order: once this probe is in, an event posted before it would be too.
    await roomFrame(misdeclared.page).evaluate("parent.postMessage('probe', '*')");
    await pollUntil('the probe', () => misdeclared.page.evaluate('window.__probed === true'), 10_000);
    expect(await events(misdeclared.page)).toEqual([]);
  });

  it('reports the meeting errors: not found, ended and cancelled', async () => {
    const serviceBase = svc.url;
    // The locale in the path picks the room's language.
    const unknown = await openHost(origin('localhost'), `${serviceBase}/de/embed/m/zzz-zzzz-zzz`);
    expect(await waitForEvent(unknown.page, 'error')).toMatchObject({ reason: 'not_found', message: expect.any(String) });
    await unknown.room().getByText('Diesen Meeting-Link gibt es nicht').waitFor();

    const cancelled = await meetingWithOrigins([origin('localhost')], { scheduled_at: '2031-03-01T10:00:00Z' });
    await api('DELETE', `/meetings/${cancelled.id}`);
    const cancelledPage = await openHost(origin('localhost'), `${serviceBase}/en/embed/m/${cancelled.code}`);
    expect(await waitForEvent(cancelledPage.page, 'error')).toMatchObject({ reason: 'cancelled' });

    const ended = await meetingWithOrigins([origin('localhost')]);
    const url = await tokenUrl(ended.code);
    const first = await openHost(origin('localhost'), url);
    await first.room().getByRole('button', { name: 'Join', exact: true }).click();
    await waitForEvent(first.page, 'joined');
    await api('PATCH', `/meetings/${ended.id}`, { status: 'ended' });
    expect(await waitForEvent(first.page, 'left')).toMatchObject({ reason: 'meeting-ended' });
    const later = await openHost(origin('localhost'), url);
    expect(await waitForEvent(later.page, 'error')).toMatchObject({ reason: 'ended' });
    await saveScreenshot(later.page, 'embed-ended');
  });
});
