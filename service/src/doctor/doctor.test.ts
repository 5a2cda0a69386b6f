import { execFile, execFileSync } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../config';
import { PROJECT_DRIVERS, startTestProject } from '../testing';
import { serveLocalSql } from '../project/project.socket';
import {
  checkAnnouncedIp,
  checkProjectTables,
  checkBaseUrl,
  checkDisk,
  checkRtcPorts,
  checkTls,
  checkTranscription,
  runDoctor,
  type CheckResult,
} from './doctor';
import { systemProbes, type DoctorProbes } from './doctor.probes';

const DAY_MS = 86_400_000;
const ROOT = path.resolve(__dirname, '../../..');

/** The machine's probes, with what a test replaces. */
function probes(overrides: Partial<DoctorProbes> = {}): DoctorProbes {
  return { ...systemProbes(), ...overrides };
}

/** A self-signed certificate and its key for `host`, valid `days` from now, written by openssl into `dir`. */
function certificate(dir: string, host: string, days: number, name = 'cert'): { cert: string; key: string } {
  const cert = path.join(dir, `${name}.pem`);
  const key = path.join(dir, `${name}.key`);
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert,
    '-days', String(days), '-subj', `/CN=${host}`, '-addext', `subjectAltName=DNS:${host}`,
  ], { stdio: 'ignore' }); // prettier-ignore
  return { cert, key };
}

/** `count` consecutive ports free on 127.0.0.1 for both UDP and TCP right now. */
async function freeRange(count: number): Promise<number> {
  const system = systemProbes();
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 9_000);
    let free = true;
    for (let port = base; port < base + count && free; port++) {
      free = (await system.bind('udp', '127.0.0.1', port)) === null && (await system.bind('tcp', '127.0.0.1', port)) === null;
    }
    if (free) return base;
  }
  throw new Error('no free port range');
}

async function holdUdp(port: number): Promise<dgram.Socket> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(port, '127.0.0.1', resolve));
  return socket;
}

async function listenOn(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

const byName = (results: CheckResult[], name: string) => results.filter((r) => r.name === name);

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-doctor-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const baseEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  SVC_DATA_DIR: path.join(dir, 'data'),
  HOST: '127.0.0.1',
  SVC_RTC_LISTEN_IP: '127.0.0.1',
  SVC_RTC_WORKERS: '1',
  SVC_TURN: 'off',
  ...extra,
});

describe('TLS certificate', () => {
  it('files: ok for the host with days left, a warning near its end, a failure once expired', () => {
    const { cert, key } = certificate(dir, 'meet.test', 30);
    const env = baseEnv({ SVC_BASE_URL: 'https://meet.test', SVC_TLS: 'files', SVC_TLS_CERT_FILE: cert, SVC_TLS_KEY_FILE: key });
    const input = { config: loadConfig(env), env };
    const now = Date.now();
    const fine = checkTls(input, probes({ now: () => now }));
    expect(fine).toMatchObject({ status: 'ok', message: expect.stringMatching(/for meet\.test, valid for (29|30) more days/) });
    const soon = checkTls(input, probes({ now: () => now + 25 * DAY_MS }));
    expect(soon).toMatchObject({ status: 'warn', message: expect.stringMatching(/expires in [45] days/), fix: 'renew it and restart svc' });
    const late = checkTls(input, probes({ now: () => now + 31 * DAY_MS }));
    expect(late).toMatchObject({ status: 'fail', message: expect.stringContaining('expired on') });
  });

  it("files: fails for another host name, a key that is not the certificate's, a missing file and a file that is no certificate", () => {
    const { cert, key } = certificate(dir, 'meet.test', 30);
    const other = certificate(dir, 'other.test', 30, 'other');
    const check = (extra: NodeJS.ProcessEnv) => {
      const env = baseEnv({
        SVC_BASE_URL: 'https://meet.test',
        SVC_TLS: 'files',
        SVC_TLS_CERT_FILE: cert,
        SVC_TLS_KEY_FILE: key,
        ...extra,
      });
      return checkTls({ config: loadConfig(env), env }, probes());
    };
    expect(check({ SVC_BASE_URL: 'https://meet.example.com' })).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('is not for meet.example.com (DNS:meet.test)'),
    });
    expect(check({ SVC_TLS_KEY_FILE: other.key })).toMatchObject({ status: 'fail', message: `${other.key} is not the key of ${cert}` });
    expect(check({ SVC_TLS_CERT_FILE: path.join(dir, 'none.pem') })).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('does not exist'),
    });
    expect(check({ SVC_TLS_CERT_FILE: key })).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('is not a PEM certificate'),
    });
    expect(check({})).toMatchObject({ status: 'ok' });
  });

  it('acme: reads {dataDir}/tls/cert.pem, and only warns while none has been issued', () => {
    const env = baseEnv({ SVC_BASE_URL: 'https://meet.test', SVC_TLS: 'acme' });
    const input = { config: loadConfig(env), env };
    expect(checkTls(input, probes())).toMatchObject({ status: 'warn', message: expect.stringContaining('no certificate yet') });
    fs.mkdirSync(path.join(dir, 'data', 'tls'), { recursive: true });
    const { cert } = certificate(dir, 'meet.test', 90);
    fs.copyFileSync(cert, path.join(dir, 'data', 'tls', 'cert.pem'));
    expect(checkTls(input, probes())).toMatchObject({
      status: 'ok',
      message: expect.stringContaining(`${path.join(dir, 'data', 'tls', 'cert.pem')} for meet.test`),
    });
    const off = baseEnv({ SVC_BASE_URL: 'https://meet.test' });
    expect(checkTls({ config: loadConfig(off), env: off }, probes())).toMatchObject({
      status: 'ok',
      message: expect.stringContaining('TLS proxy'),
    });
  });
});

describe('base URL', () => {
  const check = (url: string, p = probes()) => checkBaseUrl(loadConfig(baseEnv({ SVC_BASE_URL: url })), p);

  it('warns on loopback, fails on plain http elsewhere and on a name that does not resolve', async () => {
    expect(await check('http://localhost:8080')).toMatchObject({ status: 'warn', message: expect.stringContaining('this machine only') });
    expect(await check('http://meet.example.com')).toMatchObject({
      status: 'fail',
      fix: expect.stringContaining('SVC_BASE_URL=https://meet.example.com'),
    });
    const unresolved = probes({ resolve: () => Promise.reject(Object.assign(new Error('not found'), { code: 'ENOTFOUND' })) });
    expect(await check('https://meet.example.com', unresolved)).toMatchObject({
      status: 'fail',
      message: 'meet.example.com does not resolve (ENOTFOUND)',
    });
    const resolved = probes({ resolve: () => Promise.resolve(['198.51.100.7']) });
    expect(await check('https://meet.example.com', resolved)).toMatchObject({
      status: 'ok',
      message: 'https://meet.example.com resolves to 198.51.100.7',
    });
  });
});

describe('ports', () => {
  it('the HTTP port: free is ok, another program on it fails, the running svc on it is ok', async () => {
    const other = net.createServer((socket) => socket.destroy());
    const port = await listenOn(other);
    try {
      const env = baseEnv({ PORT: String(port), SVC_RTC_WORKERS: '0' });
      const results = await runDoctor({ config: loadConfig(env), env }, probes());
      expect(byName(results, 'HTTP port (PORT)')).toEqual([
        expect.objectContaining({ status: 'fail', message: `TCP 127.0.0.1:${port} is taken by another program` }),
      ]);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
    const rtc = await freeRange(2);
    const svc = http.createServer((_req, res) => res.end(JSON.stringify({ status: 'ok', workers: [{ slot: 0, port: rtc }] })));
    const svcPort = await listenOn(svc);
    const worker = await holdUdp(rtc);
    try {
      const env = baseEnv({ PORT: String(svcPort), SVC_RTC_MIN_PORT: String(rtc), SVC_RTC_MAX_PORT: String(rtc + 1) });
      const results = await runDoctor({ config: loadConfig(env), env }, probes());
      expect(byName(results, 'HTTP port (PORT)')).toEqual([
        expect.objectContaining({ status: 'ok', message: `TCP 127.0.0.1:${svcPort} is served by the running svc` }),
      ]);
      // The worker's port is the running svc's: not counted as taken.
      expect(byName(results, 'RTC ports')).toEqual([
        expect.objectContaining({ status: 'ok', message: expect.stringContaining("1 in use by the running svc's workers") }),
      ]);
    } finally {
      worker.close();
      await new Promise((resolve) => svc.close(resolve));
    }
  });

  it('RTC ports: free is ok, one taken by another program warns, too few left for the workers fails', async () => {
    const base = await freeRange(2);
    const config = (workers: number) =>
      loadConfig(baseEnv({ SVC_RTC_MIN_PORT: String(base), SVC_RTC_MAX_PORT: String(base + 1), SVC_RTC_WORKERS: String(workers) }));
    expect(await checkRtcPorts(config(1), probes())).toMatchObject({
      status: 'ok',
      message: expect.stringContaining(`${base}-${base + 1} on 127.0.0.1 free on UDP and TCP`),
    });
    const held = await holdUdp(base);
    try {
      expect(await checkRtcPorts(config(1), probes())).toMatchObject({
        status: 'warn',
        message: expect.stringContaining(`taken by other programs: UDP ${base}`),
      });
      const second = await holdUdp(base + 1);
      try {
        expect(await checkRtcPorts(config(2), probes())).toMatchObject({
          status: 'fail',
          message: expect.stringContaining('too few free ports'),
        });
      } finally {
        second.close();
      }
    } finally {
      held.close();
    }
    const elsewhere = loadConfig(
      baseEnv({ SVC_RTC_LISTEN_IP: '192.0.2.99', SVC_RTC_MIN_PORT: String(base), SVC_RTC_MAX_PORT: String(base + 1) }),
    );
    expect(await checkRtcPorts(elsewhere, probes())).toMatchObject({
      status: 'fail',
      message: 'SVC_RTC_LISTEN_IP 192.0.2.99 is not an address of this machine',
    });
  });

  it('TURN: off warns; external without a secret warns; embedded fails without coturn and on a taken port', async () => {
    const turn = async (env: NodeJS.ProcessEnv, p = probes()) => {
      const full = baseEnv({ SVC_RTC_WORKERS: '0', PORT: '0', ...env });
      return byName(
        await runDoctor(
          { config: loadConfig({ ...full, SVC_TURN: undefined, SVC_TURN_URLS: undefined, SVC_TURN_SECRET: undefined }), env: full },
          p,
        ),
        'TURN',
      );
    };
    expect(await turn({ SVC_TURN: 'off' })).toEqual([
      expect.objectContaining({ status: 'warn', message: expect.stringContaining('off: browsers') }),
    ]);
    expect(await turn({ SVC_TURN: 'external', SVC_TURN_URLS: 'turn:turn.example.com:3478' })).toEqual([
      expect.objectContaining({ status: 'warn', message: expect.stringContaining('without SVC_TURN_SECRET') }),
    ]);
    const noCoturn = probes({ which: () => undefined });
    expect(await turn({ SVC_TURN: 'embedded' }, noCoturn)).toEqual([
      expect.objectContaining({ status: 'fail', fix: 'apt-get install coturn' }),
    ]);
    const base = await freeRange(2);
    const held = await holdUdp(base);
    try {
      const withCoturn = probes({ which: () => '/usr/bin/turnserver' });
      const results = await turn({ SVC_TURN: 'embedded', SVC_TURN_PORT: String(base), SVC_TURN_TLS_PORT: String(base + 1) }, withCoturn);
      expect(results).toEqual([expect.objectContaining({ status: 'fail', message: `UDP 127.0.0.1:${base} is taken (EADDRINUSE)` })]);
    } finally {
      held.close();
    }
  });
});

describe('announced IP, tools and disk', () => {
  it('announced IP: a private one warns, a public one is ok; unset, the machine needs a public address', async () => {
    const check = (env: NodeJS.ProcessEnv, p = probes()) =>
      checkAnnouncedIp(loadConfig(baseEnv({ SVC_RTC_LISTEN_IP: '0.0.0.0', ...env })), p);
    expect(await check({ SVC_RTC_ANNOUNCED_IP: '10.0.0.5' })).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('not a public address'),
    });
    expect(await check({ SVC_RTC_ANNOUNCED_IP: '1.1.1.1' })).toMatchObject({ status: 'ok' });
    expect(await check({}, probes({ addresses: () => ['127.0.0.1', '10.1.2.3', '::1'] }))).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('the workers announce 10.1.2.3'),
      fix: expect.stringContaining('SVC_RTC_ANNOUNCED_IP'),
    });
    expect(await check({}, probes({ addresses: () => ['127.0.0.1', '1.1.1.1'] }))).toMatchObject({
      status: 'ok',
      message: expect.stringContaining('announce 1.1.1.1'),
    });
  });

  it('transcription: pocketsphinx and its model, or the STT endpoint', () => {
    const config = loadConfig(baseEnv());
    expect(checkTranscription(config, probes())).toMatchObject({ status: 'ok', message: expect.stringContaining('pocketsphinx with') });
    expect(checkTranscription(config, probes({ which: () => undefined }))).toMatchObject({
      status: 'warn',
      fix: expect.stringContaining('apt-get install pocketsphinx'),
    });
    const noModel = loadConfig(baseEnv({ SVC_POCKETSPHINX_MODEL_DIR: dir }));
    expect(checkTranscription(noModel, probes())).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('lacks en-us, en-us.lm.bin, cmudict-en-us.dict'),
    });
    const stt = loadConfig(baseEnv({ SVC_STT_URL: 'http://127.0.0.1:9/v1' }));
    expect(checkTranscription(stt, probes({ which: () => undefined }))).toMatchObject({
      status: 'ok',
      message: 'through http://127.0.0.1:9/v1 (whisper-1)',
    });
  });

  it("ffmpeg: the recorder's own reason when it is missing", async () => {
    const env = baseEnv({ SVC_RTC_WORKERS: '0', PORT: '0' });
    const missing = probes({ recordingUnavailable: () => 'Recording is unavailable: ffmpeg not found' });
    expect(byName(await runDoctor({ config: loadConfig(env), env }, missing), 'ffmpeg')).toEqual([
      expect.objectContaining({ status: 'warn', message: 'Recording is unavailable: ffmpeg not found' }),
    ]);
  });

  it("disk: the data directory's file system, a warning under 2 GB or 10 %, a failure under 512 MB", () => {
    const config = loadConfig(baseEnv());
    const GB = 1024 ** 3;
    // The data directory does not exist yet: its nearest parent's file system is measured.
    expect(checkDisk(config, probes()).message).toMatch(new RegExp(`GB free of .* GB for ${config.dataDir}$`));
    expect(checkDisk(config, probes({ disk: () => ({ freeBytes: 50 * GB, totalBytes: 100 * GB }) }))).toMatchObject({ status: 'ok' });
    expect(checkDisk(config, probes({ disk: () => ({ freeBytes: 5 * GB, totalBytes: 100 * GB }) }))).toMatchObject({ status: 'warn' });
    expect(checkDisk(config, probes({ disk: () => ({ freeBytes: 1 * GB, totalBytes: 5 * GB }) }))).toMatchObject({ status: 'warn' });
    expect(checkDisk(config, probes({ disk: () => ({ freeBytes: 0.1 * GB, totalBytes: 5 * GB }) }))).toMatchObject({ status: 'fail' });
  });
});

describe.each(PROJECT_DRIVERS)('project tables on %s', (kind) => {
  it('warns about public tables without row-level security, through a running service’s socket or the database itself', async () => {
    const p = await startTestProject(kind);
    try {
      const env = baseEnv({ SVC_DATA_DIR: p.dataDir, ...(p.databaseUrl ? { SVC_PROJECT_DATABASE_URL: p.databaseUrl } : {}) });
      const config = loadConfig(env);
      await p.sql(
        'create table doctor_open(id int); create table doctor_closed(id int); alter table doctor_closed enable row level security',
      );
      // As beside a running service: PGlite is held by it, so the check asks through its socket.
      const socket = kind === 'pglite' ? await serveLocalSql(p.project, p.dataDir) : undefined;
      try {
        const found = await checkProjectTables(config, probes());
        expect(found).toMatchObject({ name: 'project tables', status: 'warn', fix: expect.stringContaining('Enable RLS') });
        expect(found.message).toMatch(
          /^1 table has row-level security off, so anyone with the anon key reads and writes it: public\.doctor_open\./,
        );
        await p.sql('alter table doctor_open enable row level security');
        expect(await checkProjectTables(config, probes())).toEqual({
          name: 'project tables',
          status: 'ok',
          message: '2 public tables, all with row-level security on',
        });
        await p.sql('create table "doctor ""quoted"""(id int)');
        expect((await checkProjectTables(config, probes())).message).toContain(
          'alter table "public"."doctor ""quoted""" enable row level security',
        );
      } finally {
        await socket?.close();
      }
      if (kind === 'pglite') {
        // No service: the check opens the embedded database itself.
        await p.project.close();
        expect(await checkProjectTables(config, probes())).toMatchObject({
          status: 'warn',
          message: expect.stringContaining('public.doctor "quoted"'),
        });
      }
    } finally {
      await p.close();
    }
  }, 180_000);
});

describe('svc doctor (the CLI)', () => {
  const run = promisify(execFile);
  const tsx = require.resolve('tsx/cli');

  async function doctor(env: NodeJS.ProcessEnv): Promise<{ code: number; lines: string[] }> {
    const args = [tsx, '-e', "require('./service/src/cli').main(['doctor'])"];
    const result = await run(process.execPath, args, { cwd: ROOT, env: { PATH: process.env.PATH, ...env }, timeout: 60_000 }).then(
      (r) => ({ code: 0, stdout: r.stdout }),
      (err: { code?: number; stdout?: string }) => ({ code: err.code ?? -1, stdout: err.stdout ?? '' }),
    );
    return { code: result.code, lines: result.stdout.trim().split('\n') };
  }

  it('prints one line per check and the tally, exits 1 on a failure, and creates no data directory', async () => {
    const { cert, key } = certificate(dir, 'localhost', 60);
    const rtc = await freeRange(2);
    const taken = net.createServer((socket) => socket.destroy());
    const port = await listenOn(taken);
    const httpPort = await freeRange(1);
    const env = baseEnv({
      SVC_HTTPS_PORT: String(port),
      SVC_HTTP_PORT: String(httpPort),
      SVC_BASE_URL: 'https://localhost',
      SVC_TLS: 'files',
      SVC_TLS_CERT_FILE: cert,
      SVC_TLS_KEY_FILE: key,
      SVC_RTC_MIN_PORT: String(rtc),
      SVC_RTC_MAX_PORT: String(rtc + 1),
      SVC_RTC_ANNOUNCED_IP: '1.1.1.1',
    });
    try {
      const { code, lines } = await doctor(env);
      expect(code).toBe(1);
      expect(lines).toHaveLength(12);
      for (const line of lines.slice(0, -1)) expect(line).toMatch(/^(ok {2}|WARN|FAIL) {2}[^:]+: \S/);
      expect(lines).toEqual([
        expect.stringMatching(/^WARN {2}base URL: https:\/\/localhost is this machine only.* -> fix: set SVC_BASE_URL/),
        expect.stringMatching(/^ok {4}TLS certificate: .*cert\.pem for localhost, valid for (59|60) more days/),
        `FAIL  SVC_HTTPS_PORT: TCP 127.0.0.1:${port} is taken by another program -> fix: stop it (see ss -ltnp 'sport = :${port}') or choose another port`,
        `ok    SVC_HTTP_PORT: TCP 127.0.0.1:${httpPort} is free`,
        expect.stringMatching(new RegExp(`^ok {4}RTC ports: ${rtc}-${rtc + 1} on 127.0.0.1 free on UDP and TCP`)),
        expect.stringMatching(/^WARN {2}TURN: off: /),
        'ok    announced IP: SVC_RTC_ANNOUNCED_IP=1.1.1.1',
        expect.stringMatching(/^(ok {4}ffmpeg: ffmpeg and ffprobe run|WARN {2}ffmpeg: Recording is unavailable)/),
        expect.stringMatching(/^(ok {4}|WARN {2})transcription: /),
        expect.stringMatching(/^(ok {4}|WARN {2}|FAIL {2})disk: .* GB free of /),
        'ok    project tables: no project database yet',
        expect.stringMatching(/^[1-9]\d* to fix, \d+ to look at, \d+ fine$/),
      ]);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
    expect(fs.existsSync(path.join(dir, 'data'))).toBe(false);
  }, 90_000);

  it('a configuration that does not load is one failing line', async () => {
    const { code, lines } = await doctor(baseEnv({ SVC_RTC_MIN_PORT: '50000', SVC_RTC_MAX_PORT: '40000' }));
    expect(code).toBe(1);
    expect(lines).toEqual([
      'FAIL  configuration: SVC_RTC_MAX_PORT (40000) must not be below SVC_RTC_MIN_PORT (50000) -> fix: correct that variable',
    ]);
  }, 60_000);
});
