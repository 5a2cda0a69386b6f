import { startReceiver, type TestReceiver } from '@svc/service/testing';
import type { Browser, Page } from 'playwright-core';
import {
  createMeeting,
  eventually,
  hostLink,
  joinRoom,
  peerIdOf,
  pollUntil,
  receiveStats,
  roomUrl,
  saveScreenshot,
  waitForCount,
  waitForMediaFlowing,
  waitForText,
} from './support/browser';
import { startEmbedHost, type EmbedHost } from './support/embed-host';
import { roomSuite } from './support/room-suite';
import { call, type ServiceProcess } from './support/service-process';

jest.setTimeout(180_000);

/** The text of the page's "why you are out" heading once it shows. */
async function leftReason(page: Page): Promise<string | null> {
  return page.getByTestId('left-reason').textContent({ timeout: 15_000 });
}

/** The unavailable screen's heading, after checking there is no way to join. */
async function unavailableMessage(page: Page): Promise<{ reason: string | null; title: string | null }> {
  const screen = page.getByTestId('unavailable');
  await screen.waitFor({ timeout: 10_000 });
  expect(await page.getByTestId('join').count()).toBe(0);
  expect(await page.getByRole('button', { name: 'Join' }).count()).toBe(0);
  return { reason: await screen.getAttribute('data-reason'), title: await screen.locator('h1').textContent() };
}

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

/** The names in the host's People list, top to bottom, with the hand order shown next to each (null: hand down). */
async function peopleOrder(page: Page): Promise<[string, string | null][]> {
  const rows = page.locator('[data-testid=participant]');
  const out: [string, string | null][] = [];
  for (let i = 0; i < (await rows.count()); i++) {
    const row = rows.nth(i);
    const name = (await row.locator('.person-name').textContent())!.replace(/(Host|Co-host)$/, '');
    const hand = row.locator('[data-testid=hand-order] > span[aria-hidden=true]');
    out.push([name, (await hand.count()) ? await hand.textContent() : null]);
  }
  return out;
}

/** The page scope the screenshot helpers run in (the test project has no DOM types). */
interface DocScope {
  document: { getAnimations(): { playState: string; constructor: { name: string } }[]; querySelectorAll(s: string): { remove(): void }[] };
}

/**
 * Screenshots of `page` in light and dark (the room follows the viewer's colour scheme), each once the colour
 * transitions have finished; the join toasts are cleared first so they do not cover the panel.
 */
async function lightAndDark(page: Page, name: string): Promise<void> {
  await page.evaluate(() => (globalThis as unknown as DocScope).document.querySelectorAll('.toast').forEach((t) => t.remove()));
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await page.waitForFunction(() =>
      (globalThis as unknown as DocScope).document
        .getAnimations()
        .every((a) => a.constructor.name !== 'CSSTransition' || a.playState === 'finished'),
    );
    await saveScreenshot(page, `${name}-${colorScheme}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** Opens the host's menu for the person called `name` in People and picks `item`. */
async function personAction(page: Page, name: string, item: string): Promise<void> {
  const row = page.locator('[data-testid=participant]', { hasText: name });
  await row.getByTestId('person-menu').click();
  await row.getByTestId(item).click();
}

describe('the room page in Chromium against the real service: hosts, the waiting room, ending; hands, reactions and moderation through the real SFU', () => {
  // One service and browser for the host and the moderation tests (room-moderation.e2e was a second copy of this
  // setup). A fixed port, so that the embed URLs (built from the base URL) point at this process.
  const room = roomSuite({
    fixedBaseUrl: true,
    env: { SVC_ALLOW_INSECURE_WEBHOOKS: 'true', SVC_ROOM_RATE_LIMIT_PER_SECOND: '1000' },
  });
  const { open } = room;
  let svc: ServiceProcess;
  let key: string;
  let browser: Browser;
  let receiver: TestReceiver;
  let embedHost: EmbedHost;

  /** A webinar and one registrant's personal link (`join_url`). */
  const webinarWithRegistrant = async (title: string, slug: string, name: string) => {
    const webinar = await createMeeting(svc.url, key, { title, kind: 'webinar', slug });
    const registration = await call(svc.url, 'POST', `/api/v1/public/webinars/${slug}/registrations`, key, {
      email: `${slug}@example.com`,
      name,
    });
    expect(registration.status).toBe(201);
    return { webinar, invite: new URL(registration.body.join_url as string) };
  };

  beforeAll(async () => {
    ({ svc, key, browser } = room);
    [receiver, embedHost] = await Promise.all([startReceiver(() => ({ status: 204 })), startEmbedHost()]);
    const endpoint = await call(svc.url, 'POST', '/api/v1/public/webhook-endpoints', key, {
      url: receiver.url,
      events: ['meeting.started', 'meeting.ended'],
    });
    expect(endpoint.status).toBe(201);
  }, 60_000);

  afterAll(async () => {
    await embedHost?.close();
    await receiver?.close();
  });

  it('a guest waits until the host admits them, then both see each other', async () => {
    const meeting = await createMeeting(svc.url, key, { title: 'Office hours', settings: { waiting_room: true } });
    const host = await open(await hostLink(svc.url, key, meeting.id, 'Hana Host'));
    expect(await joinRoom(host.page)).toBe('room');
    await expectRole(host.page, 'host');

    const guest = await open(roomUrl(svc.url, meeting.code, { name: 'Gus Guest' }));
    expect(await joinRoom(guest.page)).toBe('waiting');
    expect(await guest.page.getByTestId('waiting').locator('h1').textContent()).toBe('Waiting for the host to let you in');
    await saveScreenshot(guest.page, 'room-waiting');

    const admit = host.page.getByTestId('admit');
    await admit.waitFor({ timeout: 10_000 });
    expect(await host.page.getByTestId('waiting-peer').textContent()).toContain('Gus Guest');
    await saveScreenshot(host.page, 'room-host-admit');
    await admit.click();

    await guest.page.getByTestId('room').waitFor({ timeout: 15_000 });
    for (const [who, page] of [
      ['host', host.page],
      ['guest', guest.page],
    ] as const) {
      await waitForCount(page, '[data-testid=tile]', 2);
      await waitForMediaFlowing(page).catch((err) => {
        throw new Error(`${who}: ${String(err)}\nhost:\n${host.logs.join('\n')}\nguest:\n${guest.logs.join('\n')}`);
      });
    }
    await host.page.getByTestId('waiting-list').waitFor({ state: 'hidden' });
    // Guests get no host controls.
    expect(await guest.page.getByTestId('end-meeting').isVisible()).toBe(false);
  });

  it('a host can turn a waiting guest away', async () => {
    const meeting = await createMeeting(svc.url, key, { title: 'Closed door', settings: { waiting_room: true } });
    const host = await open(await hostLink(svc.url, key, meeting.id, 'Hana Host'));
    expect(await joinRoom(host.page)).toBe('room');
    const guest = await open(roomUrl(svc.url, meeting.code, { name: 'Uninvited' }));
    expect(await joinRoom(guest.page)).toBe('waiting');
    await host.page.getByTestId('deny').click();
    expect(await leftReason(guest.page)).toBe('A host did not let you in');
  });

  it('the host’s End button disconnects everyone, and meeting.started and meeting.ended reach a webhook', async () => {
    const meeting = await createMeeting(svc.url, key, { title: 'All hands' });
    const host = await open(await hostLink(svc.url, key, meeting.id, 'Hana Host'));
    expect(await joinRoom(host.page)).toBe('room');
    const guest = await open(roomUrl(svc.url, meeting.code, { name: 'Gus Guest' }));
    expect(await joinRoom(guest.page)).toBe('room');
    await waitForCount(host.page, '[data-testid=tile]', 2);

    // Remove is offered for the guest, not for the host themself.
    await host.page.getByTestId('open-people').click();
    await eventually(async () => expect(await host.page.getByTestId('remove').count()).toBe(1));

    await host.page.getByTestId('end-meeting').click();
    await host.page.getByTestId('confirm-end-meeting').click();
    expect(await leftReason(host.page)).toBe('The meeting has ended');
    expect(await leftReason(guest.page)).toBe('The meeting has ended');
    await saveScreenshot(guest.page, 'room-ended');
    expect(await guest.page.getByRole('button', { name: 'Rejoin' }).count()).toBe(0);

    const types = () =>
      receiver.requests
        .map((r) => JSON.parse(r.rawBody.toString()) as { type: string; data: { meeting: { id: string } } })
        .filter((e) => e.data.meeting.id === meeting.id)
        .map((e) => e.type);
    await eventually(() => expect(types().sort()).toEqual(['meeting.ended', 'meeting.started']), 15_000);
    expect((await call(svc.url, 'GET', `/api/v1/public/meetings/${meeting.id}`, key)).body.status).toBe('ended');

    // The link now says why nobody can join.
    const late = await open(roomUrl(svc.url, meeting.code, { name: 'Late Larry' }));
    expect(await unavailableMessage(late.page)).toEqual({ reason: 'ended', title: 'This meeting has ended' });
  });

  it('a host removes a participant', async () => {
    const meeting = await createMeeting(svc.url, key, { title: 'Moderated' });
    const host = await open(await hostLink(svc.url, key, meeting.id, 'Hana Host'));
    expect(await joinRoom(host.page)).toBe('room');
    const guest = await open(roomUrl(svc.url, meeting.code, { name: 'Troll' }));
    expect(await joinRoom(guest.page)).toBe('room');
    await host.page.getByTestId('open-people').click();
    await host.page.getByRole('button', { name: 'Remove Troll' }).click();
    expect(await leftReason(guest.page)).toBe('A host removed you from the meeting');
    await waitForCount(host.page, '[data-testid=tile]', 1);
  });

  it('a removed registrant who opens their link again waits, marked for the host, until the host lets them back', async () => {
    const { webinar, invite } = await webinarWithRegistrant('Members only', 'members', 'Rex Registrant');
    const host = await open(await hostLink(svc.url, key, webinar.id, 'Hana Host'));
    expect(await joinRoom(host.page)).toBe('room');
    const first = await open(`${svc.url}${invite.pathname}${invite.search}`);
    expect(await joinRoom(first.page)).toBe('room');
    await host.page.getByTestId('open-people').click();
    await host.page.getByRole('button', { name: 'Remove Rex Registrant' }).click();
    expect(await leftReason(first.page)).toBe('A host removed you from the meeting');

    const back = await open(`${svc.url}${invite.pathname}${invite.search}`);
    expect(await joinRoom(back.page)).toBe('waiting');
    const knock = host.page.getByTestId('waiting-peer');
    await knock.waitFor({ timeout: 10_000 });
    expect(await knock.getByTestId('removed-earlier').textContent()).toBe('Removed earlier by a host');
    await saveScreenshot(host.page, 'room-host-removed-earlier');
    await host.page.getByTestId('admit').click();
    await back.page.getByTestId('room').waitFor({ timeout: 15_000 });
    await waitForText(host.page, '[data-testid=participant-count]', '2');
  });

  it('webinar attendees join through their invitation, watch the host and chat, with no media controls', async () => {
    const { webinar, invite } = await webinarWithRegistrant('Product launch', 'launch', 'Ada Attendee');

    const host = await open(await hostLink(svc.url, key, webinar.id, 'Hana Host'));
    expect(await joinRoom(host.page)).toBe('room');
    const attendee = await open(`${svc.url}${invite.pathname}${invite.search}`);
    expect(await attendee.page.getByTestId('camera-select').count()).toBe(0);
    expect(await joinRoom(attendee.page)).toBe('room');

    const hostPeer = await peerIdOf(host.page);
    await waitForCount(attendee.page, '[data-testid=tile]', 1);
    await attendee.page.locator(`[data-testid=tile][data-peer-id="${hostPeer}"] video`).waitFor({ state: 'visible' });
    await waitForMediaFlowing(attendee.page);
    for (const control of ['toggle-microphone', 'toggle-camera', 'toggle-screen']) {
      expect(await attendee.page.getByTestId(control).isVisible()).toBe(false);
    }
    // The host sees the attendee in the people list, not as a tile; the registration fixed the name.
    await waitForText(host.page, '[data-testid=participant-count]', '2');
    expect(await host.page.locator('[data-testid=tile]').count()).toBe(1);
    await host.page.getByTestId('open-people').click();
    await eventually(async () =>
      expect(await host.page.locator('[data-testid=participant] .person-name').allTextContents()).toContain('Ada Attendee'),
    );

    await attendee.page.getByTestId('open-chat').click();
    await attendee.page.getByTestId('chat-input').fill('When does the beta open?');
    await attendee.page.getByTestId('chat-input').press('Enter');
    await host.page.getByTestId('open-chat').click();
    await eventually(async () =>
      expect(await host.page.getByTestId('chat-message').allTextContents()).toEqual([expect.stringContaining('When does the beta open?')]),
    );
    await saveScreenshot(attendee.page, 'room-webinar-attendee');
  });

  it('unknown, ended (through the API) and cancelled meetings say why, with no Join button', async () => {
    const unknown = await open(`${svc.url}/m/zzz-zzzz-zzz`);
    expect(await unavailableMessage(unknown.page)).toEqual({ reason: 'not_found', title: 'This meeting link doesn’t exist' });
    await saveScreenshot(unknown.page, 'room-unavailable');

    const cancelled = await createMeeting(svc.url, key, { title: 'Cancelled sync', scheduled_at: '2099-01-01T10:00:00Z' });
    expect((await call(svc.url, 'DELETE', `/api/v1/public/meetings/${cancelled.id}`, key)).status).toBe(200);
    const cancelledPage = await open(roomUrl(svc.url, cancelled.code));
    expect(await unavailableMessage(cancelledPage.page)).toEqual({ reason: 'cancelled', title: 'This meeting was cancelled' });

    // Ended over the API while someone is in it: they are told, and the link stops working.
    const live = await createMeeting(svc.url, key, { title: 'Ends by API' });
    const inside = await open(roomUrl(svc.url, live.code, { name: 'Ines' }));
    expect(await joinRoom(inside.page)).toBe('room');
    expect((await call(svc.url, 'PATCH', `/api/v1/public/meetings/${live.id}`, key, { status: 'ended' })).status).toBe(200);
    expect(await leftReason(inside.page)).toBe('The meeting has ended');
    const after = await open(roomUrl(svc.url, live.code));
    expect(await unavailableMessage(after.page)).toEqual({ reason: 'ended', title: 'This meeting has ended' });
  });

  it('host and two guests: hands in order, lower all, reactions on tiles, mute and ask to unmute, permissions, co-host admits, lock', async () => {
    const meeting = await createMeeting(svc.url, key, { title: 'Design review', settings: { waiting_room: true } });
    const host = await open(await hostLink(svc.url, key, meeting.id, 'Hana Host'));
    expect(await joinRoom(host.page)).toBe('room');
    const ann = await open(roomUrl(svc.url, meeting.code, { name: 'Ann Guest' }));
    const bob = await open(roomUrl(svc.url, meeting.code, { name: 'Bob Guest' }));
    for (const guest of [ann, bob]) {
      expect(await joinRoom(guest.page)).toBe('waiting');
      await host.page.getByTestId('admit').first().click();
      await guest.page.getByTestId('room').waitFor({ timeout: 15_000 });
    }
    await waitForCount(host.page, '[data-testid=tile]', 3);
    const annId = (await peerIdOf(ann.page))!;

    // Hands: Bob first, then Ann; the host's People lists them first, in that order.
    await bob.page.getByTestId('raise-hand').click();
    await eventually(async () => expect(await host.page.getByTestId('hand-count').textContent()).toBe('1'));
    await ann.page.getByTestId('raise-hand').click();
    await eventually(async () => expect(await ann.page.getByTestId('raise-hand').getAttribute('aria-pressed')).toBe('true'));
    await host.page.getByTestId('open-people').click();
    await eventually(async () =>
      expect(await peopleOrder(host.page)).toEqual([
        ['Bob Guest', '1'],
        ['Ann Guest', '2'],
        ['Hana Host (You)', null],
      ]),
    );
    const annRow = host.page.locator('[data-testid=participant]', { hasText: 'Ann Guest' });
    await annRow.getByTestId('person-menu').click();
    await annRow.getByTestId('person-actions').waitFor();
    await lightAndDark(host.page, 'room-moderation-people-desktop');
    await host.page.keyboard.press('Escape');

    // Phone width: People over the stage, then the toolbar's "More" menu with every feature's button.
    await host.page.setViewportSize(PHONE);
    await lightAndDark(host.page, 'room-moderation-people-phone');
    await host.page.getByTestId('open-people').evaluate((el) => (el as unknown as { click(): void }).click());
    await host.page.getByTestId('more').click();
    const more = host.page.getByTestId('more-menu');
    await more.waitFor();
    const items = await more.getByRole('menuitemcheckbox').or(more.getByRole('menuitem')).allTextContents();
    expect(items.join('|')).toMatch(/People.*\|.*Raise hand|Raise hand.*\|.*People/);
    // Keyboard: the first item has focus, arrows move, Escape closes and gives focus back to More.
    await host.page.keyboard.press('ArrowDown');
    const focusedLabel = await host.page.evaluate(
      () => (globalThis as unknown as { document: { activeElement: { textContent: string } } }).document.activeElement.textContent,
    );
    expect(items).toContain(focusedLabel);
    await lightAndDark(host.page, 'room-moderation-more-phone');
    await host.page.keyboard.press('Escape');
    await more.waitFor({ state: 'hidden' });
    expect(
      await host.page
        .getByTestId('more')
        .evaluate((el) => el === (el.ownerDocument as unknown as { activeElement: unknown }).activeElement),
    ).toBe(true);
    await host.page.setViewportSize(DESKTOP);
    if (!(await host.page.getByTestId('participant-list').isVisible())) await host.page.getByTestId('open-people').click();

    await host.page.getByTestId('lower-all-hands').click();
    await eventually(async () => expect(await host.page.getByTestId('hand-order').count()).toBe(0));
    await eventually(async () => expect(await ann.page.getByTestId('raise-hand').getAttribute('aria-pressed')).toBe('false'));

    // A reaction shows on Ann's tile on the others' pages.
    await ann.page.getByTestId('reactions').click();
    await ann.page.getByTestId('reaction-👏').click();
    for (const page of [host.page, bob.page]) {
      await page
        .locator(`.tile[data-peer-id="${annId}"] [data-testid=tile-reaction]`, { hasText: '👏' })
        .first()
        .waitFor({ timeout: 10_000 });
    }
    await saveScreenshot(bob.page, 'room-moderation-reaction');

    // Mute: the service pauses Ann's microphone; her page and Bob's show it muted.
    const annMicOnBobsTile = bob.page.locator(`.tile[data-peer-id="${annId}"] .mic-state`).first();
    await eventually(async () => expect(await annMicOnBobsTile.isHidden()).toBe(true));
    await personAction(host.page, 'Ann Guest', 'mute-peer');
    await ann.page.getByTestId('muted-by-host').waitFor({ timeout: 10_000 });
    await eventually(async () => expect(await ann.page.getByTestId('toggle-microphone').getAttribute('aria-pressed')).toBe('true'));
    await eventually(async () => expect(await annMicOnBobsTile.isVisible()).toBe(true));
    // Asking does not unmute: Ann sees the request and accepts it herself.
    await personAction(host.page, 'Ann Guest', 'ask-unmute');
    await ann.page.getByTestId('unmute-request').waitFor({ timeout: 10_000 });
    await saveScreenshot(ann.page, 'room-moderation-unmute-request');
    expect(await ann.page.getByTestId('toggle-microphone').getAttribute('aria-pressed')).toBe('true');
    await ann.page.getByTestId('accept-unmute').click();
    await eventually(async () => expect(await annMicOnBobsTile.isHidden()).toBe(true));

    // Mute all, measured at the SFU's output: the host's page stops receiving audio (Ann and Bob are paused at the
    // service), and receives it again once Ann unmutes herself.
    const audioBytes = async () => (await receiveStats(host.page)).audio.bytesReceived;
    await host.page.getByTestId('mute-all').click();
    await bob.page.getByTestId('muted-by-host').waitFor({ timeout: 10_000 });
    let previous = -1;
    const silentAt = await pollUntil(
      'no more audio bytes reaching the host',
      async () => {
        const now = await audioBytes();
        const still = now === previous;
        previous = now;
        return still && now;
      },
      15_000,
      1_000,
    );
    await ann.page.getByTestId('toggle-microphone').click();
    await pollUntil('audio reaching the host again', async () => (await audioBytes()) > silentAt + 1_000, 15_000, 250);

    // Screen sharing disallowed for guests: Bob's share button is refused (disabled); the host's is not.
    await host.page.getByTestId('allow-screen').uncheck();
    await eventually(async () => expect(await bob.page.getByTestId('toggle-screen').isDisabled()).toBe(true));
    expect(await host.page.getByTestId('toggle-screen').isDisabled()).toBe(false);

    // Co-host: Bob gets host powers and admits the next guest himself.
    await personAction(host.page, 'Bob Guest', 'make-co-host');
    await bob.page.getByTestId('made-co-host').waitFor({ timeout: 10_000 });
    const cy = await open(roomUrl(svc.url, meeting.code, { name: 'Cy Late' }));
    expect(await joinRoom(cy.page)).toBe('waiting');
    await bob.page.getByTestId('admit').click();
    await cy.page.getByTestId('room').waitFor({ timeout: 15_000 });
    await cy.close();

    // Lock: a new browser cannot get in; everyone in sees the badge.
    await host.page.getByTestId('lock-meeting').click();
    await ann.page.getByTestId('locked-badge').waitFor({ timeout: 10_000 });
    const dee = await open(roomUrl(svc.url, meeting.code, { name: 'Dee Outside' }));
    await dee.page.getByRole('button', { name: 'Join', exact: true }).click();
    await eventually(async () => expect(await dee.page.locator('#join-error').textContent()).toMatch(/locked/), 15_000);
    await saveScreenshot(dee.page, 'room-moderation-locked-refused');
    expect(await host.page.getByTestId('participant-count').textContent()).toBe('3');
  });

  it('embedded: the join command and autoJoin skip the pre-join screen; hand and reaction events arrive', async () => {
    const meeting = await createMeeting(svc.url, key, { title: 'Embedded review' });
    const res = await call(svc.url, 'PUT', `/api/v1/public/meetings/${meeting.code}/embed-origins`, key, {
      origins: [embedHost.origin('localhost')],
    });
    expect(res.status).toBe(200);
    const host = await open(await hostLink(svc.url, key, meeting.id, 'Hana Host'));
    expect(await joinRoom(host.page)).toBe('room');

    type Scope = { __events: { type: string; [k: string]: unknown }[]; __meeting?: Record<string, (...args: unknown[]) => void> };
    const openHost = async (kind: 'esm' | 'react', options: Record<string, unknown>) => {
      const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
      const page = await context.newPage();
      room.track({ page, context, logs: [], close: () => context.close() });
      await page.goto(embedHost.url('localhost', kind, { serviceUrl: svc.url, options: { meetingCode: meeting.code, ...options } }));
      return page;
    };
    const eventsOf = (page: Page) => page.evaluate(() => (globalThis as unknown as Scope).__events);
    const waitForEvent = (page: Page, type: string, match: (e: Record<string, unknown>) => boolean = () => true) =>
      pollUntil(`event ${type}`, async () => (await eventsOf(page)).find((e) => e.type === type && match(e)), 20_000);

    // autoJoin: the room joins once ready, nobody clicks Join.
    const auto = await openHost('esm', { name: 'Eve Embedded', autoJoin: true });
    await waitForEvent(auto, 'joined', (e) => (e.participant as { name: string }).name === 'Eve Embedded');
    // The join command (React ref handle): sent before the room is ready, it is queued and then joins.
    const driven = await openHost('react', { name: 'Rex React' });
    await pollUntil('the React handle', () => driven.evaluate(() => (globalThis as unknown as Scope).__meeting !== undefined), 10_000);
    await driven.evaluate(() => (globalThis as unknown as Scope).__meeting!.join!());
    await waitForEvent(driven, 'joined', (e) => (e.participant as { name: string }).name === 'Rex React');
    await waitForCount(host.page, '[data-testid=tile]', 3);

    // Hands and reactions, driven by the embedding page and seen by everyone.
    await driven.evaluate(() => (globalThis as unknown as Scope).__meeting!.raiseHand!());
    await waitForEvent(driven, 'hand-raised', (e) => e.self === true && e.order === 1);
    await waitForEvent(auto, 'hand-raised', (e) => e.self === false && (e.participant as { name: string }).name === 'Rex React');
    await host.page.getByTestId('open-people').click();
    await eventually(async () => expect((await peopleOrder(host.page))[0]).toEqual(['Rex React', '1']));
    await driven.evaluate(() => (globalThis as unknown as Scope).__meeting!.sendReaction!('🎉'));
    await waitForEvent(driven, 'reaction', (e) => e.self === true && e.emoji === '🎉');
    await waitForEvent(auto, 'reaction', (e) => e.emoji === '🎉' && (e.participant as { name: string }).name === 'Rex React');
    const rexId = ((await eventsOf(driven)).find((e) => e.type === 'reaction')!.participant as { id: string }).id;
    await host.page
      .locator(`.tile[data-peer-id="${rexId}"] [data-testid=tile-reaction]`, { hasText: '🎉' })
      .first()
      .waitFor({ timeout: 10_000 });
    await host.page.getByTestId('lower-all-hands').click();
    await waitForEvent(driven, 'hand-lowered', (e) => e.self === true && e.by === 'Hana Host');
    await auto.evaluate(() => (globalThis as unknown as Scope).__meeting!.lowerHand!());
    expect((await eventsOf(auto)).filter((e) => e.type === 'hand-lowered' && e.self === true)).toEqual([]);
    await saveScreenshot(driven, 'room-moderation-embed-driven');
  });
});

/** The page joined with `role` (hosts see the End meeting button). */
async function expectRole(page: Page, role: 'host' | 'guest'): Promise<void> {
  await page.getByTestId('leave').waitFor();
  expect(await page.getByTestId('end-meeting').isVisible()).toBe(role === 'host');
}
