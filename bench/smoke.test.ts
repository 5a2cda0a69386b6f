/**
 * Every benchmark entry point run at its smallest size (SVC_BENCH_SMOKE=1), so that none stops running
 * unnoticed: each must exit 0 and print its report. No figure is checked. The API, room-memory and
 * join benchmarks run the built service (npm test builds first).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const BENCH = __dirname;
const TSX = require.resolve('tsx/cli');
/**
 * The media benchmarks (fixed RTC ports, a browser, or a media worker's CPU share) run one after another in one lane;
 * the others run two at a time beside it. The footprint benchmark (random RTC ports, no browser, memory only) is one
 * of the others: in the media lane it made that lane the longest.
 */
const MEDIA = /^(rtc|recording|captions|media)\//;
const OTHER_LANES = 2;
const ONE_RUN_TIMEOUT_MS = 150_000;

/** Each entry point, the environment of its smallest run beyond SVC_BENCH_SMOKE=1, and a line its report prints. */
const ENTRIES: Record<string, { env?: Record<string, string>; prints: RegExp }> = {
  'api/main.ts': { prints: /^Targets \(authenticated GET\):$/m },
  'captions/captions.bench.ts': { prints: /^\| speakers \| captions \|/m },
  'webhooks/main.ts': { prints: /^Targets:$/m },
  'footprint/footprint.bench.ts': { prints: /^# Footprint benchmark$/m },
  'media/webinar-cores.bench.ts': { prints: /^\| round \| workers \| viewers \|/m },
  'graphql/validation.bench.ts': { env: { BENCH_ROUNDS: '1', BENCH_PER_ROUND: '1' }, prints: /^# GraphQL validation benchmark$/m },
  'project/graphql.bench.ts': { prints: /^# Project GraphQL benchmark$/m },
  'recording/recording-cpu.bench.ts': { prints: /^\| participants \|/m },
  'recordings/composite.bench.ts': { prints: /^# Composite render benchmark$/m },
  'rtc/fanout.bench.ts': { prints: /^\| consumers \|/m },
  'rtc/room-memory.bench.ts': { prints: /^\| service \| phase \|/m },
  'rtc/join-latency.bench.ts': { prints: /^\| join \|/m },
  'search/search.bench.ts': { prints: /^p99 under 20 ms at/m },
  'summaries/summaries.bench.ts': { prints: /^Precision and recall at least 0.8 each:/m },
  'transcription/transcription.bench.ts': { prints: /^Real-time factor \(CPU, one core\)/m },
};

/** The entry points in bench/: `<subject>/main.ts` and `<subject>/*.bench.ts`. */
function entryPoints(): string[] {
  return fs
    .readdirSync(BENCH, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== 'node_modules')
    .flatMap((d) => fs.readdirSync(path.join(BENCH, d.name)).map((f) => `${d.name}/${f}`))
    .filter((f) => f.endsWith('/main.ts') || f.endsWith('.bench.ts'))
    .sort();
}

interface Run {
  code: number | string | null;
  stdout: string;
  stderr: string;
}

function runBench(entry: string): Promise<Run> {
  const env = { ...process.env, SVC_BENCH_SMOKE: '1', ...ENTRIES[entry]!.env };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [TSX, path.join(BENCH, entry)],
      { cwd: path.dirname(BENCH), env, timeout: ONE_RUN_TIMEOUT_MS, killSignal: 'SIGTERM', maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number | string }).code ?? err.message) : 0, stdout, stderr }),
    );
  });
}

const present = entryPoints();
const runs = new Map<string, Run>();

beforeAll(async () => {
  const wanted = present.filter((entry) => entry in ENTRIES);
  const lane = async (queue: string[]) => {
    for (let entry = queue.shift(); entry !== undefined; entry = queue.shift()) runs.set(entry, await runBench(entry));
  };
  const others = wanted.filter((entry) => !MEDIA.test(entry));
  await Promise.all([lane(wanted.filter((entry) => MEDIA.test(entry))), ...Array.from({ length: OTHER_LANES }, () => lane(others))]);
}, 5 * ONE_RUN_TIMEOUT_MS);

it('every benchmark entry point has a smoke run', () => {
  expect(present.filter((entry) => !(entry in ENTRIES))).toEqual([]);
  expect(present.length).toBeGreaterThanOrEqual(9);
});

it.each(Object.keys(ENTRIES).filter((entry) => present.includes(entry)))('%s runs to the end and prints its report', (entry) => {
  const run = runs.get(entry)!;
  if (run.code !== 0)
    throw new Error(`${entry} ended with ${run.code}; the end of its stderr:\n${run.stderr.split('\n').slice(-15).join('\n')}`);
  expect(run.stdout).toContain('SMOKE RUN (SVC_BENCH_SMOKE=1');
  expect(run.stdout).toMatch(ENTRIES[entry]!.prints);
});
