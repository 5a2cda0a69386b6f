import { startReceiver, type TestReceiver } from '@svc/service/testing';
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import {
  createMeeting,
  eventually,
  hostLink,
  joinRoom,
  launchBrowser,
  openPage,
  peerIdOf,
  roomServiceEnv,
  roomUrl,
  saveScreenshot,
  waitForCount,
  waitForMediaFlowing,
  waitForText,
  type RoomPage,
} from './support/browser';
import { call, startService, tempDataDir, unlimitedKey, type ServiceProcess } from './support/service-process';

jest.setTimeout(90_000);

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

describe('the room page in Chromium against the real service: hosts, the waiting room, ending', () => {
  let dataDir: string;
  let key: string;
  let svc: ServiceProcess;
  let browser: Browser;
  let receiver: TestReceiver;
  let opened: RoomPage[] = [];

  const open = async (url: string) => {
    const p = await openPage(browser, url);
    opened.push(p);
    return p;
  };

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
    dataDir = tempDataDir();
    key = unlimitedKey(dataDir);
    [svc, browser, receiver] = await Promise.all([
      startService(dataDir, roomServiceEnv({ SVC_ALLOW_INSECURE_WEBHOOKS: 'true' })),
      launchBrowser(),
      startReceiver(() => ({ status: 204 })),
    ]);
    const endpoint = await call(svc.url, 'POST', '/api/v1/public/webhook-endpoints', key, {
      url: receiver.url,
      events: ['meeting.started', 'meeting.ended'],
    });
    expect(endpoint.status).toBe(201);
  }, 60_000);

  afterEach(async () => {
    const errors = opened.flatMap((p) => p.logs).filter((l) => l.startsWith('pageerror'));
    await Promise.all(opened.map((p) => p.close()));
    opened = [];
    expect(errors).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
    await receiver?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
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
});

/** The page joined with `role` (hosts see the End meeting button). */
async function expectRole(page: Page, role: 'host' | 'guest'): Promise<void> {
  await page.getByTestId('leave').waitFor();
  expect(await page.getByTestId('end-meeting').isVisible()).toBe(role === 'host');
}
