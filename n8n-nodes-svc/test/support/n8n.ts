import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** The n8n-nodes-svc package directory. */
export const PACKAGE_DIR = path.resolve(__dirname, '../..');

/** How long a first install of a tool may take (n8n: about 4 minutes). */
export const INSTALL_TIMEOUT_MS = 15 * 60_000;

/** Installs a pinned tool into the cache outside the repo unless it is there already; resolves with its executable. */
export function ensureTool(tool: 'n8n' | 'node-cli'): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'bash',
      [path.join(PACKAGE_DIR, 'scripts/ensure-n8n.sh'), tool],
      { timeout: INSTALL_TIMEOUT_MS, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`ensure-n8n.sh ${tool} failed: ${error.message}\n${stderr}`));
        else resolve(stdout.trim().split('\n').at(-1)!);
      },
    );
  });
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Polls `check` every 100 ms until it returns true, for at most `ms`. */
export async function waitFor(check: () => Promise<boolean> | boolean, ms: number, what: string): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** What an n8n CLI command printed and how it ended. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Where n8n loads the package from: a community package install (of the built folder, or of a packed tarball as n8n installs one), or the package directory named in N8N_CUSTOM_EXTENSIONS. */
export type Install = 'community-package' | 'custom-extensions' | { tarball: string };

/** One n8n instance's world: its user folder, ports, and the CLI and server bound to them. */
export interface N8nHome {
  dir: string;
  url: string;
  /** The prefix of this package's node types as this install loads them: `n8n-nodes-svc` or `CUSTOM`. */
  typePrefix: string;
  /** Runs one CLI command (`import:workflow`, `execute`, ...) to its end. */
  cli(args: string[], timeoutMs?: number): Promise<CliResult>;
  /** Writes `value` as JSON into the user folder and returns the file's path. */
  writeJson(name: string, value: unknown): string;
  /** Starts `n8n start` and resolves once its REST API answers. */
  start(): Promise<N8nServer>;
  remove(): void;
}

/** A running `n8n start`. */
export interface N8nServer {
  logs(): string;
  stop(): Promise<void>;
}

function copyPackage(target: string): void {
  fs.mkdirSync(target, { recursive: true });
  fs.copyFileSync(path.join(PACKAGE_DIR, 'package.json'), path.join(target, 'package.json'));
  fs.cpSync(path.join(PACKAGE_DIR, 'dist'), path.join(target, 'dist'), { recursive: true });
}

function n8nEnvironment(dir: string, port: number, brokerPort: number, install: Install): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  // Under jest NODE_ENV is 'test', which makes n8n refuse to load nodes.
  delete env.NODE_ENV;
  delete env.N8N_CUSTOM_EXTENSIONS;
  return {
    ...env,
    N8N_USER_FOLDER: dir,
    N8N_PORT: String(port),
    N8N_LISTEN_ADDRESS: '127.0.0.1',
    N8N_HOST: '127.0.0.1',
    N8N_PROTOCOL: 'http',
    WEBHOOK_URL: `http://127.0.0.1:${port}/`,
    N8N_RUNNERS_BROKER_PORT: String(brokerPort),
    N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
    N8N_ENCRYPTION_KEY: randomBytes(24).toString('hex'),
    N8N_DIAGNOSTICS_ENABLED: 'false',
    N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
    N8N_TEMPLATES_ENABLED: 'false',
    N8N_PERSONALIZATION_ENABLED: 'false',
    N8N_HIRING_BANNER_ENABLED: 'false',
    // `n8n execute` prints its result through the logger at level info.
    N8N_LOG_LEVEL: 'info',
    DB_TYPE: 'sqlite',
    // n8n keeps some scratch directories (data table uploads) under the temp dir; keep them inside this home.
    TMPDIR: path.join(dir, 'tmp'),
    ...(install === 'custom-extensions' ? { N8N_CUSTOM_EXTENSIONS: PACKAGE_DIR } : {}),
  };
}

function run(command: string, args: string[], cwd: string): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, timeout: 120_000, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

async function expectSuccess(what: string, result: Promise<CliResult>): Promise<void> {
  const { code, stdout, stderr } = await result;
  if (code !== 0) throw new Error(`${what} failed (${code}):\n${stdout}\n${stderr}`);
}

/**
 * Installs a packed tarball into `<nodesDir>/node_modules/n8n-nodes-svc` the way n8n 2.8's community package installer
 * does after `npm pack` from the registry: unpack, drop dev/peer/optional dependencies, `npm install` with n8n's flags,
 * and record the package in `<nodesDir>/package.json`.
 */
export async function installTarball(nodesDir: string, tarball: string): Promise<void> {
  const target = path.join(nodesDir, 'node_modules/n8n-nodes-svc');
  fs.mkdirSync(target, { recursive: true });
  await expectSuccess('tar', run('tar', ['-xzf', tarball, '-C', target, '--strip-components=1'], nodesDir));
  const manifestPath = path.join(target, 'package.json');
  const { devDependencies, peerDependencies, optionalDependencies, ...manifest } = JSON.parse(fs.readFileSync(manifestPath, 'utf8')); // eslint-disable-line @typescript-eslint/no-unused-vars
  fs.writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
  const npmArgs = [
    '--audit=false',
    '--fund=false',
    '--bin-links=false',
    '--install-strategy=shallow',
    '--ignore-scripts=true',
    '--package-lock=false',
  ];
  await expectSuccess('npm install', run('npm', ['install', ...npmArgs, '--offline'], target));
  fs.writeFileSync(
    path.join(nodesDir, 'package.json'),
    JSON.stringify({ name: 'installed-nodes', private: true, dependencies: { 'n8n-nodes-svc': manifest.version } }),
  );
}

/** The files of n8n's SQLite database in `<user folder>/.n8n`. */
const DATABASE_FILES = ['database.sqlite', 'database.sqlite-wal', 'database.sqlite-shm'];

/**
 * The `.n8n` folder of a user folder whose database this n8n has created and migrated once (no workflow, no
 * credential, no owner yet, and without its settings file, which holds that run's encryption key), kept in the temp
 * dir per n8n executable. A fresh home starts from a copy of it: the first command on an empty database spent
 * seconds in n8n's migrations, in every test file.
 */
async function migratedDatabase(bin: string): Promise<string> {
  const real = fs.realpathSync(bin);
  const key = createHash('sha256')
    .update(`${real}\n${fs.statSync(real).mtimeMs}`)
    .digest('hex')
    .slice(0, 16);
  const template = path.join(os.tmpdir(), `svc-n8n-migrated-${key}`);
  if (fs.existsSync(path.join(template, 'database.sqlite'))) return template;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-migrate-'));
  try {
    fs.mkdirSync(path.join(dir, 'tmp'));
    const env = n8nEnvironment(dir, await freePort(), await freePort(), 'community-package');
    const empty = path.join(dir, 'none.json');
    fs.writeFileSync(empty, '[]');
    const result = await new Promise<CliResult>((resolve) => {
      execFile(bin, ['import:workflow', `--input=${empty}`], { env, timeout: 120_000, maxBuffer: 64 << 20 }, (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
      );
    });
    if (result.code !== 0) throw new Error(`n8n could not migrate a new database (${result.code}):\n${result.stdout}\n${result.stderr}`);
    const staged = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-migrated-'));
    for (const file of DATABASE_FILES) {
      const from = path.join(dir, '.n8n', file);
      if (fs.existsSync(from)) fs.copyFileSync(from, path.join(staged, file));
    }
    // Another jest worker may have made it meanwhile: then keep theirs.
    try {
      fs.renameSync(staged, template);
    } catch {
      fs.rmSync(staged, { recursive: true, force: true });
    }
    return template;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A fresh n8n user folder in a temp dir, with the built package installed as `install` says. */
export async function createN8nHome(bin: string, install: Install): Promise<N8nHome> {
  if (typeof install === 'string' && !fs.existsSync(path.join(PACKAGE_DIR, 'dist/nodes/Svc/Svc.node.js'))) {
    throw new Error('n8n-nodes-svc/dist is missing: run `npm run build` (npm test does) first');
  }
  const template = await migratedDatabase(bin);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-e2e-'));
  fs.mkdirSync(path.join(dir, 'tmp'));
  fs.mkdirSync(path.join(dir, '.n8n'));
  for (const file of fs.readdirSync(template)) fs.copyFileSync(path.join(template, file), path.join(dir, '.n8n', file));
  // Where n8n's "Install community node" puts a package: <user folder>/.n8n/nodes/node_modules/<name>.
  if (install === 'community-package') copyPackage(path.join(dir, '.n8n/nodes/node_modules/n8n-nodes-svc'));
  if (typeof install === 'object') await installTarball(path.join(dir, '.n8n/nodes'), install.tarball);
  const port = await freePort();
  const env = n8nEnvironment(dir, port, await freePort(), install);
  return {
    dir,
    url: `http://127.0.0.1:${port}`,
    typePrefix: install === 'custom-extensions' ? 'CUSTOM' : 'n8n-nodes-svc',
    cli(args, timeoutMs = 60_000) {
      return new Promise((resolve) => {
        execFile(bin, args, { env, timeout: timeoutMs, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
        });
      });
    },
    writeJson(name, value) {
      const file = path.join(dir, name);
      fs.writeFileSync(file, JSON.stringify(value));
      return file;
    },
    async start() {
      const child: ChildProcess = spawn(bin, ['start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      const server: N8nServer = {
        logs: () => output,
        async stop() {
          if (child.exitCode !== null || child.signalCode !== null) return;
          const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
          child.kill('SIGTERM');
          await exited;
          clearTimeout(killer);
        },
      };
      try {
        await waitFor(
          async () => {
            if (child.exitCode !== null) throw new Error(`n8n exited with ${child.exitCode}:\n${output}`);
            // The readiness probe answers before the REST API is mounted, and while n8n starts every route
            // answers 200 with a "starting up" text page; the settings the editor loads first are JSON only once it is up.
            const res = await fetch(`http://127.0.0.1:${port}/rest/settings`).catch(() => undefined);
            return res?.status === 200 && (res.headers.get('content-type') ?? '').includes('application/json');
          },
          60_000,
          'n8n REST API',
        );
      } catch (error) {
        await server.stop();
        throw error;
      }
      return server;
    },
    remove() {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The execution that `n8n execute --rawOutput` printed between its log lines (also when the workflow failed). */
export function executionOf(result: CliResult): Execution {
  const start = result.stdout.search(/^\{/m);
  const end = result.stdout.lastIndexOf('\n}');
  if (start < 0 || end < start)
    throw new Error(`n8n execute printed no execution (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
  return JSON.parse(result.stdout.slice(start, end + 2));
}

/** The parts of an n8n execution the tests read. */
export interface Execution {
  status: string;
  data: {
    resultData: {
      runData: Record<string, RunOfNode[]>;
      error?: { message: string; name: string; httpCode?: string; context?: Record<string, unknown> };
    };
  };
}

/** One run of one node in an execution. */
export interface RunOfNode {
  data?: { main: { json: Record<string, unknown>; binary?: Record<string, Record<string, unknown>> }[][] };
  error?: { message: string };
}

/** The items the node named `name` output on its first run. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- n8n items are arbitrary JSON
export function outputOf(execution: Execution, name: string): Record<string, any>[] {
  const run = execution.data.resultData.runData[name]?.[0];
  if (!run?.data) throw new Error(`node "${name}" did not run or output nothing: ${JSON.stringify(run?.error ?? null)}`);
  return run.data.main[0]!.map((item) => item.json);
}
