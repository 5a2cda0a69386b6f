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
const LANES = 3;
const ONE_RUN_TIMEOUT_MS = 150_000;

/**
 * Each entry point: the environment of its smallest run beyond SVC_BENCH_SMOKE=1, a line its report prints, about how
 * long its smoke run takes alone (seconds, for the order: longest first) and, for those on fixed RTC ports, the port
 * group (runs of one group never overlap; webinar-cores takes 29800-29899, room-memory 29800, join-latency 29801).
 * The others (the test harness's random RTC ports, or none) may overlap anything: in the smoke run no figure counts,
 * so a media benchmark's CPU share does not need a quiet machine.
 */
const ENTRIES: Record<string, { env?: Record<string, string>; prints: RegExp; seconds: number; ports?: string }> = {
  'api/main.ts': { prints: /^Targets \(authenticated GET\):$/m, seconds: 19 },
  'captions/captions.bench.ts': { prints: /^\| speakers \| captions \|/m, seconds: 22 },
  'webhooks/main.ts': { prints: /^Targets:$/m, seconds: 8 },
  'footprint/footprint.bench.ts': { prints: /^# Footprint benchmark$/m, seconds: 20 },
  'media/webinar-cores.bench.ts': { prints: /^\| round \| workers \| viewers \|/m, seconds: 20, ports: '29800' },
  'graphql/validation.bench.ts': {
    env: { BENCH_ROUNDS: '1', BENCH_PER_ROUND: '1' },
    prints: /^# GraphQL validation benchmark$/m,
    seconds: 17,
  },
  'project/graphql.bench.ts': { prints: /^# Project GraphQL benchmark$/m, seconds: 14 },
  'recording/recording-cpu.bench.ts': { prints: /^\| participants \|/m, seconds: 12 },
  'recordings/composite.bench.ts': { prints: /^# Composite render benchmark$/m, seconds: 5 },
  'rtc/fanout.bench.ts': { prints: /^\| consumers \|/m, seconds: 10 },
  'rtc/room-memory.bench.ts': { prints: /^\| service \| phase \|/m, seconds: 11, ports: '29800' },
  'rtc/join-latency.bench.ts': { prints: /^\| join \|/m, seconds: 13, ports: '29800' },
  'search/search.bench.ts': { prints: /^p99 under 20 ms at/m, seconds: 1 },
  'summaries/summaries.bench.ts': { prints: /^Precision and recall at least 0.8 each:/m, seconds: 8 },
  'transcription/transcription.bench.ts': { prints: /^Real-time factor \(CPU, one core\)/m, seconds: 5 },
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
  const queue = present.filter((entry) => entry in ENTRIES).sort((a, b) => ENTRIES[b]!.seconds - ENTRIES[a]!.seconds);
  const busyPorts = new Set<string>();
  const portGroupEnded: (() => void)[] = [];
  /** Takes the longest entry left whose port group is free, and holds its group (waits while only busy ones are left). */
  const next = async (): Promise<string | undefined> => {
    for (;;) {
      const at = queue.findIndex((entry) => !busyPorts.has(ENTRIES[entry]!.ports ?? ''));
      if (at >= 0) {
        const entry = queue.splice(at, 1)[0]!;
        if (ENTRIES[entry]!.ports) busyPorts.add(ENTRIES[entry]!.ports!);
        return entry;
      }
      if (queue.length === 0) return undefined;
      await new Promise<void>((resolve) => portGroupEnded.push(resolve));
    }
  };
  const lane = async () => {
    for (let entry = await next(); entry !== undefined; entry = await next()) {
      runs.set(entry, await runBench(entry));
      const ports = ENTRIES[entry]!.ports;
      if (ports) busyPorts.delete(ports);
      portGroupEnded.splice(0).forEach((wake) => wake());
    }
  };
  await Promise.all(Array.from({ length: LANES }, lane));
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
