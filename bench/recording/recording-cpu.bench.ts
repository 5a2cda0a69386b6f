/**
 * CPU of recording a room: 1 and 4 participants, each sending a microphone (Opus, 32 kbit/s) and a
 * camera (VP8 320x240 at 15 fps, ~200 kbit/s) as real RTP made by ffmpeg senders into plain transports.
 * For each size the same room is measured first without recording, then recording (every microphone on
 * its own track, every camera too, each track with its own ffmpeg: see service/src/media/recorder.ts). Counted: the service (this process,
 * where the in-process test service runs), its mediasoup worker and, while recording, the recorder's
 * ffmpeg; the senders' ffmpeg processes are not counted. Printed as shares of one core and their ratio.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
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
import { cleanUpOnExit, machine, markdownTable, procStat, progress, runMain, smokeOr } from '../support';
import { watchOtherCpuOutsideTree } from '../rtc/process-tree';

const SIZES = (process.env.BENCH_RECORDING_SIZES ?? smokeOr('1,4', '1')).split(',').map(Number);
const MEASURE_S = Number(process.env.BENCH_RECORDING_SECONDS ?? smokeOr(20, 2));
/** Media settles (consumers, ffmpeg probing) before a measurement starts. */
const WARM_UP_MS = smokeOr(4_000, 1_000);
const MS_PER_TICK = 10;
const RUN_DEADLINE_MS = 10 * 60_000;

/** CPU ms of processes, summed. */
function cpuMs(pids: number[]): number {
  return pids.reduce((sum, pid) => {
    const stat = procStat(pid);
    return sum + (stat ? (stat.utime + stat.stime) * MS_PER_TICK : 0);
  }, 0);
}

/** The recorder's ffmpeg processes (one per track): children of this process writing a track file. */
function recorderPids(): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .map(Number)
    .filter((pid) => {
      try {
        return procStat(pid)?.ppid === process.pid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('.mkv.tracks/');
      } catch {
        return false;
      }
    });
}

/** Shares of one core of the service (Node), the worker and the recorder over `seconds`. */
async function measure(workerPid: number, seconds: number): Promise<{ service: number; worker: number; recorder: number }> {
  const recorders = recorderPids();
  const startedNode = process.cpuUsage();
  const startedWorker = cpuMs([workerPid]);
  const startedRecorder = cpuMs(recorders);
  const started = performance.now();
  await sleep(seconds * 1000);
  const wallMs = performance.now() - started;
  const node = process.cpuUsage(startedNode);
  return {
    service: (node.user + node.system) / 1000 / wallMs,
    worker: (cpuMs([workerPid]) - startedWorker) / wallMs,
    recorder: (cpuMs(recorders) - startedRecorder) / wallMs,
  };
}

interface Row {
  participants: number;
  idle: { service: number; worker: number; recorder: number };
  recording: { service: number; worker: number; recorder: number };
  audioTracks: number;
  videoTracks: number;
}

async function measureRoom(t: TestServer, key: string, participants: number): Promise<Row> {
  const m = seedMeeting(t, { title: `Recording CPU ${participants}` });
  const { client: host } = await joinRoom(await hostRoomCredential(t, key, m));
  const clients = [host];
  const senders: RtpSender[] = [];
  try {
    const room = t.services.rooms.liveRooms().find((r) => r.meeting.id === m.id)!;
    for (let i = 0; i < participants; i++) {
      const { client, state } = await joinRoom(await roomCredential(t, m.code, { name: `Participant ${i + 1}` }));
      clients.push(client);
      const peer = room.peer(state.self.id);
      for (const kind of ['audio', 'video'] as const) {
        const transport = await room.media.createPlainTransport(peer.id, 'send', '127.0.0.1');
        const ssrc = (kind === 'audio' ? 10_000 : 20_000) + i;
        await room.produce(peer, {
          transportId: transport.id,
          kind,
          rtpParameters: { ...(kind === 'audio' ? OPUS_RTP : VP8_RTP), encodings: [{ ssrc }] },
          source: kind === 'audio' ? 'microphone' : 'camera',
          paused: false,
        });
        senders.push(startRtpSender(kind, transport.local.port, { ssrc, frequency: 200 + 100 * i }));
      }
    }
    const workerPid = t.media!.health()[0]!.pid!;
    await sleep(WARM_UP_MS);
    // A first window the service spends compiling and settling is not counted.
    await measure(workerPid, WARM_UP_MS / 1000);
    progress(`${participants} participant(s): measuring ${MEASURE_S} s without recording`);
    const idle = await measure(workerPid, MEASURE_S);
    const { recordingId } = await host.ok('startRecording', {});
    await sleep(WARM_UP_MS);
    progress(`${participants} participant(s): measuring ${MEASURE_S} s recording`);
    const recording = await measure(workerPid, MEASURE_S);
    await host.ok('stopRecording', {});
    progress(`${participants} participant(s): ${JSON.stringify({ idle, recording })}`);
    const tracks = countTracks(t.services.recordings.pathFor(recordingId, 'mkv'));
    return { participants, idle, recording, ...tracks };
  } finally {
    await Promise.all(senders.map((s) => s.stop()));
    for (const client of clients) client.close();
  }
}

function countTracks(file: string): { audioTracks: number; videoTracks: number } {
  const out = spawnSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_type', '-of', 'csv=p=0', file], {
    encoding: 'utf8',
  }).stdout;
  const types = out.split('\n').filter(Boolean);
  return { audioTracks: types.filter((x) => x === 'audio').length, videoTracks: types.filter((x) => x === 'video').length };
}

const pct = (share: number) => `${(share * 100).toFixed(1)} %`;
const total = (s: { service: number; worker: number; recorder: number }) => s.service + s.worker + s.recorder;

async function main(): Promise<void> {
  cleanUpOnExit(RUN_DEADLINE_MS);
  const others = watchOtherCpuOutsideTree();
  const t = await startTestServer({ SVC_ROOM_RATE_LIMIT_PER_SECOND: '100000', SVC_ROOM_EMPTY_GRACE_SECONDS: '600' }, { media: true });
  const rows: Row[] = [];
  try {
    const key = t.key();
    for (const size of SIZES) rows.push(await measureRoom(t, key, size));
  } finally {
    await t.close();
  }
  const otherShare = others();
  process.stdout.write(
    `\nCPU of recording a room (shares of one core over ${MEASURE_S} s; service = Node, worker = mediasoup, recorder = ffmpeg -c copy); ` +
      `each participant sends Opus 32 kbit/s and VP8 320x240@15 ~200 kbit/s; ${machine()}; ` +
      `other processes used ${otherShare === null ? 'unknown' : pct(otherShare)} of the machine meanwhile\n\n` +
      markdownTable(
        [
          'participants',
          'tracks recorded (audio+video)',
          'not recording: service+worker',
          'recording: service+worker+recorder',
          'of which recorder',
          'ratio',
          'extra per participant',
        ],
        rows.map((r) => [
          r.participants,
          `${r.audioTracks}+${r.videoTracks}`,
          pct(total(r.idle)),
          pct(total(r.recording)),
          pct(r.recording.recorder),
          `${(total(r.recording) / total(r.idle)).toFixed(2)}x`,
          pct((total(r.recording) - total(r.idle)) / r.participants),
        ]),
        [0, 2, 3, 4, 5, 6],
      ) +
      '\n',
  );
}

runMain(main);
