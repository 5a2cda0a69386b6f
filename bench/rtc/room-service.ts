/**
 * The built service with rooms, as the memory and join benchmarks run it: a child process on a fresh
 * data directory, loopback only, one media worker, an all-scopes key made with the CLI beforehand.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, makeTempDir, pollUntil, removeTempDir, ROOT, spawnNode, withServer } from '../support';

const SERVICE_MAIN = path.join(ROOT, 'service', 'dist', 'main.js');
const SERVICE_CLI = path.join(ROOT, 'service', 'bin', 'svc.js');
const CLI_TIMEOUT_MS = 30_000;
/** PGlite's first start on a new data directory takes seconds, more on a busy machine. */
const PROJECT_START_TIMEOUT_MS = 60_000;

const execFileAsync = promisify(execFile);

/** The running service as a benchmark uses it. */
export interface RoomService {
  baseUrl: string;
  key: string;
  /** The Node process. */
  pid: number;
  /** The mediasoup worker processes, from GET /healthz. */
  workerPids: number[];
  /** Creates a meeting through the public API; returns its join code. */
  createMeeting(title: string): Promise<string>;
}

/** The body of a fetch answer, parsed as JSON, or an error naming the status when it is not `expected`. */
export async function jsonOf<T>(res: Promise<Response>, expected: number): Promise<T> {
  const answer = await res;
  const body = await answer.text();
  if (answer.status !== expected) throw new Error(`${answer.url} answered ${answer.status}: ${body}`);
  return JSON.parse(body) as T;
}

/** An all-scopes key made with the `svc` CLI before the service starts, as an operator would. */
async function createKey(dataDir: string): Promise<string> {
  const args = [SERVICE_CLI, 'keys', 'create', '--name', 'rtc-bench', '--scopes', 'all'];
  const { stdout } = await execFileAsync(process.execPath, args, {
    env: { ...process.env, SVC_DATA_DIR: dataDir },
    timeout: CLI_TIMEOUT_MS,
  });
  return stdout.trim();
}

/**
 * Runs `use` against `service/dist/main.js` started with one media worker whose WebRtcServer listens on
 * 127.0.0.1:`rtcPort`, once it has started, with its embedded project database unless `projectDatabase`
 * is false; the process is stopped and its data directory removed afterwards, also on error.
 */
export async function withRoomService<T>(
  rtcPort: number,
  use: (service: RoomService) => Promise<T>,
  opts: { projectDatabase?: boolean } = {},
): Promise<T> {
  const projectDatabase = opts.projectDatabase ?? true;
  const dataDir = await makeTempDir('svc-bench-rooms-');
  try {
    const key = await createKey(dataDir);
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const child = spawnNode([SERVICE_MAIN], {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      SVC_BASE_URL: baseUrl,
      SVC_DATA_DIR: dataDir,
      SVC_LOG_LEVEL: 'warn',
      SVC_RTC_WORKERS: '1',
      SVC_RTC_MIN_PORT: String(rtcPort),
      SVC_RTC_MAX_PORT: String(rtcPort),
      SVC_RTC_LISTEN_IP: '127.0.0.1',
      SVC_ROOM_RATE_LIMIT_PER_SECOND: '10000',
      SVC_ROOM_RATE_LIMIT_PER_MINUTE: '100000',
      // Without the project database: a PostgreSQL URL on a closed loopback port, so its start fails at once and PGlite never loads.
      ...(projectDatabase ? {} : { SVC_PROJECT_DATABASE_URL: `postgresql://127.0.0.1:${await freePort()}/none` }),
    });
    return await withServer(child, `${baseUrl}/healthz`, async () => {
      // The project database starts beside the API; its socket appears once it runs, and only then is start-up over.
      if (projectDatabase)
        await pollUntil(() => existsSync(path.join(dataDir, 'project.sock')), {
          intervalMs: 100,
          timeoutMs: PROJECT_START_TIMEOUT_MS,
          what: 'the project database to start',
        });
      const health = await jsonOf<{ workers: { pid: number | null; alive: boolean }[] }>(fetch(`${baseUrl}/healthz`), 200);
      const workerPids = health.workers.filter((w) => w.alive && w.pid !== null).map((w) => w.pid!);
      if (workerPids.length !== 1) throw new Error(`expected one running media worker, /healthz reports ${JSON.stringify(health.workers)}`);
      const createMeeting = async (title: string) => {
        const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
        const body = JSON.stringify({ title });
        return (await jsonOf<{ code: string }>(fetch(`${baseUrl}/api/v1/public/meetings`, { method: 'POST', headers, body }), 201)).code;
      };
      return use({ baseUrl, key, pid: child.pid!, workerPids, createMeeting });
    });
  } finally {
    await removeTempDir(dataDir);
  }
}
