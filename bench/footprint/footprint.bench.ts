/**
 * The service's footprint on a small server (issue 23): the resident memory of the whole process tree (the
 * service and its media workers) idle after start, against the same tree once the embedded project database
 * runs (what starting it at boot used to cost, measured in the same run); and the first GraphQL request after
 * a cold start, against a warm one. `npx tsx bench/footprint/footprint.bench.ts`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  cleanUpOnExit,
  freePort,
  machine,
  makeTempDir,
  markdownTable,
  progress,
  removeTempDir,
  ROOT,
  runMain,
  smokeOr,
  spawnNode,
  verdict,
  withServer,
} from '../support';

const MAIN = path.join(ROOT, 'service/dist/main.js');
const CLI = path.join(ROOT, 'service/bin/svc.js');
/** Idle means after the start's own work has settled: samples over a few seconds, the largest one counts. */
const SETTLE_MS = smokeOr(5_000, 500);
const SAMPLES = smokeOr(10, 2);
const SAMPLE_EVERY_MS = 500;
const TARGET_IDLE_MB = 150;
const TARGET_FIRST_GRAPHQL_MS = 1_500;

/** Resident memory (kB) of `root` and every live descendant, from /proc. */
function treeRssKb(root: number): { totalKb: number; processes: { pid: number; name: string; rssKb: number }[] } {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      parents.set(pid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // The process exited while being listed.
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) for (const [pid, ppid] of parents) if (ppid === tree[i]) tree.push(pid);
  const processes = tree.flatMap((pid) => {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      return [{ pid, name: /Name:\s+(\S+)/.exec(status)?.[1] ?? '?', rssKb }];
    } catch {
      return [];
    }
  });
  return { totalKb: processes.reduce((sum, p) => sum + p.rssKb, 0), processes };
}

/** The largest tree RSS over SAMPLES samples after SETTLE_MS, with the process list of that sample. */
async function idleTree(pid: number): Promise<ReturnType<typeof treeRssKb>> {
  await sleep(SETTLE_MS);
  let largest = treeRssKb(pid);
  for (let i = 1; i < SAMPLES; i++) {
    await sleep(SAMPLE_EVERY_MS);
    const sample = treeRssKb(pid);
    if (sample.totalKb > largest.totalKb) largest = sample;
  }
  return largest;
}

async function graphql(url: string, apikey: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${url}/project/graphql/v1`, {
    method: 'POST',
    headers: { apikey, 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ __typename }' }),
  });
  const body = (await res.json()) as { data?: { __typename?: string } };
  if (res.status !== 200 || body.data?.__typename !== 'Query') throw new Error(`GraphQL answered ${res.status} ${JSON.stringify(body)}`);
  return performance.now() - started;
}

function anonKey(dataDir: string): string {
  const out = execFileSync(process.execPath, [CLI, 'project', 'keys', '--json'], { env: { ...process.env, SVC_DATA_DIR: dataDir } });
  return (JSON.parse(out.toString()) as { anon_key: string }).anon_key;
}

/** Starts the built service as `npm start` would, on its own ports; `use` runs once /healthz answers. */
async function withService<T>(
  dataDir: string,
  extraEnv: Record<string, string>,
  use: (url: string, pid: number) => Promise<T>,
): Promise<T> {
  const [port, rtcBase] = [await freePort(), 40_000 + Math.floor(Math.random() * 400) * 50];
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    SVC_DATA_DIR: dataDir,
    SVC_LOG_LEVEL: 'warn',
    SVC_RTC_MIN_PORT: String(rtcBase),
    SVC_RTC_MAX_PORT: String(rtcBase + 49),
    SVC_TURN: 'off',
    ...extraEnv,
  };
  const child = spawnNode([MAIN], env);
  const url = `http://127.0.0.1:${port}`;
  return withServer(child, `${url}/healthz`, () => use(url, child.pid!));
}

async function main(): Promise<void> {
  cleanUpOnExit();
  const dataDir = await makeTempDir('svc-bench-footprint-');
  try {
    progress('footprint: first start (a new data directory), idle, then the project database started by GraphQL');
    const first = await withService(dataDir, {}, async (url, pid) => {
      const idle = await idleTree(pid);
      const firstEverMs = await graphql(url, anonKey(dataDir));
      const withProject = await idleTree(pid);
      return { idle, withProject, firstEverMs };
    });
    progress('footprint: second start on the same data, the first GraphQL request after it, then warm ones');
    const second = await withService(dataDir, {}, async (url, pid) => {
      const idle = await idleTree(pid);
      const key = anonKey(dataDir);
      const coldMs = await graphql(url, key);
      const warm: number[] = [];
      for (let i = 0; i < smokeOr(50, 3); i++) warm.push(await graphql(url, key));
      warm.sort((a, b) => a - b);
      return { idle, coldMs, warmMedianMs: warm[Math.floor(warm.length / 2)]! };
    });
    let withTurn: ReturnType<typeof treeRssKb> | undefined;
    const turnInstalled = (process.env.PATH ?? '').split(':').some((dir) => existsSync(path.join(dir, 'turnserver')));
    if (!turnInstalled) {
      progress('footprint: no turnserver installed; the tree with embedded TURN is not measured');
    } else {
      progress('footprint: the same, with the embedded TURN server');
      const turnPort = await freePort();
      withTurn = await withService(
        dataDir,
        { SVC_TURN: 'embedded', SVC_TURN_PORT: String(turnPort), SVC_TURN_TLS_PORT: String(await freePort()) },
        (_url, pid) => idleTree(pid),
      );
    }

    const mb = (kb: number) => (kb / 1024).toFixed(1);
    const describe = (tree: ReturnType<typeof treeRssKb>) => tree.processes.map((p) => `${p.name} ${mb(p.rssKb)}`).join(' + ');
    const idleMb = Math.max(first.idle.totalKb, second.idle.totalKb) / 1024;
    const lines = [
      '# Footprint benchmark',
      '',
      machine(),
      '',
      markdownTable(
        ['process tree', 'resident MB', 'processes (MB)'],
        [
          ['idle after the first start', mb(first.idle.totalKb), describe(first.idle)],
          ['idle after a restart', mb(second.idle.totalKb), describe(second.idle)],
          ['after the project database started (the old boot)', mb(first.withProject.totalKb), describe(first.withProject)],
          ...(withTurn ? [['idle, with the embedded TURN server', mb(withTurn.totalKb), describe(withTurn)]] : []),
        ],
        [1],
      ),
      '',
      `Idle tree against the tree with the project database running: ${((idleMb * 1024) / first.withProject.totalKb).toFixed(2)}x.`,
      '',
      markdownTable(
        ['GraphQL request', 'ms'],
        [
          ['first ever (creates the embedded database)', first.firstEverMs.toFixed(0)],
          ['first after a restart (cold start)', second.coldMs.toFixed(0)],
          ['warm (median)', second.warmMedianMs.toFixed(1)],
        ],
        [1],
      ),
      '',
      'Targets:',
      `- idle process tree (service + media workers) at most ${TARGET_IDLE_MB} MB: ${idleMb.toFixed(1)} MB, ${verdict(idleMb <= TARGET_IDLE_MB)}`,
      `- first GraphQL request after a cold start under ${TARGET_FIRST_GRAPHQL_MS} ms: ${second.coldMs.toFixed(0)} ms ` +
        `(${(second.coldMs / second.warmMedianMs).toFixed(0)}x a warm one), ${verdict(second.coldMs < TARGET_FIRST_GRAPHQL_MS)}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await removeTempDir(dataDir);
  }
}

runMain(main);
