/**
 * The embed SDK in a real browser, against a fake room on a second origin (test/support/embed-host-pages/fake-room.ts):
 * the iframe URL contract, commands queued until ready, which messages count as events, destroy(), the option
 * checks, and the React component's life cycle. The real room behind the SDK is tested with the service.
 */
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { launchBrowser, pollUntil } from './support/browser';
import { startEmbedHost, type EmbedHost, type HostPageKind } from './support/embed-host';

/** A message as the host page or the fake room recorded it. */
interface RecordedMessage {
  origin: string;
  data: { type?: string; [field: string]: unknown } | null;
  fromMeetingFrame?: boolean;
  fromParent?: boolean;
}

/** The commands of the instance or the React ref handle. */
interface MeetingCommands {
  mute(kind?: string): void;
  unmute(kind?: string): void;
  leave(): void;
  toggleChat(): void;
  setTheme(theme: string): void;
  on?(type: string, handler: (event: unknown) => void): () => void;
  destroy?(): void;
}

/** The host page's globals (see embed-host-pages/host-page.ts), for functions run in the page. */
interface HostScope {
  __events: { type: string; [field: string]: unknown }[];
  __messages: RecordedMessage[];
  __meeting?: MeetingCommands;
  __createError?: string;
  __messageListenerCount(): number;
  __render(props: Record<string, unknown>): void;
  __unmount(): void;
  __seen: string[];
  SvcEmbed: { SvcMeeting: new (options: Record<string, unknown>) => MeetingCommands };
  document: {
    querySelector(selector: string): { src: string; contentWindow: { postMessage(data: unknown, origin: string): void } } | null;
    querySelectorAll(selector: string): { length: number };
    createElement(tag: string): { src: string };
    body: { append(element: unknown): void };
  };
  postMessage(data: unknown, origin: string): void;
}

/** The fake room's globals. */
interface RoomScope {
  __fakeRoom: {
    received: RecordedMessage[];
    event(type: string, fields: Record<string, unknown>): void;
    post(message: unknown, origin: string): void;
  };
}

let browser: Browser;
let hostServer: EmbedHost;
let serviceServer: EmbedHost;
let hostOrigin: string;
let serviceUrl: string;

beforeAll(async () => {
  [hostServer, serviceServer, browser] = await Promise.all([startEmbedHost(), startEmbedHost(), launchBrowser()]);
  hostOrigin = hostServer.origin('localhost');
  serviceUrl = serviceServer.origin('127.0.0.1');
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await hostServer?.close();
  await serviceServer?.close();
});

/** An open host page and its browser context. */
interface HostPage {
  page: Page;
  context: BrowserContext;
  logs: string[];
}

const openPages: HostPage[] = [];
afterEach(async () => {
  for (const { context } of openPages.splice(0)) await context.close();
});

/** Opens the `kind` host page on http://localhost for `options`; waits until the page created its meeting (or failed to). */
async function openHostPage(kind: HostPageKind, options: Record<string, unknown>): Promise<HostPage> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const logs: string[] = [];
  page.on('pageerror', (err) => logs.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => logs.push(`${msg.type()}: ${msg.text()}`));
  const opened = { page, context, logs };
  openPages.push(opened);
  await page.goto(hostServer.url('localhost', kind, { serviceUrl, options }));
  await page.waitForFunction(
    () => (globalThis as unknown as HostScope).__meeting !== undefined || (globalThis as unknown as HostScope).__createError !== undefined,
    null,
    { timeout: 10_000 },
  );
  return opened;
}

/** The fake room frame whose URL starts with `prefix` (the service's by default), once its script runs. */
async function roomFrame(page: Page, prefix = `${serviceUrl}/`): Promise<Frame> {
  const frame = await pollUntil(`a frame at ${prefix}`, () => page.frames().find((f) => f.url().startsWith(prefix)), 10_000);
  await frame.waitForFunction(() => (globalThis as unknown as RoomScope).__fakeRoom !== undefined, null, { timeout: 10_000 });
  return frame;
}

/** Has the fake room say `type` with `fields`, to the origin it was given. */
function roomSays(frame: Frame, type: string, fields: Record<string, unknown> = {}): Promise<void> {
  return frame.evaluate(([t, f]) => (globalThis as unknown as RoomScope).__fakeRoom.event(t, f), [type, fields] as const);
}

function receivedByRoom(frame: Frame): Promise<RecordedMessage[]> {
  return frame.evaluate(() => (globalThis as unknown as RoomScope).__fakeRoom.received);
}

/** Waits until the host page has received a message matching `match` (delivered to the SDK or not) and returns it. */
function waitForHostMessage(page: Page, match: (m: RecordedMessage) => boolean, what: string): Promise<RecordedMessage> {
  return pollUntil(what, async () => (await page.evaluate(() => (globalThis as unknown as HostScope).__messages)).find(match), 10_000);
}

/** Points the meeting's iframe at the fake room on another origin (the service's port as `localhost`); returns that frame. */
async function navigateMeetingFrameElsewhere(page: Page): Promise<{ frame: Frame; origin: string }> {
  const origin = serviceServer.origin('localhost');
  await page.evaluate(
    (url) => {
      (globalThis as unknown as HostScope).document.querySelector('#meeting iframe')!.src = url;
    },
    `${origin}/en/embed/elsewhere?origin=${encodeURIComponent(hostOrigin)}`,
  );
  return { frame: await roomFrame(page, `${origin}/`), origin };
}

const eventTypes = (page: Page) => page.evaluate(() => (globalThis as unknown as HostScope).__events.map((e) => e.type));
const iframeSrc = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as HostScope).document.querySelector('#meeting iframe')?.src ?? null);
const listenerCount = (page: Page) => page.evaluate(() => (globalThis as unknown as HostScope).__messageListenerCount());
const envelope = { source: 'svc-embed', v: 1 };

describe('the iframe', () => {
  it("script tag: a meeting code gives /{locale}/embed/m/{code} with origin, theme, name and the switched-off features; baseUrl is the script's service", async () => {
    const { page } = await openHostPage('script-tag', {
      meetingCode: 'abc-defg-hij',
      name: 'Ada Lovelace & co',
      locale: 'de',
      theme: 'dark',
      features: { chat: false, participants: true, screenshare: false },
    });
    const expected = `${serviceUrl}/de/embed/m/abc-defg-hij?origin=${encodeURIComponent(hostOrigin)}&theme=dark&name=Ada%20Lovelace%20%26%20co&chat=0&screenshare=0`;
    expect(await iframeSrc(page)).toBe(expected);
    await roomFrame(page);
    expect(serviceServer.fakeRoomRequests()).toContain(expected.slice(serviceUrl.length));
    const iframe = page.locator('#meeting iframe');
    const attributes = {
      allow: await iframe.getAttribute('allow'),
      title: await iframe.getAttribute('title'),
      style: await iframe.getAttribute('style'),
    };
    expect(attributes).toEqual({
      allow: 'camera; microphone; display-capture; autoplay; fullscreen',
      title: 'Meeting room',
      style: 'width: 100%; height: 100%; border: 0px;',
    });
    const box = await page.locator('#meeting iframe').boundingBox();
    expect(box).toMatchObject({ width: 800, height: 600 });
  });

  it('ES module: a token gives /{locale}/embed/{token} with only origin and theme (system by default); locale en by default, an unknown one as given', async () => {
    const token = 'svc_et_eyJtIjoiYWJjIn0.c2lnbmF0dXJl';
    const { page } = await openHostPage('esm', { joinToken: token, name: 'Ignored', features: { chat: false } });
    expect(await iframeSrc(page)).toBe(`${serviceUrl}/en/embed/${token}?origin=${encodeURIComponent(hostOrigin)}&theme=system`);
    const other = await openHostPage('esm', { joinToken: token, locale: 'pt-BR', theme: 'light' });
    expect(await iframeSrc(other.page)).toBe(`${serviceUrl}/pt-BR/embed/${token}?origin=${encodeURIComponent(hostOrigin)}&theme=light`);
  });
});

describe('commands', () => {
  it('are queued until ready, then sent in order to the service origin only; later ones go at once', async () => {
    const { page } = await openHostPage('esm', { joinToken: 'svc_et_token' });
    const frame = await roomFrame(page);
    await page.evaluate(() => {
      const meeting = (globalThis as unknown as HostScope).__meeting!;
      meeting.mute();
      meeting.mute('video');
      meeting.toggleChat();
      meeting.setTheme('dark');
    });
    // Nothing reaches the room before it is ready: a message the page posts after the commands arrives first.
    await page.evaluate(() =>
      (globalThis as unknown as HostScope).document.querySelector('#meeting iframe')!.contentWindow.postMessage({ probe: 1 }, '*'),
    );
    await pollUntil('the probe', async () => (await receivedByRoom(frame)).length > 0, 10_000);
    expect((await receivedByRoom(frame)).map((m) => m.data)).toEqual([{ probe: 1 }]);

    await roomSays(frame, 'ready');
    const flushed = await pollUntil(
      'the queued commands',
      async () => {
        const received = await receivedByRoom(frame);
        return received.length >= 5 && received.slice(1);
      },
      10_000,
    );
    expect(flushed).toEqual(
      [{ type: 'mute' }, { type: 'mute', kind: 'video' }, { type: 'toggleChat' }, { type: 'setTheme', theme: 'dark' }].map((command) => ({
        origin: hostOrigin,
        fromParent: true,
        data: { ...envelope, dir: 'command', ...command },
      })),
    );
    expect(await eventTypes(page)).toEqual(['ready']);

    await page.evaluate(() => {
      (globalThis as unknown as HostScope).__meeting!.unmute('video');
      (globalThis as unknown as HostScope).__meeting!.leave();
    });
    const later = await pollUntil(
      'the later commands',
      async () => {
        const received = await receivedByRoom(frame);
        return received.length >= 7 && received.slice(5).map((m) => m.data);
      },
      10_000,
    );
    expect(later).toEqual([
      { ...envelope, dir: 'command', type: 'unmute', kind: 'video' },
      { ...envelope, dir: 'command', type: 'leave' },
    ]);
  });

  it('do not reach the iframe once it shows another origin (never posted to "*")', async () => {
    const { page } = await openHostPage('esm', { joinToken: 'svc_et_token' });
    await roomSays(await roomFrame(page), 'ready');
    await pollUntil('ready', async () => (await eventTypes(page)).includes('ready'), 10_000);
    const { frame } = await navigateMeetingFrameElsewhere(page);
    await page.evaluate(() => {
      (globalThis as unknown as HostScope).__meeting!.mute();
      (globalThis as unknown as HostScope).document.querySelector('#meeting iframe')!.contentWindow.postMessage({ probe: 2 }, '*');
    });
    await pollUntil('the probe', async () => (await receivedByRoom(frame)).length > 0, 10_000);
    expect((await receivedByRoom(frame)).map((m) => m.data)).toEqual([{ probe: 2 }]);
  });
});

describe('events', () => {
  it("only protocol v1 events from the meeting's own iframe at the service origin reach onEvent and on()", async () => {
    const { page } = await openHostPage('esm', { meetingCode: 'abc-defg-hij' });
    const frame = await roomFrame(page);
    await page.evaluate(() => {
      const meeting = (globalThis as unknown as HostScope).__meeting!;
      (globalThis as unknown as HostScope).__seen = [];
      meeting.on!('media', (event) => (globalThis as unknown as HostScope).__seen.push(`media ${JSON.stringify(event)}`));
      const stop = meeting.on!('participant-count', () => (globalThis as unknown as HostScope).__seen.push('participant-count'));
      stop();
    });
    await roomSays(frame, 'ready');
    const bogus = [
      { source: 'other', v: 1, dir: 'event', type: 'joined' },
      { ...envelope, v: 2, dir: 'event', type: 'media', kind: 'audio', on: false },
      { ...envelope, dir: 'command', type: 'mute' },
      { ...envelope, dir: 'event', type: 'no-such-event' },
      'svc-embed',
      null,
    ];
    await frame.evaluate((messages) => messages.forEach((m) => (globalThis as unknown as RoomScope).__fakeRoom.post(m, '*')), bogus);
    await roomSays(frame, 'participant-count', { count: 3 });
    await roomSays(frame, 'media', { kind: 'video', on: true });
    await pollUntil('the media event', async () => (await eventTypes(page)).includes('media'), 10_000);
    expect(await eventTypes(page)).toEqual(['ready', 'participant-count', 'media']);
    const fromFrame = (await page.evaluate(() => (globalThis as unknown as HostScope).__messages))
      .filter((m) => m.fromMeetingFrame)
      .map((m) => m.data);
    expect(fromFrame).toEqual([expect.objectContaining({ type: 'ready' }), ...bogus, expect.anything(), expect.anything()]);
    expect(await page.evaluate(() => (globalThis as unknown as HostScope).__seen)).toEqual([
      `media ${JSON.stringify({ kind: 'video', on: true, ...envelope, dir: 'event', type: 'media' })}`,
    ]);

    // Another window at the service's origin (a second iframe of the same service).
    await page.evaluate(
      (url) => {
        const other = (globalThis as unknown as HostScope).document.createElement('iframe');
        other.src = url;
        (globalThis as unknown as HostScope).document.body.append(other);
      },
      `${serviceUrl}/en/embed/other?origin=${encodeURIComponent(hostOrigin)}`,
    );
    const otherFrame = await roomFrame(page, `${serviceUrl}/en/embed/other`);
    await roomSays(otherFrame, 'joined', {
      participant: { identity: 'x', name: 'Mallory', role: 'host' },
      meeting: { code: 'abc-defg-hij', title: 'T' },
    });
    await waitForHostMessage(
      page,
      (m) => m.data?.type === 'joined' && m.origin === serviceUrl && m.fromMeetingFrame === false,
      "the other frame's event",
    );

    // The host page's own window.
    await page.evaluate((message) => (globalThis as unknown as HostScope).postMessage(message, '*'), {
      ...envelope,
      dir: 'event',
      type: 'left',
      reason: 'removed',
    });
    await waitForHostMessage(page, (m) => m.data?.type === 'left' && m.origin === hostOrigin, "the page's own message");

    // The meeting's own iframe, navigated to another origin.
    const { frame: elsewhereFrame, origin: elsewhere } = await navigateMeetingFrameElsewhere(page);
    await roomSays(elsewhereFrame, 'recording', { active: true, mode: 'started' });
    await waitForHostMessage(
      page,
      (m) => m.data?.type === 'recording' && m.origin === elsewhere && m.fromMeetingFrame === true,
      "the navigated frame's event",
    );

    expect(await eventTypes(page)).toEqual(['ready', 'participant-count', 'media']);
  });
});

describe('the ready timeout', () => {
  const waitInPage = (page: Page, ms: number) => page.evaluate((delay) => new Promise((resolve) => setTimeout(resolve, delay)), ms);

  it("reports error 'timeout' when the room does not say ready within readyTimeoutMs, once, and still delivers a late ready", async () => {
    const { page } = await openHostPage('script-tag', { meetingCode: 'abc-defg-hij', readyTimeoutMs: 400 });
    const frame = await roomFrame(page);
    const error = await pollUntil(
      'the timeout error',
      async () => (await page.evaluate(() => (globalThis as unknown as HostScope).__events)).find((e) => e.type === 'error'),
      10_000,
    );
    expect(error).toMatchObject({
      source: 'svc-embed',
      v: 1,
      dir: 'event',
      type: 'error',
      reason: 'timeout',
      message: expect.stringContaining('0.4 s'),
    });
    await roomSays(frame, 'ready');
    await pollUntil('the late ready', async () => (await eventTypes(page)).includes('ready'), 10_000);
    expect(await eventTypes(page)).toEqual(['error', 'ready']);
  });

  it('says nothing when ready comes in time (a page timer due after the deadline fires after the SDK’s would have)', async () => {
    const { page } = await openHostPage('esm', { baseUrl: serviceUrl, meetingCode: 'abc-defg-hij', readyTimeoutMs: 1_500 });
    await roomSays(await roomFrame(page), 'ready');
    await pollUntil('ready', async () => (await eventTypes(page)).includes('ready'), 10_000);
    await waitInPage(page, 1_500);
    expect(await eventTypes(page)).toEqual(['ready']);
  });

  it('the React component passes readyTimeoutMs on', async () => {
    const { page } = await openHostPage('react', { baseUrl: serviceUrl, meetingCode: 'abc-defg-hij', readyTimeoutMs: 300 });
    await pollUntil('the timeout error', async () => (await eventTypes(page)).includes('error'), 10_000);
    expect((await page.evaluate(() => (globalThis as unknown as HostScope).__events))[0]).toMatchObject({ reason: 'timeout' });
  });
});

describe('destroy()', () => {
  it('removes the iframe and the window listener; later commands do nothing', async () => {
    const { page, logs } = await openHostPage('script-tag', { meetingCode: 'abc-defg-hij' });
    await roomSays(await roomFrame(page), 'ready');
    await pollUntil('ready', async () => (await eventTypes(page)).includes('ready'), 10_000);
    expect(await listenerCount(page)).toBe(1);
    await page.evaluate(() => {
      const meeting = (globalThis as unknown as HostScope).__meeting!;
      meeting.destroy!();
      meeting.mute();
      meeting.leave();
      meeting.destroy!();
    });
    expect(await page.evaluate(() => (globalThis as unknown as HostScope).document.querySelectorAll('#meeting *').length)).toBe(0);
    expect(await listenerCount(page)).toBe(0);
    expect(page.frames()).toHaveLength(1);
    expect(logs.filter((line) => line.startsWith('pageerror'))).toEqual([]);
  });
});

describe('options', () => {
  it('invalid options throw clear errors before anything is added to the page', async () => {
    const { page } = await openHostPage('script-tag', { meetingCode: 'abc-defg-hij' });
    const cases: Record<string, unknown>[] = [
      { meetingCode: 'abc-defg-hij' },
      { container: '#nowhere', meetingCode: 'abc-defg-hij' },
      { container: '##', meetingCode: 'abc-defg-hij' },
      { container: '#meeting' },
      { container: '#meeting', meetingCode: 'abc-defg-hij', joinToken: 'svc_et_x' },
      { container: '#meeting', meetingCode: 'abc-defg-hij', theme: 'blue' },
      { container: '#meeting', meetingCode: 'abc-defg-hij', features: { chat: 'no' } },
      { container: '#meeting', meetingCode: 'abc-defg-hij', baseUrl: 'meet.example.com' },
      { container: '#meeting', meetingCode: 'abc-defg-hij', readyTimeoutMs: -1 },
    ];
    const messages = await page.evaluate((all) => {
      return all.map((options) => {
        try {
          new (globalThis as unknown as HostScope).SvcEmbed.SvcMeeting(options);
          return 'no error';
        } catch (error) {
          return `${(error as Error).name}: ${(error as Error).message}`;
        }
      });
    }, cases);
    expect(messages).toEqual([
      'TypeError: SvcMeeting: container must be a CSS selector or an element',
      'Error: SvcMeeting: no element matches the container selector "#nowhere"',
      'TypeError: SvcMeeting: container "##" is not a valid CSS selector',
      'TypeError: SvcMeeting: meetingCode or joinToken is required',
      'TypeError: SvcMeeting: give either meetingCode or joinToken, not both',
      'TypeError: SvcMeeting: theme must be one of light, dark, system, not "blue"',
      'TypeError: SvcMeeting: features.chat must be true or false',
      'TypeError: SvcMeeting: baseUrl "meet.example.com" is not an absolute URL',
      'TypeError: SvcMeeting: readyTimeoutMs must be a number of milliseconds, 0 or more',
    ]);
    expect(await page.evaluate(() => (globalThis as unknown as HostScope).document.querySelectorAll('#meeting iframe').length)).toBe(1);
    expect(await listenerCount(page)).toBe(1);
    const setTheme = await page.evaluate(() => {
      try {
        (globalThis as unknown as HostScope).__meeting!.setTheme('blue');
        return 'no error';
      } catch (error) {
        return (error as Error).message;
      }
    });
    expect(setTheme).toBe('SvcMeeting: theme must be one of light, dark, system, not "blue"');
  });

  it('the ES module requires baseUrl', async () => {
    const { page } = await openHostPage('esm', { meetingCode: 'abc-defg-hij' });
    const message = await page.evaluate(`import('/sdk/index.js').then(({ SvcMeeting }) => {
      try { new SvcMeeting({ container: '#meeting', meetingCode: 'abc-defg-hij' }); return 'no error'; } catch (error) { return error.message; }
    })`);
    expect(message).toBe("SvcMeeting: baseUrl is required: the service's URL, e.g. https://meet.example.com");
  });
});

describe('React', () => {
  it("creates the room on mount, sends the handle's commands, recreates it for a new token, restyles it for a new theme, destroys it on unmount", async () => {
    const { page } = await openHostPage('react', { joinToken: 'svc_et_first', theme: 'light' });
    const first = await roomFrame(page, `${serviceUrl}/en/embed/svc_et_first?`);
    expect(await iframeSrc(page)).toBe(`${serviceUrl}/en/embed/svc_et_first?origin=${encodeURIComponent(hostOrigin)}&theme=light`);
    await page.evaluate(() => (globalThis as unknown as HostScope).__meeting!.mute());
    await roomSays(first, 'ready');
    await pollUntil('mute', async () => (await receivedByRoom(first)).some((m) => m.data?.type === 'mute'), 10_000);
    await pollUntil('ready', async () => (await eventTypes(page)).includes('ready'), 10_000);

    await page.evaluate(() => (globalThis as unknown as HostScope).__render({ joinToken: 'svc_et_second', theme: 'light' }));
    const second = await roomFrame(page, `${serviceUrl}/en/embed/svc_et_second?`);
    expect(await page.evaluate(() => (globalThis as unknown as HostScope).document.querySelectorAll('#meeting iframe').length)).toBe(1);
    expect(await listenerCount(page)).toBe(1);
    await roomSays(second, 'ready');
    await page.evaluate(() => (globalThis as unknown as HostScope).__render({ joinToken: 'svc_et_second', theme: 'dark' }));
    await pollUntil('setTheme', async () => (await receivedByRoom(second)).some((m) => m.data?.type === 'setTheme'), 10_000);
    expect((await receivedByRoom(second)).map((m) => m.data)).toEqual([{ ...envelope, dir: 'command', type: 'setTheme', theme: 'dark' }]);
    expect(await iframeSrc(page)).toContain('/svc_et_second?');
    expect(await eventTypes(page)).toEqual(['ready', 'ready']);

    await page.evaluate(() => (globalThis as unknown as HostScope).__unmount());
    await pollUntil('the iframe removed', async () => (await iframeSrc(page)) === null, 10_000);
    expect(await listenerCount(page)).toBe(0);
  });
});
