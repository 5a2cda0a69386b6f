import dgram from 'node:dgram';
import dns from 'node:dns/promises';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { findOnPath, type Config } from '../config';
import { recordingUnavailableReason } from '../media/recorder';
import { openProjectDriver, ProjectDatabase } from '../project/project.database';
import { TABLES_RLS_SQL, tablesOf, type TableRls } from '../project/project.rls';
import { localSqlPath, sendLocalSql } from '../project/project.socket';

/** What `svc doctor` asks of the machine; the checks take these, so tests can replace what is outside our control (DNS, the disk's size). */
export interface DoctorProbes {
  /** The addresses a host name resolves to; rejects when it does not resolve. */
  resolve(host: string): Promise<string[]>;
  /** Binds `port` on `ip` for a moment: null when it could, else the error code (EADDRINUSE, EACCES, EADDRNOTAVAIL...). */
  bind(protocol: 'tcp' | 'udp', ip: string, port: number): Promise<string | null>;
  /** What answers GET `url` (over http or https, any certificate accepted): status and body, or null when nothing does. */
  get(url: string): Promise<{ status: number; body: string } | null>;
  /** The path of `program` on PATH, or undefined. */
  which(program: string): string | undefined;
  /** Why recording cannot work (ffmpeg or ffprobe missing), or null. */
  recordingUnavailable(): string | null;
  /** Whether a file or directory exists. */
  exists(file: string): boolean;
  readFile(file: string): string;
  /** Free and total bytes of the file system holding `dir` (or its nearest existing parent). */
  disk(dir: string): { freeBytes: number; totalBytes: number };
  /** This machine's interface addresses. */
  addresses(): string[];
  /** Epoch milliseconds. */
  now(): number;
  /** The project database's public tables with their RLS flag; undefined when there is no project database yet. */
  projectTables(config: Config): Promise<TableRls[] | undefined>;
}

const PROBE_TIMEOUT_MS = 2_000;
const PROJECT_PROBE_TIMEOUT_MS = 15_000;

/** The real machine. */
export function systemProbes(): DoctorProbes {
  return {
    resolve: async (host) => (await dns.lookup(host, { all: true })).map((a) => a.address),
    bind: (protocol, ip, port) => (protocol === 'tcp' ? bindTcp(ip, port) : bindUdp(ip, port)),
    get: (url) => get(url),
    which: (program) => findOnPath(program, process.env.PATH ?? ''),
    recordingUnavailable: () => recordingUnavailableReason(),
    exists: (file) => fs.existsSync(file),
    readFile: (file) => fs.readFileSync(file, 'utf8'),
    disk: (dir) => {
      let at = path.resolve(dir);
      while (!fs.existsSync(at) && path.dirname(at) !== at) at = path.dirname(at);
      const s = fs.statfsSync(at);
      return { freeBytes: s.bavail * s.bsize, totalBytes: s.blocks * s.bsize };
    },
    addresses: () =>
      Object.values(os.networkInterfaces())
        .flat()
        .flatMap((a) => (a ? [a.address] : [])),
    now: () => Date.now(),
    projectTables: (config) => projectTables(config),
  };
}

/** Asks a running service through its socket, else opens the database itself (a server, or PGlite's directory if it exists). */
async function projectTables(config: Config): Promise<TableRls[] | undefined> {
  if (!config.project.databaseUrl) {
    try {
      return tablesOf((await sendLocalSql(localSqlPath(config.dataDir), TABLES_RLS_SQL, PROJECT_PROBE_TIMEOUT_MS))[0]);
    } catch (err) {
      if (!['ENOENT', 'ECONNREFUSED'].includes(String((err as NodeJS.ErrnoException).code))) throw err;
    }
    if (!fs.existsSync(ProjectDatabase.dataDirOf(config.dataDir))) return undefined;
  }
  const driver = await openProjectDriver({ databaseUrl: config.project.databaseUrl, dataDir: ProjectDatabase.dataDirOf(config.dataDir) });
  try {
    return tablesOf((await driver.script(TABLES_RLS_SQL))[0]);
  } finally {
    await driver.close();
  }
}

function bindTcp(ip: string, port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    server.listen({ host: ip, port, exclusive: true }, () => server.close(() => resolve(null)));
  });
}

function bindUdp(ip: string, port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = dgram.createSocket(net.isIPv6(ip) ? 'udp6' : 'udp4');
    socket.once('error', (err: NodeJS.ErrnoException) => {
      socket.close();
      resolve(err.code ?? err.message);
    });
    socket.bind({ address: ip, port, exclusive: true }, () => socket.close(() => resolve(null)));
  });
}

function get(url: string): Promise<{ status: number; body: string } | null> {
  return new Promise((resolve) => {
    const client = url.startsWith('https:') ? https : http;
    // Only to tell whether svc answers on a local port: its certificate may be for the public name, or not issued yet.
    const req = client.get(url, { timeout: PROBE_TIMEOUT_MS, rejectUnauthorized: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (body.length < 65_536) body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', () => resolve(null));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(null));
  });
}
