import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from '../shared/logger';
import { TurnServer, type TurnServerOptions } from './turn.server';

jest.setTimeout(30_000);

const BINARY = '/usr/bin/turnserver';

async function freeTcpPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitUntil(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(25);
  }
}

const describeWithCoturn = fs.existsSync(BINARY) ? describe : describe.skip;

describeWithCoturn('the supervised turnserver (Debian coturn on loopback)', () => {
  let dataDir: string;
  let logLines: string[];
  let options: TurnServerOptions;
  const servers: TurnServer[] = [];

  const start = async (extra: Partial<TurnServerOptions> = {}) => {
    const server = await TurnServer.start({ ...options, ...extra });
    servers.push(server);
    return server;
  };

  beforeEach(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-turn-'));
    logLines = [];
    const relay = 62_000 + Math.floor(Math.random() * 150) * 20;
    options = {
      binary: BINARY,
      dir: path.join(dataDir, 'turn'),
      baseUrl: 'http://localhost:8080',
      rtc: { listenIp: '127.0.0.1', announcedIp: undefined },
      turn: { port: await freeTcpPort(), tlsPort: await freeTcpPort(), minPort: relay, maxPort: relay + 19 },
      tlsFiles: { certFile: undefined, keyFile: undefined },
      dataDir,
      logger: createLogger('debug', (line) => logLines.push(line)),
    };
  });

  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs turnserver on a generated 0600 config with a 0600 secret that no log line shows, and hands out its URLs', async () => {
    const server = await start();
    const { pid, alive: running } = server.health();
    expect(running).toBe(true);
    expect(alive(pid!)).toBe(true);

    const conf = path.join(dataDir, 'turn', 'turnserver.conf');
    const secretFile = path.join(dataDir, 'turn', 'static-auth-secret');
    expect(fs.statSync(conf).mode & 0o777).toBe(0o600);
    expect(fs.statSync(secretFile).mode & 0o777).toBe(0o600);
    const secret = fs.readFileSync(secretFile, 'utf8').trim();
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    const text = fs.readFileSync(conf, 'utf8');
    expect(text).toContain(`static-auth-secret=${secret}\n`);
    expect(text).toContain('listening-ip=127.0.0.1\n');
    expect(text).toContain('allow-loopback-peers\n');
    expect(text).toContain('allowed-peer-ip=127.0.0.1\n');
    expect(text).toContain('no-tls\n');
    expect(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')).toEqual([BINARY, '-c', conf, '']);

    const { port } = options.turn;
    expect(server.iceServers()).toEqual({
      urls: [`turn:localhost:${port}?transport=udp`, `turn:localhost:${port}?transport=tcp`],
      secret,
    });
    // turnserver's own output is logged at debug, the secret never.
    await waitUntil('turnserver output in the log', () => logLines.some((l) => l.includes('"msg":"turnserver"')));
    expect(logLines.join('')).not.toContain(secret);
  });

  it('replaces a turnserver that was killed, and keeps the secret across restarts', async () => {
    const server = await start();
    const first = server.health().pid!;
    const restarted = new Promise<{ pid: number; previousPid: number | null }>((resolve) => server.once('restarted', resolve));
    process.kill(first, 'SIGKILL');
    const event = await restarted;
    expect(event.previousPid).toBe(first);
    expect(event.pid).not.toBe(first);
    expect(server.health()).toEqual({ pid: event.pid, alive: true, restarts: 1 });
    expect(alive(event.pid)).toBe(true);
    expect(logLines.some((l) => l.includes('"msg":"turnserver died"') && l.includes('"signal":"SIGKILL"'))).toBe(true);

    const secret = server.iceServers().secret;
    await server.close();
    const again = await start();
    expect(again.iceServers().secret).toBe(secret);
  });

  it('stops turnserver on close and does not replace it', async () => {
    const server = await start();
    const pid = server.health().pid!;
    await server.close();
    expect(alive(pid)).toBe(false);
    expect(server.health().alive).toBe(false);
    expect(server.health().restarts).toBe(0);
  });

  /** A self-signed certificate for `cn` put into `{dataDir}/tls` whole (written beside, then renamed, as the ACME store does). */
  const writeCertificate = async (cn: string) => {
    const tlsDir = path.join(dataDir, 'tls');
    const scratch = fs.mkdtempSync(path.join(dataDir, 'cert-'));
    const openssl = spawn('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-subj', `/CN=${cn}`, '-keyout', path.join(scratch, 'key.pem'), '-out', path.join(scratch, 'cert.pem'),
    ], { stdio: 'ignore' }); // prettier-ignore
    expect(await new Promise((resolve) => openssl.once('exit', resolve))).toBe(0);
    fs.mkdirSync(tlsDir, { recursive: true });
    fs.renameSync(path.join(scratch, 'key.pem'), path.join(tlsDir, 'key.pem'));
    fs.renameSync(path.join(scratch, 'cert.pem'), path.join(tlsDir, 'cert.pem'));
    return tlsDir;
  };

  it('restarts turnserver when a certificate appears or is renewed, and serves turns: with it', async () => {
    const server = await start({ certificateCheckMs: 100 });
    const first = server.health().pid!;
    expect(server.iceServers().urls.some((u) => u.startsWith('turns:'))).toBe(false);
    const tlsDir = await writeCertificate('localhost');
    const turnsUrl = `turns:localhost:${options.turn.tlsPort}?transport=tcp`;
    await waitUntil('turns: offered', () => server.iceServers().urls.includes(turnsUrl) && server.health().alive);
    await waitUntil('the first turnserver gone', () => !alive(first));
    expect(server.health().restarts).toBe(1);
    expect(logLines.some((l) => l.includes('the TLS certificate changed'))).toBe(true);
    const text = fs.readFileSync(path.join(dataDir, 'turn', 'turnserver.conf'), 'utf8');
    expect(text).toContain(`cert=${path.join(tlsDir, 'cert.pem')}\n`);
    // It listens for TLS on its own port.
    const handshake = () =>
      new Promise<string | null>((resolve) => {
        const socket = tls.connect({ host: '127.0.0.1', port: options.turn.tlsPort, rejectUnauthorized: false, servername: 'localhost' });
        socket.once('secureConnect', () => {
          const cn = socket.getPeerCertificate().subject?.CN;
          const subject = Array.isArray(cn) ? (cn[0] ?? null) : (cn ?? null);
          socket.destroy();
          resolve(subject);
        });
        socket.once('error', () => resolve(null));
      });
    const handshakeFor = async (expected: string) => {
      let subject = await handshake();
      for (const until = Date.now() + 10_000; subject !== expected && Date.now() < until; await sleep(50)) subject = await handshake();
      return subject;
    };
    expect(await handshakeFor('localhost')).toBe('localhost');

    // A renewed certificate (here with another name, to tell them apart) is served after the next look.
    const second = server.health().pid!;
    await writeCertificate('renewed.localhost');
    expect(await handshakeFor('renewed.localhost')).toBe('renewed.localhost');
    expect(alive(second)).toBe(false);
    expect(server.health().restarts).toBe(2);
  });

  it('kills a turnserver left running on the same config by a service that was killed', async () => {
    const first = await start();
    await first.close();
    servers.length = 0;
    const conf = path.join(dataDir, 'turn', 'turnserver.conf');
    const leftover = spawn(BINARY, ['-c', conf], { stdio: 'ignore', detached: true });
    leftover.unref();
    const pidFile = path.join(dataDir, 'turn', 'turnserver.pid');
    await waitUntil(
      'the leftover writing its pid file',
      () => fs.existsSync(pidFile) && Number(fs.readFileSync(pidFile, 'utf8')) === leftover.pid,
    );
    const server = await start();
    await waitUntil('the leftover gone', () => !alive(leftover.pid!));
    expect(server.health().pid).not.toBe(leftover.pid);
    expect(logLines.some((l) => l.includes('left running by an earlier start'))).toBe(true);
  });
});
