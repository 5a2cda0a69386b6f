/**
 * Rendering the composite MP4 of a recorded meeting: a synthetic 4-person meeting (each with a flite voice taking
 * turns, a VP8 camera from an ffmpeg test source, one screen share of 2 minutes) as the room recorder stores it
 * (one Matroska file, a track each, merged by the recorder's own merge), rendered by the service's render
 * (service/src/recordings/composite/render.ts: level analysis, timeline, one ffmpeg pass, ffprobe check) on ONE core:
 * the render's ffmpeg processes run under `taskset -c 0` with `-threads 1`. Reported: the render's wall time and CPU
 * as a multiple of real time (the meeting's length over the render's time), per layout and x264 preset. The inputs
 * are cached under ~/.cache/svc/composite-bench (a 10-minute set takes a few minutes to make once).
 *
 * Recording's own CPU per participant is measured by bench/recording/recording-cpu.bench.ts.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { syntheticTracksFile, type SyntheticMeeting } from '@svc/service/testing';
import { renderComposite } from '../../service/src/recordings/composite/render';
import type { RecordedTrack } from '../../service/src/recordings/recordings.service';
import { cleanUpOnExit, machine, markdownTable, progress, runMain, smokeOr, verdict } from '../support';

const MINUTES = Number(process.env.BENCH_COMPOSITE_MINUTES ?? smokeOr(10, 0.25));
const RUNS = (
  process.env.BENCH_COMPOSITE_RUNS ?? smokeOr('active_speaker:veryfast,grid:veryfast,active_speaker:ultrafast', 'active_speaker:ultrafast')
)
  .split(',')
  .map((r) => r.split(':') as ['active_speaker' | 'grid', string]);
const TARGET = 2;
const CACHE = path.join(os.homedir(), '.cache/svc/composite-bench');
const SENTENCES = [
  'Good morning everyone, thanks for joining the weekly planning meeting.',
  'The new billing service passed all of its tests on the staging server last night.',
  'Customers asked for a faster search page and better reports.',
  'After a long discussion we decided to launch the billing service on Friday.',
  'Grace will write the release notes by Thursday.',
  'The support team will watch the error logs during the first week.',
  'Can you send the slides to the whole team after the meeting?',
  'Thank you all, see you next week.',
];

function meeting(seconds: number): SyntheticMeeting {
  return {
    participants: [
      { name: 'Ada Lovelace', participantId: 'prt_1', voice: 'rms', camera: 'testsrc2' },
      { name: 'Grace Hopper', participantId: 'prt_2', voice: 'slt', camera: 'smptebars' },
      { name: 'Alan Turing', participantId: 'prt_3', voice: 'awb', camera: 'rgbtestsrc' },
      { name: 'Edsger Dijkstra', participantId: 'prt_4', voice: 'kal', camera: 'testsrc', cameraFrom: Math.round(seconds / 10) },
    ],
    sentences: SENTENCES,
    durationSeconds: seconds,
    screen: { by: 1, from: Math.round(seconds * 0.3), to: Math.round(seconds * 0.5), color: 'navy' },
  };
}

/** The cached per-track file of a meeting of `seconds`, made once. */
async function inputs(seconds: number): Promise<{ file: string; tracks: RecordedTrack[] }> {
  const dir = path.join(CACHE, `${seconds}s-v1`);
  const manifest = path.join(dir, 'tracks.json');
  if (fs.existsSync(manifest))
    return { file: path.join(dir, 'tracks.mkv'), tracks: JSON.parse(fs.readFileSync(manifest, 'utf8')) as RecordedTrack[] };
  progress(`making a ${seconds} s 4-person meeting under ${dir} (once)`);
  const made = await syntheticTracksFile(meeting(seconds), dir);
  for (const f of fs.readdirSync(dir)) if (f !== 'tracks.mkv') fs.rmSync(path.join(dir, f), { force: true });
  fs.writeFileSync(manifest, JSON.stringify(made.tracks));
  return made;
}

/** CPU seconds of this process's finished children (the render's ffmpeg processes), from /proc/self/stat. */
function childCpuSeconds(): number {
  const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

async function main(): Promise<void> {
  cleanUpOnExit(60 * 60_000);
  const seconds = Math.round(MINUTES * 60);
  const { file, tracks } = await inputs(seconds);
  // One core: every ffmpeg the render starts is pinned to CPU 0 and told to use one thread.
  const wrapper = path.join(os.tmpdir(), `svc-ffmpeg-core0-${process.pid}`);
  fs.writeFileSync(wrapper, '#!/bin/sh\nexec taskset -c 0 ffmpeg "$@"\n', { mode: 0o755 });
  const hasTaskset = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
  const rows: (string | number)[][] = [];
  let best = 0;
  try {
    for (const [layout, preset] of RUNS) {
      const out = path.join(os.tmpdir(), `svc-composite-bench-${process.pid}.mp4`);
      progress(`rendering ${seconds} s, ${layout}, ${preset}`);
      const cpu0 = childCpuSeconds();
      const t0 = process.hrtime.bigint();
      const rendered = await renderComposite(file, tracks, seconds, out, {
        layout,
        preset,
        threads: 1,
        ffmpeg: hasTaskset ? wrapper : 'ffmpeg',
      });
      const wall = Number(process.hrtime.bigint() - t0) / 1e9;
      const cpu = childCpuSeconds() - cpu0;
      const speed = seconds / wall;
      best = Math.max(best, speed);
      rows.push([
        layout,
        preset,
        `${(rendered.sizeBytes / 1e6).toFixed(1)} MB`,
        wall.toFixed(1),
        cpu.toFixed(1),
        `${speed.toFixed(2)}x`,
        `${(seconds / cpu).toFixed(2)}x`,
      ]);
      fs.rmSync(out, { force: true });
    }
  } finally {
    fs.rmSync(wrapper, { force: true });
  }
  process.stdout.write(
    `\n# Composite render benchmark\n\n4 participants (4 microphones, 4 VP8 cameras 640x360 at 15 fps, one starting late, a screen share for 20 % of the time), ` +
      `${seconds} s, rendered to 640x360 at 15 fps H.264 + AAC on one core (${hasTaskset ? 'taskset -c 0' : 'no taskset: all cores'}, ffmpeg -threads 1); ${machine()}\n\n` +
      markdownTable(
        ['layout', 'x264 preset', 'MP4', 'wall s', 'CPU s', 'speed (real time / wall)', 'real time / CPU'],
        rows,
        [2, 3, 4, 5, 6],
      ) +
      `\n\nAt least ${TARGET}x real time on one core: ${verdict(best >= TARGET)}\n`,
  );
}

runMain(main);
