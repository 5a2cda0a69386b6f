/**
 * The service's own TURN server (SVC_TURN=embedded): Debian's coturn run as a child process with a generated
 * config in `{dataDir}/turn`, replaced with backoff when it dies, stopped with the service.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import dns from 'node:dns/promises';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config';
import { firstExternalIpv4 } from '../media/worker-pool';
import type { Logger } from '../shared/logger';
import { findTurnCertificate, isLoopbackIp, isWildcardIp, turnIceUrls, turnServerConf, type CertificateFiles } from './turn.config';

/** How the supervisor runs turnserver; the timings have defaults. */
export interface TurnServerOptions {
  /** coturn's turnserver binary. */
  binary: string;
  /** `{dataDir}/turn`: the generated config, the secret, the pid file and coturn's database. */
  dir: string;
  baseUrl: string;
  rtc: Pick<Config['rtc'], 'listenIp' | 'announcedIp'>;
  turn: Pick<Config['turn'], 'port' | 'tlsPort' | 'minPort' | 'maxPort'>;
  /** The configured certificate files (SVC_TLS_CERT_FILE/SVC_TLS_KEY_FILE), for turns:. */
  tlsFiles: { certFile: string | undefined; keyFile: string | undefined };
  /** Where `{dataDir}/tls` is looked for (findTurnCertificate). */
  dataDir: string;
  logger?: Logger;
  /** Wait before the second replacement in a row, doubled for each further one; default 500 ms. */
  restartBackoffMs?: number;
  /** The longest wait between replacements; default 30 s. */
  maxRestartBackoffMs?: number;
  /** How long a start may take to accept connections; default 10 s. */
  readyTimeoutMs?: number;
  /** How long turnserver may take to exit after SIGTERM before it gets SIGKILL; default 5 s. */
  stopTimeoutMs?: number;
  /** How often the certificate files are looked at; a new or renewed one restarts turnserver. Default 60 s. */
  certificateCheckMs?: number;
}

/** The TURN server's state for /healthz and tests. */
export interface TurnServerHealth {
  /** The running process, or the last one while a replacement starts. */
  pid: number | null;
  alive: boolean;
  restarts: number;
}

/** Emitted when turnserver exits without being asked to. */
export interface TurnServerDiedEvent {
  pid: number | null;
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** The supervisor's events and their arguments. */
export interface TurnServerEvents {
  died: [TurnServerDiedEvent];
  restarted: [{ pid: number; previousPid: number | null }];
}

const SECRET_FILE = 'static-auth-secret';
const CONF_FILE = 'turnserver.conf';
const PID_FILE = 'turnserver.pid';
/** A turnserver that ran this long before dying is replaced at once; one that died sooner waits the backoff. */
const STABLE_MS = 10_000;

/** The secret in `dir` (created 0600 at first start, reused afterwards so credentials outlive a restart). */
export function loadOrCreateTurnSecret(dir: string): string {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, SECRET_FILE);
  try {
    const existing = fs.readFileSync(file, 'utf8').trim();
    if (existing.length >= 32) return existing;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secret = randomBytes(32).toString('hex');
  fs.writeFileSync(file, secret + '\n', { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return secret;
}

/** Starts the TURN server when SVC_TURN=embedded (logging why TURN is off when nobody chose that); undefined otherwise. */
export async function startTurnServer(config: Config, logger: Logger): Promise<TurnServer | undefined> {
  if (config.turn.offReason) logger.warn(config.turn.offReason);
  if (config.turn.mode !== 'embedded' || !config.turn.binary) return undefined;
  return TurnServer.start({
    binary: config.turn.binary,
    dir: path.join(config.dataDir, 'turn'),
    baseUrl: config.baseUrl,
    rtc: config.rtc,
    turn: config.turn,
    tlsFiles: config.tls,
    dataDir: config.dataDir,
    logger,
  });
}

/** Runs, replaces and stops one coturn process; create it with `TurnServer.start`. */
export class TurnServer extends EventEmitter<TurnServerEvents> {
  private child: ChildProcess | undefined;
  private lastPid: number | null = null;
  private restarts = 0;
  private consecutiveFailures = 0;
  private readonly stopRestarts = new AbortController();
  private supervising: Promise<void> = Promise.resolve();
  private closing: Promise<void> | undefined;
  private certificate: CertificateFiles | undefined;
  /** The certificate files (names, sizes, times) the running turnserver was started with. */
  private certificateStamp = '';
  private certificateCheck: NodeJS.Timeout | undefined;
  private restarting = false;

  private constructor(
    private readonly options: Required<Omit<TurnServerOptions, 'logger'>> & Pick<TurnServerOptions, 'logger'>,
    private readonly secret: string,
  ) {
    super();
  }

  /**
   * Writes the config and starts turnserver; resolves once it accepts connections. A turnserver that does not come
   * up is logged and replaced with backoff like one that died, so a broken TURN never keeps the rooms from starting.
   */
  static async start(options: TurnServerOptions): Promise<TurnServer> {
    const server = new TurnServer(
      {
        restartBackoffMs: 500,
        maxRestartBackoffMs: 30_000,
        readyTimeoutMs: 10_000,
        stopTimeoutMs: 5_000,
        certificateCheckMs: 60_000,
        ...options,
      },
      loadOrCreateTurnSecret(options.dir),
    );
    await server.killLeftover();
    await server.run();
    server.certificateCheck = setInterval(() => server.checkCertificate(), server.options.certificateCheckMs).unref();
    return server;
  }

  /** What the rooms hand to browsers: the URLs and the secret their time-limited credentials are signed with. */
  iceServers(): { urls: string[]; secret: string } {
    const { baseUrl, rtc, turn } = this.options;
    const urls = turnIceUrls({ baseUrl, announcedIp: rtc.announcedIp, port: turn.port, tlsPort: turn.tlsPort, tls: !!this.certificate });
    return { urls, secret: this.secret };
  }

  /** The process, whether it runs, and how often it was replaced. */
  health(): TurnServerHealth {
    return { pid: this.child?.pid ?? this.lastPid, alive: this.child !== undefined, restarts: this.restarts };
  }

  /**
   * Replaces the running turnserver with a fresh one that reads the certificate again (coturn cannot reload it):
   * for a renewed certificate. Relayed calls lose their allocations and reconnect.
   */
  restart(): Promise<void> {
    if (this.closing) return this.closing;
    this.restarting = true;
    return this.enqueue(async () => {
      this.restarting = false;
      const child = this.child;
      this.child = undefined;
      if (child) await stopProcess(child, this.options.stopTimeoutMs);
      if (this.stopRestarts.signal.aborted) return;
      this.restarts++;
      await this.run();
    });
  }

  /** Runs `task` after the supervision work before it; a failure is logged (the next death or restart tries again). */
  private enqueue(task: () => Promise<void>): Promise<void> {
    this.supervising = this.supervising.then(task).catch((error: unknown) => {
      this.options.logger?.error('turnserver could not be started', { error: error instanceof Error ? error.message : String(error) });
    });
    return this.supervising;
  }

  /** Stops replacing turnserver and stops it: SIGTERM, then SIGKILL after the stop timeout. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.stopRestarts.abort();
      clearInterval(this.certificateCheck);
      await this.supervising;
      const child = this.child;
      this.child = undefined;
      if (child) await stopProcess(child, this.options.stopTimeoutMs);
    })();
    return this.closing;
  }

  /** Starts one turnserver and waits until it accepts connections; false if it exited or did not come up in time. */
  private async run(): Promise<boolean> {
    const conf = await this.writeConf();
    const child = spawn(this.options.binary, ['-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
    const startedAt = Date.now();
    for (const stream of [child.stdout!, child.stderr!]) {
      readline.createInterface({ input: stream }).on('line', (line) => this.options.logger?.debug('turnserver', { pid: child.pid, line }));
    }
    const exited = new Promise<TurnServerDiedEvent>((resolve) => {
      child.on('error', (error) => {
        this.options.logger?.error('turnserver could not be started', { binary: this.options.binary, error: error.message });
        resolve({ pid: child.pid ?? null, code: null, signal: null });
      });
      child.once('exit', (code, signal) => resolve({ pid: child.pid ?? null, code, signal }));
    });
    this.child = child;
    if (child.pid) this.lastPid = child.pid;
    void exited.then((event) => this.exited(child, event, Date.now() - startedAt));
    const ready = await this.waitUntilListening(exited);
    if (!ready && this.child === child && !this.stopRestarts.signal.aborted) {
      this.options.logger?.error('turnserver did not accept connections in time; replacing it', {
        pid: child.pid,
        port: this.options.turn.port,
        waited_ms: this.options.readyTimeoutMs,
      });
      child.kill('SIGKILL');
    }
    return ready;
  }

  private async waitUntilListening(exited: Promise<unknown>): Promise<boolean> {
    const { listenIp } = this.options.rtc;
    const host = isWildcardIp(listenIp) ? (listenIp === '::' ? '::1' : '127.0.0.1') : listenIp;
    let gone = false;
    void exited.then(() => (gone = true));
    const until = Date.now() + this.options.readyTimeoutMs;
    while (!gone && !this.stopRestarts.signal.aborted && Date.now() < until) {
      if (await canConnect(host, this.options.turn.port)) return !gone;
      await sleep(50);
    }
    return false;
  }

  private exited(child: ChildProcess, event: TurnServerDiedEvent, ranMs: number): void {
    if (this.child !== child) return;
    this.child = undefined;
    if (this.stopRestarts.signal.aborted) return;
    this.consecutiveFailures = ranMs >= STABLE_MS ? 0 : this.consecutiveFailures + 1;
    this.options.logger?.error('turnserver died', { pid: event.pid, code: event.code, signal: event.signal });
    this.emit('died', event);
    void this.enqueue(() => this.replace(event.pid));
  }

  private async replace(previousPid: number | null): Promise<void> {
    const { restartBackoffMs, maxRestartBackoffMs } = this.options;
    const failures = this.consecutiveFailures;
    const wait = failures <= 1 ? 0 : Math.min(maxRestartBackoffMs, restartBackoffMs * 2 ** (failures - 2));
    if (wait > 0) {
      const aborted = await sleep(wait, undefined, { signal: this.stopRestarts.signal }).then(
        () => false,
        () => true,
      );
      if (aborted) return;
    }
    if (this.stopRestarts.signal.aborted) return;
    this.restarts++;
    const ready = await this.run();
    if (ready && this.child?.pid) {
      this.options.logger?.info('turnserver replaced', { pid: this.child.pid, previousPid });
      this.emit('restarted', { pid: this.child.pid, previousPid });
    }
  }

  /** Restarts turnserver when a certificate appeared, changed or went away since it started (coturn reads it once). */
  private checkCertificate(): void {
    if (this.restarting || this.closing || certificateStamp(this.findCertificate()) === this.certificateStamp) return;
    this.options.logger?.info('the TLS certificate changed; restarting turnserver to serve it');
    void this.restart();
  }

  private findCertificate(): CertificateFiles | undefined {
    return findTurnCertificate(this.options.tlsFiles, this.options.dataDir);
  }

  /** Writes turnserver.conf (0600: it holds the secret) for the next start, with the certificate found now. */
  private async writeConf(): Promise<string> {
    const { dir, rtc, turn, baseUrl } = this.options;
    this.certificate = this.findCertificate();
    this.certificateStamp = certificateStamp(this.certificate);
    const listeningIp = isWildcardIp(rtc.listenIp) ? undefined : rtc.listenIp;
    const relayIp = listeningIp ?? firstExternalIpv4();
    const announced = rtc.announcedIp ? await resolveIp(rtc.announcedIp) : undefined;
    // The address in the SFU's ICE candidates, which relays must reach: the same choice as the worker pool's.
    const sfuIp = announced ?? relayIp;
    const text = turnServerConf({
      listeningIp,
      relayIp,
      externalIp: announced,
      port: turn.port,
      tlsPort: turn.tlsPort,
      minPort: turn.minPort,
      maxPort: turn.maxPort,
      secret: this.secret,
      realm: new URL(baseUrl).hostname,
      certificate: this.certificate,
      allowedPeerIps: [...new Set([sfuIp, relayIp])],
      allowLoopbackPeers: isLoopbackIp(rtc.listenIp),
      pidFile: path.join(dir, PID_FILE),
      userDb: path.join(dir, 'turndb'),
    });
    const file = path.join(dir, CONF_FILE);
    fs.writeFileSync(file, text, { mode: 0o600 });
    fs.chmodSync(file, 0o600);
    return file;
  }

  /** A turnserver left running on this config by a service that was killed (SIGKILL leaves its children). */
  private async killLeftover(): Promise<void> {
    let pid: number;
    try {
      pid = Number(fs.readFileSync(path.join(this.options.dir, PID_FILE), 'utf8').trim());
    } catch {
      return;
    }
    if (!Number.isInteger(pid) || pid <= 1) return;
    let cmdline: string;
    try {
      cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      return;
    }
    if (!cmdline.includes('turnserver') || !cmdline.includes(path.join(this.options.dir, CONF_FILE))) return;
    this.options.logger?.warn('stopping a turnserver left running by an earlier start', { pid });
    process.kill(pid, 'SIGKILL');
    const until = Date.now() + this.options.stopTimeoutMs;
    while (fs.existsSync(`/proc/${pid}`) && Date.now() < until) await sleep(20);
  }
}

/** What changes when a certificate file is replaced: names, sizes and modification times; '' without one. */
function certificateStamp(files: CertificateFiles | undefined): string {
  if (!files) return '';
  try {
    return [files.certFile, files.keyFile]
      .map((file) => {
        const stat = fs.statSync(file);
        return `${file}:${stat.size}:${stat.mtimeMs}`;
      })
      .join('|');
  } catch {
    return '';
  }
}

/** The IP of `address` (itself when it is one), IPv4 preferred. */
async function resolveIp(address: string): Promise<string> {
  if (net.isIP(address)) return address;
  return (await dns.lookup(address, { family: 0, order: 'ipv4first' })).address;
}

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.setTimeout(1_000, () => done(false));
  });
}

/** SIGTERM, then SIGKILL if the process has not exited within `timeoutMs`; resolves once it has exited. */
async function stopProcess(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timedOut = await Promise.race([exited.then(() => false), sleep(timeoutMs, true, { ref: false })]);
  if (timedOut) {
    child.kill('SIGKILL');
    await exited;
  }
}
