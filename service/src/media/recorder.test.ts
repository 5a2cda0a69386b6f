import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import {
  hostRoomCredential,
  joinRoom,
  OPUS_RTP,
  roomCredential,
  seedMeeting,
  startRtpSender,
  startTestServer,
  VP8_RTP,
  type RtpSender,
  type TestServer,
} from '@svc/service/testing';
import type { Peer } from '../rooms/peer';
import type { Room } from '../rooms/room';
import { sdpOf } from './ffmpeg';
import { recordingUnavailableReason } from './recorder';

let t: TestServer;
let key: string;
const senders: RtpSender[] = [];

beforeAll(async () => {
  t = await startTestServer({ SVC_ROOM_EMPTY_GRACE_SECONDS: '60', SVC_ROOM_RATE_LIMIT_PER_SECOND: '100000' }, { media: true });
  key = t.key();
});
afterEach(async () => {
  await Promise.all(senders.splice(0).map((s) => s.stop()));
});
afterAll(() => t.close());

const roomOf = (meetingId: string): Room => t.services.rooms.liveRooms().find((r) => r.meeting.id === meetingId)!;

/** Has `peer` send real media (ffmpeg) over a plain transport; resolves once the producer exists. */
async function send(room: Room, peer: Peer, kind: 'audio' | 'video', ssrc: number, source?: 'screen'): Promise<void> {
  const transport = await room.media.createPlainTransport(peer.id, 'send', '127.0.0.1');
  const base = kind === 'audio' ? OPUS_RTP : VP8_RTP;
  await room.produce(peer, {
    transportId: transport.id,
    kind,
    rtpParameters: { ...base, encodings: [{ ssrc }] },
    source: source ?? (kind === 'audio' ? 'microphone' : 'camera'),
    paused: false,
  });
  senders.push(startRtpSender(kind, transport.local.port, { ssrc, frequency: 300 + (ssrc % 500) }));
}

async function until<T>(check: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs = 20_000): Promise<T> {
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > giveUpAt) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const fileSize = (file: string): number => (fs.existsSync(file) ? fs.statSync(file).size : 0);
/** Bytes written so far into a recording's track files (they are merged into one file when it stops). */
/** The sizes of a recording's track files (one per track) so far. */
const trackSizes = (recordingId: string): number[] => {
  const dir = `${t.services.recordings.pathFor(recordingId, 'mkv')}.tracks`;
  return fs.existsSync(dir) ? fs.readdirSync(dir).map((f) => fileSize(`${dir}/${f}`)) : [];
};
const trackBytes = (recordingId: string): number => trackSizes(recordingId).reduce((sum, size) => sum + size, 0);

function probe(file: string): { duration: number; streams: string[] } {
  const out = spawnSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration:stream=codec_type', '-of', 'json', file], {
    encoding: 'utf8',
  });
  const info = JSON.parse(out.stdout) as { format: { duration: string }; streams: { codec_type: string }[] };
  return { duration: Number(info.format.duration), streams: info.streams.map((s) => s.codec_type) };
}

const recordingsOf = async (meetingId: string) =>
  (await t.request('GET', `/api/v1/public/meetings/${meetingId}/recordings`, { key })).body.data as {
    id: string;
    status: string;
    kind: string;
    duration_seconds: number;
  }[];

const readyEvents = async (recordingId: string) =>
  (
    (await t.request('GET', '/api/v1/public/events?limit=100', { key })).body.data as {
      type: string;
      data: { recording: { id: string } };
    }[]
  ).filter((e) => e.type === 'recording.ready' && e.data.recording.id === recordingId).length;

describe('recording a room', () => {
  it('is started and stopped by a host over signalling, shown to everyone, records every track (late ones too) and renders a composite MP4', async () => {
    const m = seedMeeting(t);
    const { client: host, state } = await joinRoom(await hostRoomCredential(t, key, m));
    const { client: guest } = await joinRoom(await roomCredential(t, m.code, { name: 'Guest' }));
    const room = roomOf(m.id);
    await send(room, room.peer(state.self.id), 'audio', 1_001);
    await send(room, room.peer(state.self.id), 'video', 2_001);

    const refused = await guest.call('startRecording', {});
    expect(refused).toMatchObject({ ok: false, error: { code: 'insufficient_scope' } });

    const started = Date.now();
    const { recordingId } = await host.ok('startRecording', {});
    expect(await guest.next('recording')).toEqual({ active: true });
    expect(room.recording).toBe(true);
    expect((await host.call('startRecording', {})).ok).toBe(false);
    expect(await guest.call('stopRecording', {})).toMatchObject({ ok: false, error: { code: 'insufficient_scope' } });
    expect(room.recording).toBe(true);
    expect((await recordingsOf(m.id))[0]).toMatchObject({ id: recordingId, status: 'processing' });

    // A second microphone, a camera and a screen share that start during the recording get their own tracks.
    const { state: secondState } = await joinRoom(await roomCredential(t, m.code, { name: 'Late' }));
    await until(() => trackBytes(recordingId) > 0, 'ffmpeg writing the track files');
    await send(room, room.peer(secondState.self.id), 'audio', 1_002);
    await send(room, room.peer(secondState.self.id), 'video', 2_002, 'screen');
    await until(() => Date.now() - started > 7_000, 'seven seconds of recording');
    // On a busy machine the late tracks' ffmpeg may start after that: stop only once each track has written media.
    await until(() => trackSizes(recordingId).filter((size) => size > 0).length === 4, 'all four track files written');

    expect(await host.ok('stopRecording', {})).toEqual({ recordingId, status: 'ready' });
    const elapsed = (Date.now() - started) / 1000;
    expect(await guest.next('recording', 1)).toEqual({ active: false });
    const [listed] = await recordingsOf(m.id);
    expect(listed).toMatchObject({ kind: 'video', status: 'processing', source_recording_id: recordingId });
    const tracksRecording = (await recordingsOf(m.id)).find((r) => r.id === recordingId)!;
    expect(tracksRecording).toMatchObject({ kind: 'tracks', status: 'ready' });
    const listedTracks = tracksRecording.duration_seconds;
    // ffmpeg starts within a second or two of the request; the file lasts from its first packet.
    expect(listedTracks).toBeGreaterThanOrEqual(Math.floor(elapsed - 3));
    expect(listedTracks).toBeLessThanOrEqual(Math.ceil(elapsed));
    const file = t.services.recordings.pathFor(recordingId, 'mkv');
    const { streams, duration } = probe(file);
    // Both microphones, the camera and the late screen share: one track each.
    expect(streams).toEqual(['audio', 'audio', 'video', 'video']);
    expect(spawnSync('ffmpeg', ['-v', 'error', '-i', file, '-map', '0:a:1', '-f', 'null', '-'], { encoding: 'utf8' }).status).toBe(0);
    expect(await readyEvents(recordingId)).toBe(0);
    // The recording keeps whose each track is, its source and its offset; transcripts read the owners of the audio tracks.
    const ownerOf = (peer: Peer) => ({ participant_id: peer.participantId, name: peer.name });
    const owners = t.services.recordings.readyFile(recordingId).audioTrackOwners!;
    expect(owners).toEqual([ownerOf(room.peer(state.self.id)), ownerOf(room.peer(secondState.self.id))]);
    expect(owners[0]!.participant_id).toMatch(/^prt_/);
    const tracks = (tracksRecording as unknown as { tracks: { kind: string; source: string; name: string; offset_seconds: number }[] })
      .tracks;
    expect(tracks.map((tr) => `${tr.kind}:${tr.source}:${tr.name}`)).toEqual([
      'audio:microphone:Host',
      'audio:microphone:Late',
      'video:camera:Host',
      'video:screen:Late',
    ]);
    expect(tracks[0]!.offset_seconds).toBeLessThan(1);
    expect(tracks[3]!.offset_seconds).toBeGreaterThan(tracks[2]!.offset_seconds + 0.5);

    // The render job makes the composite: one H.264 and one AAC stream, as long as the tracks; then recording.ready.
    expect(await t.jobWorker().runOnce()).toBe(1);
    const composite = (await recordingsOf(m.id)).find((r) => r.id === listed!.id)!;
    expect(composite).toMatchObject({ status: 'ready', content_type: 'video/mp4' });
    const mp4 = probe(t.services.recordings.pathFor(composite.id, 'mp4'));
    expect(mp4.streams.sort()).toEqual(['audio', 'video']);
    expect(Math.abs(mp4.duration - duration)).toBeLessThanOrEqual(1);
    expect(await readyEvents(composite.id)).toBe(1);
    // Transcription of the composite reads its tracks, one speaker per track.
    expect(t.services.recordings.readyFile(composite.id).path).toBe(file);
    expect((await host.call('stopRecording', {})).ok).toBe(false);
    host.close();
    guest.close();
  }, 60_000);

  it('starts by itself when a meeting with transcription_auto goes live, and is finished when the meeting ends', async () => {
    const m = seedMeeting(t, { settings: { transcription_auto: true } });
    const { client: host, state } = await joinRoom(await hostRoomCredential(t, key, m));
    const room = roomOf(m.id);
    await until(() => room.recording, 'the automatic recording');
    await send(room, room.peer(state.self.id), 'audio', 1_003);
    const [processing] = await recordingsOf(m.id);
    expect(processing).toMatchObject({ status: 'processing' });
    await until(() => trackBytes(processing!.id) > 0, 'ffmpeg writing the track file');
    const writing = Date.now();
    await until(() => Date.now() - writing > 3_000, 'three seconds of audio');
    await host.ok('endMeeting', {});
    await until(async () => (await recordingsOf(m.id)).find((r) => r.id === processing!.id)!.status === 'ready', 'the finished recording');
    const { streams, duration } = probe(t.services.recordings.pathFor(processing!.id, 'mkv'));
    expect(streams).toContain('audio');
    expect(streams).not.toContain('video');
    expect(duration).toBeGreaterThan(2.5);
  }, 60_000);

  it('fails cleanly when nothing was sent, and marks recordings cut off by a crash failed at the next start', async () => {
    const m = seedMeeting(t);
    const { client: host } = await joinRoom(await hostRoomCredential(t, key, m));
    const { recordingId } = await host.ok('startRecording', {});
    const stopped = await host.call('stopRecording', {});
    expect(stopped).toMatchObject({ ok: false, error: { message: expect.stringContaining('Nothing was recorded') } });
    expect((await recordingsOf(m.id))[0]).toMatchObject({
      id: recordingId,
      status: 'failed',
      failure_reason: expect.stringContaining('Nothing was recorded'),
      download_url: null,
    });

    const leftover = t.services.recordings.start(m.id, 'tracks');
    expect(t.services.recordings.failLeftovers()).toContain(leftover.id);
    expect((await recordingsOf(m.id)).find((r) => r.id === leftover.id)).toMatchObject({
      status: 'failed',
      failure_reason: 'the service stopped while it was recording',
    });
    host.close();
  }, 30_000);

  it('says why recording is unavailable without ffmpeg, and writes one port per track into the SDP', () => {
    expect(recordingUnavailableReason('/nonexistent/ffmpeg')).toMatch(/ffmpeg not found.*ensure-media-tools/);
    expect(recordingUnavailableReason()).toBeNull();
    const sdp = sdpOf([
      { kind: 'audio', port: 50_000, payloadType: 100, rtpmap: 'opus/48000/2' },
      { kind: 'video', port: 50_002, payloadType: 101, rtpmap: 'VP8/90000' },
    ]);
    expect(sdp).toContain('m=audio 50000 RTP/AVP 100\na=rtpmap:100 opus/48000/2');
    expect(sdp).toContain('m=video 50002 RTP/AVP 101\na=rtpmap:101 VP8/90000');
  });
});
