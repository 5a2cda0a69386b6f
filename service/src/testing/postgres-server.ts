import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

/** A throwaway PostgreSQL server on 127.0.0.1, for the project database's server-mode tests. */
export interface PostgresServer {
  /** postgres://postgres@127.0.0.1:PORT/postgres (the superuser; trust authentication on loopback). */
  url: string;
  /** A URL for a new empty database. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

const BIN_DIRS = ['/usr/lib/postgresql/15/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/17/bin'];
const RUN_AS = 'postgres';

/** The directory of Debian's server binaries, installing the `postgresql` package when root and absent. */
export function postgresBinDir(): string {
  const found = () => BIN_DIRS.find((d) => fs.existsSync(path.join(d, 'initdb')));
  let dir = found();
  if (!dir && process.getuid?.() === 0) {
    // flock: jest runs test files in parallel, and dpkg allows one install at a time.
    const install = `for d in ${BIN_DIRS.join(' ')}; do [ -x "$d/initdb" ] && exit 0; done; apt-get update && apt-get install -y --no-install-recommends postgresql`;
    execFileSync('flock', [path.join(os.tmpdir(), 'svc-postgresql-install.lock'), 'sh', '-c', install], {
      stdio: 'ignore',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      timeout: 900_000,
    });
    dir = found();
  }
  if (!dir) throw new Error('PostgreSQL server binaries not found (apt-get install postgresql)');
  return dir;
}

/** A loopback port that was free a moment ago. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** Runs a command as the unprivileged `postgres` user when we are root (the server refuses to run as root). */
function asServerUser(cmd: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', RUN_AS, '--', cmd, ...args]] : [cmd, args];
}

/** The postmaster's process id from its lock file, if it is running. */
function serverPid(data: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** initdb into a temp dir, start the server on a free loopback port, wait until it accepts connections (bounded). */
export async function startPostgresServer(): Promise<PostgresServer> {
  const bin = postgresBinDir();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-pg-'));
  fs.chmodSync(dir, 0o755);
  const data = path.join(dir, 'data');
  fs.mkdirSync(data);
  if (process.getuid?.() === 0) execFileSync('chown', ['-R', `${RUN_AS}:`, dir]);
  const [initCmd, initArgs] = asServerUser(path.join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    'postgres',
    '--auth=trust',
    '--no-sync',
    '-E',
    'UTF8',
    '--locale=C',
  ]);
  execFileSync(initCmd, initArgs, { stdio: 'ignore', timeout: 120_000 });
  const port = await freePort();
  const [cmd, args] = asServerUser(path.join(bin, 'postgres'), [
    '-D',
    data,
    '-p',
    String(port),
    '-k',
    dir,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'fsync=off',
    '-c',
    'max_connections=60',
  ]);
  const child: ChildProcess = spawn(cmd, args, { stdio: 'ignore' });
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      break;
    } catch {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline || child.exitCode !== null) {
        child.kill('SIGKILL');
        throw new Error('PostgreSQL did not start within 60 s');
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    async createDatabase(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error('bad database name');
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`create database ${name}`);
      await client.end();
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        // Signal the postmaster itself: as root the child is runuser, which does not pass SIGINT on (the server
        // then ran on for the 20 s until the SIGKILL, which killed runuser only and left the server running).
        const postmaster = serverPid(data);
        const signal = (s: NodeJS.Signals) => {
          try {
            if (postmaster) process.kill(postmaster, s);
          } catch {
            // already gone
          }
          child.kill(s);
        };
        signal('SIGINT'); // fast shutdown
        const timer = setTimeout(() => signal('SIGKILL'), 20_000);
        await exited;
        clearTimeout(timer);
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
