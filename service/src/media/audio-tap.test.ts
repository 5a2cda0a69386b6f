import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  hostRoomCredential,
  joinRoom,
  OPUS_RTP,
  roomCredential,
  seedMeeting,
  startRtpSender,
  startTestServer,
  type RoomClient,
  type RtpSender,
  type TestServer,
} from '@svc/service/testing';
import type { MicrophoneTap } from '../rooms/room-media.interface';
import { frameDb } from '../captions/utterance-cutter';

// The microphone taps of live captions on a real worker: RTP in, ffmpeg's PCM out, everything closed with the tapping.
let t: TestServer;
let dir: string;
let wav: string;
const senders: RtpSender[] = [];
const clients: RoomClient[] = [];

beforeAll(async () => {
  t = await startTestServer({ SVC_ROOM_EMPTY_GRACE_SECONDS: '60', SVC_ROOM_RATE_LIMIT_PER_SECOND: '100000' }, { media: true });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-audio-tap-'));
  wav = path.join(dir, 'speech.wav');
  execFileSync('flite', ['-voice', 'rms', '-t', 'Grace will write the release notes by Thursday.', '-o', wav]);
});
afterAll(async () => {
  await Promise.all(senders.map((s) => s.stop()));
  for (const client of clients) client.close();
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Polls `probe` every 50 ms until it holds, at most `ms`. */
async function until(what: string, probe: () => boolean, ms = 15_000): Promise<void> {
  const giveUpAt = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > giveUpAt) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The taps' ffmpeg decoders: this process's children decoding an SDP from stdin to s16le. */
const children = () =>
  fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const ppid = Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
        const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        return ppid === process.pid && cmdline.includes('pipe:0') && cmdline.includes('s16le');
      } catch {
        return false;
      }
    });

describe('microphone taps (live captions) on a real worker', () => {
  it("decode a participant's Opus to 16 kHz PCM with its owner, and end with the tapping; switching often leaks nothing", async () => {
    const m = seedMeeting(t);
    const { client: host } = await joinRoom(await hostRoomCredential(t, t.key(), m));
    const { client, state } = await joinRoom(await roomCredential(t, m.code, { name: 'Grace Hopper' }));
    clients.push(host, client);
    const room = t.services.rooms.liveRooms().find((r) => r.meeting.id === m.id)!;
    const peer = room.peer(state.self.id);
    const transport = await room.media.createPlainTransport(peer.id, 'send', '127.0.0.1');
    await room.produce(peer, { transportId: transport.id, kind: 'audio', rtpParameters: OPUS_RTP, source: 'microphone', paused: false });
    senders.push(startRtpSender('audio', transport.local.port, { wav }));

    const taps: MicrophoneTap[] = [];
    const pcm: Buffer[] = [];
    let ended = 0;
    const tapping = room.media.tapMicrophones((tap) => {
      taps.push(tap);
      tap.onPcm((chunk) => pcm.push(chunk));
      tap.onEnd(() => ended++);
    });
    expect(taps.map((tap) => tap.owner)).toEqual([{ participant_id: peer.participantId, name: 'Grace Hopper' }]);
    // Two seconds of PCM (16 kHz, 16-bit mono: 32,000 bytes a second), some of it speech.
    await until('two seconds of PCM', () => pcm.reduce((sum, chunk) => sum + chunk.length, 0) >= 64_000);
    const all = Buffer.concat(pcm);
    expect(all.length % 2).toBe(0);
    const loudest = Math.max(
      ...Array.from({ length: Math.floor(all.length / 640) }, (_, i) => frameDb(all.subarray(i * 640, (i + 1) * 640))),
    );
    expect(loudest).toBeGreaterThan(-30);
    expect(children().length).toBe(1);

    tapping.stop();
    expect(ended).toBe(1);
    await until('the decoder to exit', () => children().length === 0, 5_000);

    // A host switching captions on and off again and again: each tapping lets go of the router when it stops.
    // The room's media is a SpanningRoomMedia; its home shard (a MediasoupRoomMedia) holds the router the taps use.
    type Shard = { router: { observer: { listenerCount(event: string): number } } };
    const router = (room.media as unknown as { shards: { media: Shard }[] }).shards[0]!.media.router;
    const listening = router.observer.listenerCount('close');
    for (let i = 0; i < 12; i++) room.media.tapMicrophones(() => undefined).stop();
    expect(router.observer.listenerCount('close')).toBe(listening);
    await until('every decoder to exit', () => children().length === 0, 5_000);
  });
});
