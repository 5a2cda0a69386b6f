import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  connectMcpClient,
  FakeRoomMediaProvider,
  fakeRtpCapabilities,
  newHolderSecret,
  principalIn,
  seedMeeting,
  startTestServer,
  type TestServer,
} from '../testing';
import type { FakeRoomMedia } from '../testing/fake-room-media';
import { AppError } from '../shared/errors';
import type { PeerConnection } from '../rooms/peer';
import { handleRoomRequest } from '../rooms/room.handlers';
import type { Caption, RoomNotification } from '../rooms/room.protocol';
import type { LiveCaptions } from './live-captions';

let t: TestServer;
let media: FakeRoomMediaProvider;
let client: Client;
const captions = () => t.services.rooms.captions as LiveCaptions;

beforeAll(async () => {
  t = await startTestServer();
  media = new FakeRoomMediaProvider();
  t.services.rooms.useMedia(media);
  client = await connectMcpClient(t.url, t.key(['transcripts:read']));
});
afterAll(async () => {
  captions().stopAll();
  await client.close();
  await t.close();
});

/** flite's rms voice saying `text`, as 16 kHz mono s16le PCM with a second of silence after it. */
function speech(text: string): Buffer {
  const wav = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-captions-')), 'speech.wav');
  expect(spawnSync('flite', ['-voice', 'rms', '-t', text, '-o', wav]).status).toBe(0);
  const args = ['-v', 'error', '-i', wav, '-ac', '1', '-ar', '16000', '-f', 's16le', 'pipe:1'];
  const pcm = spawnSync('ffmpeg', args, { maxBuffer: 64 << 20 }).stdout;
  fs.rmSync(path.dirname(wav), { recursive: true, force: true });
  expect(pcm.length).toBeGreaterThan(32_000);
  return Buffer.concat([pcm, Buffer.alloc(32_000)]);
}

type Told = { name: RoomNotification; data: unknown }[];

async function joined(m: { id: string; code: string }, name: string, host = false) {
  const hostToken = host ? new URL(t.services.roomLinks.hostLink(principalIn(t, t.org.id), m.id).url).searchParams.get('host') : null;
  const body = hostToken ? { name, host: hostToken, holder: newHolderSecret() } : { name };
  const { credential } = t.services.roomAccess.issueCredential(m.code, body, 'ws://test');
  const told: Told = [];
  const connection: PeerConnection = { notify: (n, data) => void told.push({ name: n, data }), close: () => undefined };
  const session = await t.services.rooms.connect(t.services.roomAccess.admissionOf(credential), connection);
  const call = (method: 'setCaptions' | 'createTransport' | 'produce' | 'join', data: unknown) =>
    handleRoomRequest(session, method, data, t.services.rooms) as Promise<Record<string, unknown>>;
  const state = (await call('join', { rtpCapabilities: fakeRtpCapabilities() })) as { state: { captions?: boolean } };
  const seen = (n: RoomNotification) => told.filter((item) => item.name === n).map((item) => item.data);
  return { session, call, seen, state: state.state };
}

async function until<T>(what: string, probe: () => T | undefined, ms = 15_000): Promise<T> {
  const giveUpAt = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > giveUpAt) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('live captions', () => {
  it('a host turns them on; each microphone is recognized with its speaker; finals reach the room and the live transcript', async () => {
    const m = seedMeeting(t, { title: 'Captioned' });
    const host = await joined(m, 'Hilda Host', true);
    const grace = await joined(m, 'Grace Hopper');
    expect(grace.state.captions).toBe(false);
    const { id: transportId } = (await grace.call('createTransport', { direction: 'send' })) as { id: string };
    await grace.call('produce', { transportId, kind: 'audio', rtpParameters: {}, source: 'microphone' });

    expect(await host.call('setCaptions', { on: true })).toEqual({ on: true });
    expect(grace.seen('captions')).toEqual([{ active: true }]);
    const roomMedia = media.created.at(-1) as FakeRoomMedia;
    const tap = roomMedia.tappings[0]!.taps[0]!;
    expect(tap.owner?.name).toBe('Grace Hopper');
    expect(captions().speakers(m.id)).toBe(1);
    // A quiet microphone runs no engine; speech starts one.
    tap.push(Buffer.alloc(32_000));
    expect(captions().runningEngines(m.id)).toBe(0);

    const pcm = speech('Grace will write the release notes by Thursday.');
    // At real pace (20 ms chunks) would take seconds; the recognizer only needs the order, the cutter the frame loudness.
    for (let offset = 0; offset < pcm.length; offset += 640) tap.push(pcm.subarray(offset, offset + 640));
    const heard = await until('a final caption', () => {
      const finals = (host.seen('caption') as Caption[]).filter((c) => c.final);
      return finals
        .map((c) => c.text)
        .join(' ')
        .includes('thursday')
        ? finals
        : undefined;
    });
    expect(heard[0]).toMatchObject({ speaker: 'Grace Hopper', participant_id: grace.session.peer.participantId, final: true });
    expect(heard.map((c) => c.text).join(' ')).toMatch(/grace will write the release notes by thursday/);
    expect(grace.seen('caption').length).toBe(host.seen('caption').length);
    expect(captions().runningEngines(m.id)).toBe(1);

    const result = await client.callTool({ name: 'get_live_transcript', arguments: { meeting: m.code } });
    expect(result.isError).toBeFalsy();
    const live = result.structuredContent as { captions_on: boolean; lines: Caption[]; text: string };
    expect(live.captions_on).toBe(true);
    expect(live.text).toMatch(/^Grace Hopper: grace will write/);

    expect(await host.call('setCaptions', { on: false })).toEqual({ on: false });
    expect(grace.seen('captions')).toEqual([{ active: true }, { active: false }]);
    expect(roomMedia.tappings[0]!.stopped).toBe(true);
    expect(captions().speakers(m.id)).toBe(0);
    const after = await client.callTool({ name: 'get_live_transcript', arguments: { meeting: m.id } });
    expect((after.structuredContent as { captions_on: boolean; lines: unknown[] }).captions_on).toBe(false);
    expect((after.structuredContent as { lines: unknown[] }).lines.length).toBe(live.lines.length);
  }, 30_000);

  it('refuses setCaptions from a guest and changes nothing', async () => {
    const m = seedMeeting(t);
    await joined(m, 'Hilda Host', true);
    const guest = await joined(m, 'Guest');
    const error = await guest.call('setCaptions', { on: true }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('insufficient_scope');
    expect(captions().isOn(m.id)).toBe(false);
    expect(guest.seen('captions')).toEqual([]);
    const bad = await guest.call('setCaptions', { on: 'yes' }).catch((e: AppError) => e.code);
    expect(bad).toBe('validation_failed');
  });

  it('are on from the first join in a meeting with settings.captions, and a host can still turn them off', async () => {
    const m = seedMeeting(t, { settings: { captions: true } });
    expect(t.services.meetings.find(principalIn(t, t.org.id), m.id).captions).toBe(1);
    const host = await joined(m, 'Hilda Host', true);
    expect(host.state.captions).toBe(true);
    expect(captions().isOn(m.id)).toBe(true);
    const guest = await joined(m, 'Guest');
    expect(guest.state.captions).toBe(true);
    await host.call('setCaptions', { on: false });
    expect(guest.seen('captions')).toEqual([{ active: false }]);
    expect(captions().isOn(m.id)).toBe(false);
    // Off by default.
    const plain = seedMeeting(t);
    expect((await joined(plain, 'Hilda Host', true)).state.captions).toBe(false);
  });

  it('go off, and everyone is told, when the room loses its media (a worker died)', async () => {
    const m = seedMeeting(t);
    const host = await joined(m, 'Hilda Host', true);
    await host.call('setCaptions', { on: true });
    const lost = media.created.at(-1) as FakeRoomMedia;
    media.loseWorker(lost);
    expect(captions().isOn(m.id)).toBe(false);
    expect(host.seen('captions')).toEqual([{ active: true }, { active: false }]);
  });

  it('starts recognizing a microphone that starts after captions are on, and stops when the room closes', async () => {
    const m = seedMeeting(t);
    const host = await joined(m, 'Hilda Host', true);
    await host.call('setCaptions', { on: true });
    expect(captions().speakers(m.id)).toBe(0);
    const { id: transportId } = (await host.call('createTransport', { direction: 'send' })) as { id: string };
    await host.call('produce', { transportId, kind: 'audio', rtpParameters: {}, source: 'microphone' });
    expect(captions().speakers(m.id)).toBe(1);
    t.services.rooms.leave(host.session, 'left');
    expect(captions().isOn(m.id)).toBe(false);
  });
});
