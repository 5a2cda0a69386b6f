/**
 * Live captions: speech-to-caption latency on loopback, and CPU per speaking participant.
 *
 * Each speaker is a participant whose microphone is a plain RTP transport; the benchmark sends it real Opus RTP
 * (flite's rms voice saying the meeting script, one sentence at a time with 0.8 s pauses), paced at 20 ms per
 * packet from this process, so the wall time each sentence's last word leaves is known to the packet. A host turns
 * captions on; the service taps every microphone (plain transport -> ffmpeg -> PCM), cuts utterances at pauses and
 * recognizes them with pocketsphinx. Latency = when the host's socket receives the first final caption of that
 * speaker after a sentence ended, minus when the sentence's last speech packet was sent.
 *
 * CPU: the same sending measured with captions off, then on; counted are the service (this process, where the
 * in-process test service runs), its mediasoup worker and the captioning processes it starts (ffmpeg, cat,
 * pocketsphinx); the difference divided by the speakers is the cost per speaking participant.
 */
import { execFileSync } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  hostRoomCredential,
  joinRoom,
  MEETING_SCRIPT,
  OPUS_RTP,
  roomCredential,
  seedMeeting,
  startTestServer,
  type RoomClient,
} from '@svc/service/testing';
import type { Caption } from '../../service/src/rooms/room.protocol';
import {
  cleanUpOnExit,
  machine,
  makeTempDir,
  markdownTable,
  percentile,
  procStat,
  progress,
  removeTempDir,
  runMain,
  smokeOr,
} from '../support';

const SPEAKERS = (process.env.BENCH_CAPTIONS_SPEAKERS ?? smokeOr('1,4', '1')).split(',').map(Number);
const SENTENCES = MEETING_SCRIPT.slice(0, smokeOr(MEETING_SCRIPT.length, 1));
const PAUSE_S = 0.8;
const PACKET_MS = 20;
const MS_PER_TICK = 10;
/** A caption later than this after a sentence ended counts as that sentence missed. */
const MISSED_AFTER_MS = 5_000;
const RUN_DEADLINE_MS = 10 * 60_000;

/** The script as one 48 kHz wav, and when each sentence's speech ends in it (ms). */
function script(dir: string): { wav: string; ends: number[]; durationMs: number } {
  const parts: string[] = [];
  const ends: number[] = [];
  let at = 0;
  for (const [i, sentence] of SENTENCES.entries()) {
    const raw = path.join(dir, `s${i}.wav`);
    execFileSync('flite', ['-voice', 'rms', '-t', sentence, '-o', raw]);
    const pcm = execFileSync('ffmpeg', ['-v', 'error', '-i', raw, '-ac', '1', '-ar', '16000', '-f', 's16le', 'pipe:1'], {
      maxBuffer: 64 << 20,
    });
    ends.push(at + lastSpeechMs(pcm));
    at += (pcm.length / 32_000) * 1000 + PAUSE_S * 1000;
    parts.push(raw);
  }
  const wav = path.join(dir, 'script.wav');
  const inputs = parts.flatMap((p) => ['-i', p]);
  const filter = `${parts.map((_, i) => `[${i}]apad=pad_dur=${PAUSE_S}[p${i}]`).join(';')};${parts.map((_, i) => `[p${i}]`).join('')}concat=n=${parts.length}:v=0:a=1`;
  execFileSync('ffmpeg', ['-v', 'error', '-y', ...inputs, '-filter_complex', filter, '-ar', '48000', '-ac', '2', wav]);
  return { wav, ends, durationMs: at };
}

/** Where the last 20 ms frame louder than -45 dBFS ends (ms into the PCM). */
function lastSpeechMs(pcm: Buffer): number {
  let last = 0;
  for (let frame = 0; (frame + 1) * 640 <= pcm.length; frame++) {
    let sum = 0;
    for (let i = 0; i < 320; i++) sum += pcm.readInt16LE(frame * 640 + i * 2) ** 2;
    if (10 * Math.log10(sum / 320 / 32_768 ** 2 + 1e-12) > -45) last = frame + 1;
  }
  return last * PACKET_MS;
}

/** The wav encoded as the Opus RTP packets a browser would send (20 ms each, in order), captured from ffmpeg. */
async function opusPackets(wav: string): Promise<Buffer[]> {
  const socket = createSocket({ type: 'udp4', recvBufferSize: 8 << 20 });
  const packets: Buffer[] = [];
  socket.on('message', (packet) => packets.push(packet));
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  const { port } = socket.address();
  const encode = ['-c:a', 'libopus', '-b:a', '32k', '-frame_duration', '20', '-payload_type', '111', '-ssrc', '1'];
  execFileSync('ffmpeg', ['-v', 'error', '-i', wav, ...encode, '-f', 'rtp', `rtp://127.0.0.1:${port}?rtcpport=${port}`]);
  await sleep(200);
  socket.close();
  // Loopback keeps their order.
  return packets.filter((p) => p.length > 12 && (p[1]! & 0x7f) === 111);
}

/**
 * Sends `packets` to each port (its own SSRC per port) at 20 ms pacing from `socket` (always the same: a plain
 * transport learns its sender's address from the first packet); resolves with the wall time (ms) packet 0 left.
 */
function send(socket: Socket, packets: Buffer[], ports: number[]): { startedAt: number; done: Promise<void> } {
  const startedAt = Date.now() + 50;
  const done = (async () => {
    for (const [i, original] of packets.entries()) {
      const wait = startedAt + i * PACKET_MS - Date.now();
      if (wait > 0) await sleep(wait);
      for (const [n, port] of ports.entries()) {
        const packet = Buffer.from(original);
        packet.writeUInt16BE(i & 0xffff, 2);
        packet.writeUInt32BE(20_000 + n, 8);
        socket.send(packet, port, '127.0.0.1');
      }
    }
  })();
  return { startedAt, done };
}

/** Captions the host's socket received, stamped with when this process saw them (polled every 5 ms). */
function stampCaptions(host: RoomClient): { seen: { at: number; caption: Caption }[]; stop(): void } {
  const seen: { at: number; caption: Caption }[] = [];
  let counted = 0;
  const timer = setInterval(() => {
    const all = host.all('caption');
    for (; counted < all.length; counted++) seen.push({ at: Date.now(), caption: all[counted]! });
  }, 5);
  return { seen, stop: () => clearInterval(timer) };
}

/** This process's descendants (the captioning ffmpeg, sh, cat and pocketsphinx processes). */
function descendants(): number[] {
  const parents = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
    if (stat) parents.set(Number(entry), stat.ppid);
  }
  const found = new Set<number>([process.pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, ppid] of parents)
      if (!found.has(pid) && found.has(ppid)) {
        found.add(pid);
        grew = true;
      }
  }
  found.delete(process.pid);
  return [...found];
}

const cpuMs = (pids: number[]) =>
  pids.reduce((sum, pid) => {
    const stat = procStat(pid);
    return sum + (stat ? (stat.utime + stat.stime) * MS_PER_TICK : 0);
  }, 0);

/**
 * Shares of one core used by the service, its worker and the captioning processes while `run` runs. The engines
 * start at the first speech, inside the window, and run on after it (they stop after 30 s without speech): the
 * captioning processes alive at the end are counted from their start or the window's, whichever is later.
 */
async function cpuWhile(workerPid: number, run: () => Promise<void>): Promise<{ service: number; worker: number; captions: number }> {
  const captioning = () => descendants().filter((pid) => pid !== workerPid);
  const node = process.cpuUsage();
  const worker = cpuMs([workerPid]);
  const before = new Map(captioning().map((pid) => [pid, cpuMs([pid])]));
  const started = performance.now();
  await run();
  const wall = performance.now() - started;
  const used = process.cpuUsage(node);
  const captions = captioning().reduce((sum, pid) => sum + cpuMs([pid]) - (before.get(pid) ?? 0), 0);
  return {
    service: (used.user + used.system) / 1000 / wall,
    worker: (cpuMs([workerPid]) - worker) / wall,
    captions: captions / wall,
  };
}

interface Row {
  speakers: number;
  latencies: number[];
  missed: number;
  off: { service: number; worker: number; captions: number };
  on: { service: number; worker: number; captions: number };
}

async function measure(speakers: number, packets: Buffer[], ends: number[], durationMs: number): Promise<Row> {
  const t = await startTestServer({ SVC_ROOM_RATE_LIMIT_PER_SECOND: '100000', SVC_ROOM_EMPTY_GRACE_SECONDS: '600' }, { media: true });
  const clients: RoomClient[] = [];
  const socket = createSocket('udp4');
  try {
    const m = seedMeeting(t, { title: `Captions ${speakers}` });
    const { client: host } = await joinRoom(await hostRoomCredential(t, t.key(), m));
    clients.push(host);
    const room = t.services.rooms.liveRooms().find((r) => r.meeting.id === m.id)!;
    const ports: number[] = [];
    const ids: string[] = [];
    for (let n = 0; n < speakers; n++) {
      const { client, state } = await joinRoom(await roomCredential(t, m.code, { name: `Speaker ${n + 1}` }));
      clients.push(client);
      const peer = room.peer(state.self.id);
      const transport = await room.media.createPlainTransport(peer.id, 'send', '127.0.0.1');
      const rtpParameters = { ...OPUS_RTP, encodings: [{ ssrc: 20_000 + n }] };
      await room.produce(peer, { transportId: transport.id, kind: 'audio', rtpParameters, source: 'microphone', paused: false });
      ports.push(transport.local.port);
      ids.push(peer.participantId!);
    }
    const workerPid = t.media!.health()[0]!.pid!;
    progress(`${speakers} speaker(s): sending ${(durationMs / 1000).toFixed(0)} s with captions off`);
    const off = await cpuWhile(workerPid, () => send(socket, packets, ports).done);
    await host.ok('setCaptions', { on: true });
    // The taps' ffmpeg start before the speech does; a speaker's pocketsphinx starts at their first speech (its model
    // loads in about 0.6 s of CPU), so the first sentence's latency includes that.
    await sleep(2_000);
    const stamps = stampCaptions(host);
    progress(`${speakers} speaker(s): sending ${(durationMs / 1000).toFixed(0)} s with captions on`);
    let startedAt = 0;
    const on = await cpuWhile(workerPid, async () => {
      const sending = send(socket, packets, ports);
      startedAt = sending.startedAt;
      await sending.done;
      await sleep(MISSED_AFTER_MS);
    });
    stamps.stop();
    const latencies: number[] = [];
    let missed = 0;
    for (const participantId of ids) {
      const mine = stamps.seen.filter((s) => s.caption.final && s.caption.participant_id === participantId);
      for (const end of ends) {
        const endedAt = startedAt + end;
        const first = mine.find((s) => s.at >= endedAt);
        if (first && first.at - endedAt <= MISSED_AFTER_MS) latencies.push(first.at - endedAt);
        else missed++;
      }
      progress(`  ${participantId}: ${mine.map((s) => s.caption.text).join(' | ')}`);
    }
    await host.ok('setCaptions', { on: false });
    return { speakers, latencies: latencies.sort((a, b) => a - b), missed, off, on };
  } finally {
    for (const client of clients) client.close();
    socket.close();
    await t.close();
  }
}

const pct = (share: number) => `${(share * 100).toFixed(1)} %`;
const total = (s: { service: number; worker: number; captions: number }) => s.service + s.worker + s.captions;

async function main(): Promise<void> {
  cleanUpOnExit(RUN_DEADLINE_MS);
  const dir = await makeTempDir('svc-captions-bench-');
  const rows: Row[] = [];
  try {
    const { wav, ends, durationMs } = script(dir);
    const packets = await opusPackets(wav);
    progress(`script: ${SENTENCES.length} sentence(s), ${(durationMs / 1000).toFixed(1)} s, ${packets.length} RTP packets`);
    for (const speakers of SPEAKERS) rows.push(await measure(speakers, packets, ends, durationMs));
  } finally {
    await removeTempDir(dir);
  }
  process.stdout.write(
    `\nLive captions on loopback: speech-to-caption latency (end of a sentence's last speech packet -> the host's socket has ` +
      `the speaker's final caption) and CPU (shares of one core: service = Node, worker = mediasoup, captions = ffmpeg + ` +
      `pocketsphinx per speaker); ${SENTENCES.length} sentence(s) per speaker, flite rms voice, Opus 32 kbit/s; ${machine()}\n\n` +
      markdownTable(
        [
          'speakers',
          'captions',
          'latency median',
          'latency p90',
          'latency max',
          'CPU off',
          'CPU on',
          'of which ffmpeg+pocketsphinx',
          'extra per speaker',
        ],
        rows.map((r) => [
          r.speakers,
          `${r.latencies.length}/${r.latencies.length + r.missed}`,
          r.latencies.length ? `${Math.round(percentile(r.latencies, 50))} ms` : '-',
          r.latencies.length ? `${Math.round(percentile(r.latencies, 90))} ms` : '-',
          r.latencies.length ? `${Math.round(r.latencies.at(-1)!)} ms` : '-',
          pct(total(r.off)),
          pct(total(r.on)),
          pct(r.on.captions),
          pct((total(r.on) - total(r.off)) / r.speakers),
        ]),
        [0, 1, 2, 3, 4, 5, 6, 7, 8],
      ) +
      `\nTarget: latency under 2 s (p90): ${rows.every((r) => r.latencies.length > 0 && percentile(r.latencies, 90) < 2_000) ? 'met' : 'NOT met'}\n`,
  );
}

runMain(main);
