import type { Page } from 'playwright-core';
import {
  clickTool,
  createMeeting,
  eventually,
  joinAndTimeFirstFrame,
  joinRoom,
  launchBrowser,
  openPage,
  peerIdOf,
  pollUntil,
  receiveStats,
  roomUrl,
  saveScreenshot,
  waitForCount,
  waitForMediaFlowing,
  waitForPreview,
  waitForText,
} from './support/browser';
import { roomSuite } from './support/room-suite';
import { call } from './support/service-process';

jest.setTimeout(90_000);

/** Both pages show `count` camera tiles and the participant count `count`. */
async function expectParticipants(pages: Page[], count: number): Promise<void> {
  for (const page of pages) {
    await waitForCount(page, '[data-testid=tile]', count);
    await waitForText(page, '[data-testid=participant-count]', String(count));
  }
}

/** Starts recording the page's RoomEvents (through the test handle). */
async function recordRoomEvents(page: Page): Promise<void> {
  await page.evaluate(() => {
    const g = globalThis as unknown as { __svcRoom: { events: { on(t: string, fn: (p: unknown) => void): void } }; __recorded: unknown[] };
    g.__recorded = [];
    for (const type of ['joined', 'left', 'participant-count', 'recording', 'media'])
      g.__svcRoom.events.on(type, (p) => g.__recorded.push([type, p]));
  });
}

/** The RoomEvents recorded since `recordRoomEvents`. */
function recordedRoomEvents(page: Page): Promise<unknown[]> {
  return page.evaluate(() => (globalThis as unknown as { __recorded: unknown[] }).__recorded);
}

describe('the room page in Chromium against the real service: a two-person call', () => {
  const room = roomSuite();
  const { open } = room;

  /** A meeting with Alice and Bob in it, both receiving each other's media. */
  const twoInACall = async (title: string) => {
    const meeting = await createMeeting(room.svc.url, room.key, { title });
    const alice = await open(roomUrl(room.svc.url, meeting.code, { name: 'Alice Adams' }));
    expect(await joinRoom(alice.page)).toBe('room');
    const bob = await open(roomUrl(room.svc.url, meeting.code));
    const firstFrameMs = await joinAndTimeFirstFrame(bob.page, 'Bob Brown');
    await expectParticipants([alice.page, bob.page], 2);
    await Promise.all([waitForMediaFlowing(alice.page), waitForMediaFlowing(bob.page)]);
    return { meeting, alice, bob, firstFrameMs };
  };

  it('two pages join, each receives and decodes the other’s audio and video', async () => {
    const meeting = await createMeeting(room.svc.url, room.key, { title: 'Weekly design review' });
    const alice = await open(roomUrl(room.svc.url, meeting.code, { name: 'Alice Adams' }));
    expect(await alice.page.getByLabel('Your name').inputValue()).toBe('Alice Adams');
    await waitForPreview(alice.page);
    await saveScreenshot(alice.page, 'room-prejoin');
    await alice.page.emulateMedia({ colorScheme: 'dark' });
    await saveScreenshot(alice.page, 'room-prejoin-dark');
    await alice.page.emulateMedia({ colorScheme: 'light' });
    await recordRoomEvents(alice.page);
    expect(await joinRoom(alice.page)).toBe('room');

    const bob = await open(roomUrl(room.svc.url, meeting.code));
    const firstFrameMs = await joinAndTimeFirstFrame(bob.page, 'Bob Brown');
    // eslint-disable-next-line no-console -- the benchmark figure this test measures
    console.log(`room: Join click to first remote video frame: ${firstFrameMs} ms`);
    expect(firstFrameMs).toBeLessThan(15_000);

    await expectParticipants([alice.page, bob.page], 2);
    for (const { page } of [alice, bob]) {
      const before = await waitForMediaFlowing(page);
      expect(before.audio.bytesReceived).toBeGreaterThan(0);
      expect(before.video.bytesReceived).toBeGreaterThan(0);
      const later = await waitForMediaFlowing(page, { frames: 15 });
      expect(later.video.framesDecoded).toBeGreaterThan(before.video.framesDecoded);
      expect(later.audio.bytesReceived).toBeGreaterThan(before.audio.bytesReceived);
    }
    const alicePeer = await peerIdOf(alice.page);
    const bobPeer = await peerIdOf(bob.page);
    expect(alicePeer).toBeTruthy();
    expect(bobPeer).not.toBe(alicePeer);
    await eventually(async () =>
      expect(await alice.page.locator(`[data-testid=tile][data-peer-id="${bobPeer}"]`).textContent()).toContain('Bob Brown'),
    );
    await eventually(async () =>
      expect(await bob.page.locator(`[data-testid=tile][data-peer-id="${alicePeer}"]`).textContent()).toContain('Alice Adams'),
    );
    await bob.page.locator(`[data-testid=tile][data-peer-id="${alicePeer}"] video`).waitFor({ state: 'visible' });
    // The fake microphones beep: the service names an active speaker and the page rings their tile.
    await alice.page.locator('[data-testid=tile].speaking').first().waitFor({ timeout: 10_000 });
    await saveScreenshot(alice.page, 'room-in-call');

    // Simulcast: a half-width tile gets a middle layer, a phone-sized one the lowest.
    const wide = await pollUntil(
      'a middle or top layer',
      async () => {
        const width = (await receiveStats(bob.page)).video.frameWidth;
        return width >= 600 && width;
      },
      15_000,
    );
    await bob.page.setViewportSize({ width: 390, height: 844 });
    await pollUntil('the lowest layer', async () => (await receiveStats(bob.page)).video.frameWidth <= 400 || false, 15_000);
    // eslint-disable-next-line no-console -- what the layers look like here
    console.log(
      `room: remote camera at ${(await receiveStats(bob.page)).video.frameWidth} px wide on a phone (${wide} px in a half-width tile)`,
    );

    // Muting the camera reaches the other page: Alice's tile shows her initials instead of video.
    await alice.page.getByTestId('toggle-camera').click();
    await bob.page.locator(`[data-testid=tile][data-peer-id="${alicePeer}"] .avatar`).waitFor({ state: 'visible', timeout: 10_000 });
    await alice.page.getByTestId('toggle-camera').click();
    await bob.page.locator(`[data-testid=tile][data-peer-id="${alicePeer}"] video`).waitFor({ state: 'visible', timeout: 10_000 });

    // The page's RoomEvents (what the embed wrapper will forward) told the story.
    expect(await recordedRoomEvents(alice.page)).toEqual(
      expect.arrayContaining([
        [
          'joined',
          {
            participant: { identity: expect.any(String), name: 'Alice Adams', role: 'guest' },
            meeting: { code: meeting.code, title: 'Weekly design review' },
          },
        ],
        ['participant-count', { count: 2 }],
        ['media', { kind: 'video', on: false }],
        ['media', { kind: 'video', on: true }],
      ]),
    );
  });

  // One call for both (setting up a two-person call is most of either): chat, then a screen share, then a late joiner.
  it('chat passes between the pages and is stored with the meeting; a shared screen shows as its own tile on the other page, and goes when sharing stops', async () => {
    const { meeting, alice, bob } = await twoInACall('Chat and screen share');
    await alice.page.getByTestId('open-chat').click();
    await alice.page.getByTestId('chat-input').fill('Hello Bob — can you see my slides?');
    await alice.page.getByTestId('chat-input').press('Enter');
    await eventually(async () => expect(await alice.page.getByTestId('chat-input').inputValue()).toBe(''));
    await bob.page.getByTestId('open-chat').click();
    await eventually(async () =>
      expect(await bob.page.getByTestId('chat-message').allTextContents()).toEqual([
        expect.stringMatching(/^Alice Adams.*Hello Bob — can you see my slides\?$/),
      ]),
    );
    await bob.page.getByTestId('chat-input').fill('Yes, loud and clear');
    await bob.page.getByTestId('chat-input').press('Enter');
    await eventually(async () =>
      expect(await alice.page.getByTestId('chat-message').allTextContents()).toEqual([
        expect.stringMatching(/^You.*Hello Bob/),
        expect.stringMatching(/^Bob Brown.*Yes, loud and clear$/),
      ]),
    );
    await saveScreenshot(alice.page, 'room-chat');

    const stored = await pollUntil(
      'chat stored',
      async () => {
        const res = await call(room.svc.url, 'GET', `/api/v1/public/meetings/${meeting.id}/chat-messages`, room.key);
        return res.status === 200 && res.body.data.length === 2 && res.body.data;
      },
      5_000,
    );
    // Newest first, as the API documents.
    expect(stored.map((m: { sender_name: string; text: string }) => [m.sender_name, m.text])).toEqual([
      ['Bob Brown', 'Yes, loud and clear'],
      ['Alice Adams', 'Hello Bob — can you see my slides?'],
    ]);

    // A shared screen shows as its own tile on the other page, and goes when sharing stops.
    const alicePeer = await peerIdOf(alice.page);
    await alice.page.getByTestId('toggle-screen').click();
    const shared = bob.page.locator(`[data-testid=screen-tile][data-peer-id="${alicePeer}"]`);
    await shared.locator('video').waitFor({ state: 'visible', timeout: 15_000 });
    expect(await shared.textContent()).toContain('Alice Adams is presenting');
    await pollUntil('two video streams decoded', async () => (await receiveStats(bob.page)).video.streams === 2, 15_000);
    await waitForCount(bob.page, '[data-testid=tile]', 2);
    await saveScreenshot(bob.page, 'room-screen-share');
    await alice.page.getByTestId('toggle-screen').click();
    await shared.waitFor({ state: 'detached', timeout: 10_000 });

    // A page that joins later gets the history.
    const carol = await open(roomUrl(room.svc.url, meeting.code, { name: 'Carol' }), { width: 390, height: 844 });
    expect(await joinRoom(carol.page)).toBe('room');
    await clickTool(carol.page, 'open-chat');
    await eventually(async () => expect(await carol.page.getByTestId('chat-message').count()).toBe(2));
    await saveScreenshot(carol.page, 'room-phone-chat');
  });

  it('joining without camera and microphone works: toggled off, or blocked by the browser (listen-only)', async () => {
    const meeting = await createMeeting(room.svc.url, room.key, { title: 'Listen only' });
    const alice = await open(roomUrl(room.svc.url, meeting.code, { name: 'Alice Adams' }));
    expect(await joinRoom(alice.page)).toBe('room');

    // Dan turns both off on the pre-join screen.
    const dan = await open(roomUrl(room.svc.url, meeting.code, { name: 'Dan Dark' }));
    await waitForPreview(dan.page);
    await dan.page.getByRole('button', { name: 'Turn camera off' }).click();
    await dan.page.getByRole('button', { name: 'Turn microphone off' }).click();
    expect(await joinRoom(dan.page)).toBe('room');

    // Eve's browser blocks the devices: the page says so and lets her join.
    const blocking = await launchBrowser({ blockDevices: true });
    try {
      const eve = await openPage(blocking, roomUrl(room.svc.url, meeting.code, { name: 'Eve' }));
      await eve.page.getByText('The browser blocked the camera and microphone. You can still join and listen.').waitFor();
      await saveScreenshot(eve.page, 'room-prejoin-blocked');
      expect(await joinRoom(eve.page)).toBe('room');

      await waitForCount(alice.page, '[data-testid=tile]', 3);
      await waitForText(alice.page, '[data-testid=participant-count]', '3');
      for (const [page, name] of [
        [dan.page, 'Dan Dark'],
        [eve.page, 'Eve'],
      ] as const) {
        const id = await peerIdOf(page);
        const tile = alice.page.locator(`[data-testid=tile][data-peer-id="${id}"]`);
        await tile.locator('.avatar').waitFor({ state: 'visible' });
        expect(await tile.textContent()).toContain(name);
        expect(await tile.locator('.mic-state').isVisible()).toBe(true);
        // Listen-only, they still get Alice's audio and video.
        await waitForMediaFlowing(page);
      }
      await saveScreenshot(alice.page, 'room-listen-only');

      // Dan unmutes later: his microphone starts and reaches Alice.
      const before = await receiveStats(alice.page);
      await dan.page.getByTestId('toggle-microphone').click();
      await pollUntil(
        'a second audio stream',
        async () => (await receiveStats(alice.page)).audio.streams === before.audio.streams + 1,
        10_000,
      );
      await eve.close();
    } finally {
      await blocking.close();
    }
  });

  // One call for both (setting up a two-person call is most of either): the worker dies first, then Bob leaves.
  it('a killed media worker is replaced and both pages receive media again within seconds; leaving then updates the other page', async () => {
    const { alice, bob } = await twoInACall('Worker death, then leave');
    const health = await call(room.svc.url, 'GET', '/healthz');
    const pid: number = health.body.workers[0].pid;
    expect(pid).toBeGreaterThan(0);
    const before = await Promise.all([receiveStats(alice.page), receiveStats(bob.page)]);
    const killedAt = Date.now();
    process.kill(pid, 'SIGKILL');

    await Promise.all(
      [alice, bob].map((p, i) => waitForMediaFlowing(p.page, { sinceTransport: before[i]!.transportId!, frames: 10, timeoutMs: 25_000 })),
    );
    // eslint-disable-next-line no-console -- how long a worker death interrupts a call
    console.log(`room: media back on both pages ${Date.now() - killedAt} ms after the worker was killed`);
    const after = await call(room.svc.url, 'GET', '/healthz');
    expect(after.status).toBe(200);
    expect(after.body.workers[0].pid).not.toBe(pid);
    await expectParticipants([alice.page, bob.page], 2);

    // Leaving updates the other page.
    const bobPeer = await peerIdOf(bob.page);
    await bob.page.getByTestId('leave').click();
    expect(await bob.page.getByTestId('left-reason').textContent({ timeout: 10_000 })).toBe('You left the meeting');
    await expectParticipants([alice.page], 1);
    expect(await alice.page.locator(`[data-testid=tile][data-peer-id="${bobPeer}"]`).count()).toBe(0);
    expect((await receiveStats(alice.page)).peerId).toBeTruthy();
  });
});
