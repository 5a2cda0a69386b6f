/**
 * Webhooks and the event feed, measured with the real service code in-process on loopback:
 * (a) signed deliveries per second of the DeliveryWorker to a receiver in a child process, against
 * plain unsigned POSTs from a keep-alive client loop at the same concurrency; (b) how long an
 * event takes to reach the receiver when the worker is idle; (c) whether a feed poll stays as fast
 * at 10^6 events as at 10^4. See bench/README.md.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { verifyWebhook } from '@svc/connectors';
import { createApp } from '../service/src/app';
import { loadConfig, type Config } from '../service/src/config';
import { openDatabase, type Db } from '../service/src/db/connection';
import { migrate } from '../service/src/db/migrate';
import { EVENT_TYPES, type EventType } from '../service/src/events/event-types';
import type { FeedQuery } from '../service/src/events/events.service';
import type { Principal } from '../service/src/identity/identity.service';
import { SCOPES } from '../service/src/keys/scopes';
import { createDeliveryWorker, createServices, type Services } from '../service/src/services';
import { isoAt, systemClock } from '../service/src/shared/clock';
import { IdGenerator } from '../service/src/shared/ids';
import { createLogger } from '../service/src/shared/logger';
import {
  breathe,
  cleanUpOnExit,
  closedLoop,
  freePort,
  machine,
  makeTempDir,
  markdownTable,
  otherCpuText,
  percent,
  pollUntil,
  progress,
  removeTempDir,
  runMain,
  spawnRole,
  summarize,
  timedRequest,
  verdict,
  watchOtherCpu,
  withServer,
  withTimeout,
  type Summary,
} from './support';

/** argv[2] that makes this file run the counting receiver instead of the benchmark. */
const RECEIVER_ROLE = '--receiver';

/** (a) Endpoint counts, and signed deliveries per run (a multiple of every count); BENCH_DELIVERIES overrides. */
const ENDPOINT_COUNTS = [1, 10, 100] as const;
const DEFAULT_DELIVERIES = 6_000;
/** (a) An unreported run first, so JIT warm-up does not land on the first measured row. */
const WARMUP_ENDPOINTS = 10;
const WARMUP_DELIVERIES = 1_000;
const DRAIN_TIMEOUT_MS = 60_000;
const DRAIN_POLL_MS = 10;
const WORKER_STOP_TIMEOUT_MS = 20_000;
const STATS_TIMEOUT_MS = 5_000;

/** (b) Events emitted one at a time, this far apart, to an idle worker. */
const LATENCY_EVENTS = 200;
const LATENCY_GAP_MS = 20;
const ARRIVAL_TIMEOUT_MS = 10_000;

/** (c) Table sizes, page size, polls per measurement and the data's mix. */
const FEED_SIZES = [10_000, 100_000, 1_000_000] as const;
const FEED_LIMIT = 50;
const FEED_WARMUP_POLLS = 300;
const FEED_POLLS = 1_000;
const HTTP_WARMUP_POLLS = 200;
const HTTP_POLLS = 300;
const FEED_ROUNDS = 5;
/** Untimed polls before each timed batch, so the batch does not pay for what ran just before it. */
const FEED_SETTLE_POLLS = 20;
/** Rows per insert transaction: about 15 ms each, so the process stays responsive to signals in between. */
const INSERT_BATCH = 1_000;
const ORGANIZATIONS = 3;
const WEBINAR_SLUGS = ['webinar-1', 'webinar-2', 'webinar-3', 'webinar-4', 'webinar-5'];

const TARGET_DELIVERIES_PER_SECOND = 500;
const TARGET_LATENCY_P99_MS = 250;
const TARGET_FEED_RATIO = 2;
/** The whole run is stopped (exit 1) if it takes longer than this. */
const RUN_DEADLINE_MS = 6 * 60_000;

const SLUG = 'bench-webinar';
const logger = createLogger('warn');
/** Correctness failures: they make the exit code 1 (missed targets do not). */
const failures: string[] = [];

/** Records a correctness failure unless `ok`. */
function check(ok: boolean, message: string): void {
  if (!ok) {
    failures.push(message);
    progress(`FAILED: ${message}`);
  }
}

/** One request the counting receiver kept, to verify a signature after a run. */
interface Sample {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** The receiver's answer to GET /stats. */
interface ReceiverStats {
  count: number;
  sample: Sample | null;
}

/** The counting receiver (child process): answers every POST with 204 once its body is read, and GET /stats with the count so far. */
function runReceiver(): void {
  let count = 0;
  let last: { path: string; headers: http.IncomingHttpHeaders; chunks: Buffer[] } | null = null;
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/stats') {
      const sample = last && { path: last.path, headers: last.headers, body: Buffer.concat(last.chunks).toString('utf8') };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ count, sample }));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      count++;
      last = { path: req.url ?? '', headers: req.headers, chunks };
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(Number(process.env.PORT), '127.0.0.1');
}

/** The receiver's count so far and the last request it got. */
async function receiverStats(baseUrl: string): Promise<ReceiverStats> {
  const res = await fetch(`${baseUrl}/stats`, { signal: AbortSignal.timeout(STATS_TIMEOUT_MS) });
  return (await res.json()) as ReceiverStats;
}

/** Signed deliveries per run: BENCH_DELIVERIES (a multiple of 100), or 6000. */
function deliveriesPerRun(): number {
  const raw = process.env.BENCH_DELIVERIES;
  if (raw === undefined || raw === '') return DEFAULT_DELIVERIES;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 100 || value % 100 !== 0)
    throw new Error(`BENCH_DELIVERIES must be a positive multiple of 100, got "${raw}"`);
  return value;
}

/** The service's domain layer on a fresh SQLite file, with the owner's all-scopes principal. */
interface Instance {
  db: Db;
  config: Config;
  services: Services;
  ownerId: string;
  principal: Principal;
  close(): Promise<void>;
}

/**
 * Opens a fresh database in a temp dir as the service does (openDatabase + migrate), with the
 * default configuration apart from allowing http webhook URLs on loopback; `extraOrganizations`
 * more organizations are created for the owner before the principal is taken.
 */
async function openInstance(prefix: string, extraOrganizations = 0): Promise<Instance> {
  const dir = await makeTempDir(prefix);
  // An explicit environment, so SVC_WEBHOOK_* settings of the caller's shell cannot change the defaults measured.
  const config = loadConfig({ SVC_DATA_DIR: dir, SVC_ALLOW_INSECURE_WEBHOOKS: 'true', SVC_LOG_LEVEL: 'warn', PORT: '0' });
  const db = openDatabase(config.databasePath);
  try {
    migrate(db);
    const services = createServices(db, config, systemClock, randomBytes(32));
    const { owner } = services.identity.ensureOwner();
    for (let i = 0; i < extraOrganizations; i++) services.identity.createOrganization(owner.id, `Organization ${i + 2}`);
    const { key } = services.keys.create({
      userId: owner.id,
      name: 'benchmark',
      scopes: [...SCOPES],
      rateLimitPerSecond: 1_000_000,
      rateLimitPerMinute: 60_000_000,
    });
    const principal = services.identity.authenticate(key)!;
    return {
      db,
      config,
      services,
      ownerId: owner.id,
      principal,
      async close() {
        db.close();
        await removeTempDir(dir);
      },
    };
  } catch (err) {
    db.close();
    throw err;
  }
}

/** Counts rows of `sql` (a `SELECT count(*) AS n ...`). */
function count(db: Db, sql: string, ...params: unknown[]): number {
  return (db.prepare(sql).get(...params) as { n: number }).n;
}

/** Counts the deliveries not done yet; both counts walk a partial index, so polling stays cheap. */
function remainingDeliveries(db: Db): () => number {
  const stmt = db.prepare<[], { n: number }>(
    `SELECT (SELECT count(*) FROM deliveries WHERE status = 'pending') +
            (SELECT count(*) FROM deliveries WHERE status = 'delivering') AS n`,
  );
  return () => stmt.get()!.n;
}

/** A webinar, `endpoints` endpoints subscribed to registration.created at the receiver, and their secrets by URL path. */
function seedEndpoints(inst: Instance, receiverUrl: string, endpoints: number): Map<string, string> {
  inst.services.meetings.create(inst.principal, { title: 'Benchmark webinar', kind: 'webinar', slug: SLUG });
  const secrets = new Map<string, string>();
  for (let i = 0; i < endpoints; i++) {
    const endpoint = inst.services.webhooks.create(inst.principal, { url: `${receiverUrl}/hook/${i}`, events: ['registration.created'] });
    secrets.set(`/hook/${i}`, endpoint.secret!);
  }
  return secrets;
}

/** Emits registration.created through the registrations service: one event, one delivery per endpoint. */
function register(inst: Instance, n: number): void {
  const { created } = inst.services.registrations.register(inst.principal, SLUG, {
    email: `attendee-${n}@example.com`,
    name: `Attendee ${n}`,
  });
  if (!created) throw new Error(`registration ${n} was not new`);
}

/** What one throughput run measured. */
interface RunResult {
  ms: number;
  cpuUs: number;
}

/** Throughput of the worker and of the baseline for one endpoint count. */
interface ThroughputRow {
  endpoints: number;
  events: number;
  deliveries: number;
  concurrency: number;
  worker: RunResult;
  baseline: RunResult;
  /** Share of the machine's CPU that other processes used during both runs. */
  otherCpu: number | null;
}

/**
 * (a) Queues `deliveries` signed deliveries (deliveries / endpoints events) on a fresh database,
 * then times the real worker with the real httpSender from start() until none is pending or being
 * delivered, and checks every one succeeded with one attempt, arrived once, and is signed.
 */
async function runWorker(receiverUrl: string, endpoints: number, deliveries: number): Promise<RunResult & { payload: string }> {
  const inst = await openInstance('svc-bench-webhooks-');
  try {
    const { db, services } = inst;
    const secrets = seedEndpoints(inst, receiverUrl, endpoints);
    for (let n = 0; n < deliveries / endpoints; n++) {
      register(inst, n);
      await breathe();
    }
    check(
      count(db, "SELECT count(*) AS n FROM deliveries WHERE status = 'pending'") === deliveries,
      `${endpoints} endpoints: ${deliveries} deliveries queued`,
    );
    const payload = (db.prepare('SELECT payload FROM events LIMIT 1').get() as { payload: string }).payload;
    const receiverBase = new URL(receiverUrl).origin;
    const before = await receiverStats(receiverBase);

    const remaining = remainingDeliveries(db);
    const worker = createDeliveryWorker(services, inst.config, logger);
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    let ms: number;
    try {
      worker.start();
      await pollUntil(() => remaining() === 0, {
        intervalMs: DRAIN_POLL_MS,
        timeoutMs: DRAIN_TIMEOUT_MS,
        what: `delivering ${deliveries} deliveries to ${endpoints} endpoints`,
      });
      ms = performance.now() - started;
    } finally {
      await withTimeout(worker.stop(), WORKER_STOP_TIMEOUT_MS, 'worker.stop()');
    }
    const cpu = process.cpuUsage(cpuBefore);

    const succeeded = count(db, "SELECT count(*) AS n FROM deliveries WHERE status = 'succeeded' AND attempt_count = 1");
    check(succeeded === deliveries, `${endpoints} endpoints: ${succeeded} of ${deliveries} deliveries succeeded at the first attempt`);
    const attempts = count(db, 'SELECT count(*) AS n FROM delivery_attempts WHERE status_code = 204');
    check(attempts === deliveries, `${endpoints} endpoints: ${attempts} attempts answered 204, expected ${deliveries}`);
    const after = await receiverStats(receiverBase);
    check(
      after.count - before.count === deliveries,
      `${endpoints} endpoints: the receiver got ${after.count - before.count} requests, expected ${deliveries}`,
    );
    verifySample(after.sample, secrets, endpoints);
    return { ms, cpuUs: cpu.user + cpu.system, payload };
  } finally {
    await inst.close();
  }
}

/** Checks the receiver's last request carries a valid signature of its endpoint's secret. */
function verifySample(sample: Sample | null, secrets: Map<string, string>, endpoints: number): void {
  const secret = sample && secrets.get(sample.path);
  if (!sample || !secret) return check(false, `${endpoints} endpoints: the receiver kept no delivery of this run to verify`);
  try {
    const event = verifyWebhook({ rawBody: sample.body, headers: sample.headers as Record<string, string>, secrets: secret });
    check(event.type === 'registration.created', `${endpoints} endpoints: the verified delivery is a ${event.type} event`);
  } catch (err) {
    check(false, `${endpoints} endpoints: a delivery's signature does not verify: ${(err as Error).message}`);
  }
}

/** (a) The baseline: as many plain unsigned POSTs of the same body, round-robin over the same URLs, from a keep-alive client loop at `concurrency`. */
async function runBaseline(
  receiverUrl: string,
  endpoints: number,
  deliveries: number,
  concurrency: number,
  payload: string,
): Promise<RunResult> {
  const receiverBase = new URL(receiverUrl).origin;
  const before = await receiverStats(receiverBase);
  const cpuBefore = process.cpuUsage();
  const result = await closedLoop({
    total: deliveries,
    concurrency,
    specOf: (i) => ({
      url: `${receiverUrl}/hook/${i % endpoints}`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: payload,
    }),
  });
  const cpu = process.cpuUsage(cpuBefore);
  const after = await receiverStats(receiverBase);
  check(
    result.errors + result.non2xx === 0,
    `baseline at ${endpoints} endpoints: ${result.errors} errors, ${result.non2xx} non-2xx answers`,
  );
  check(
    after.count - before.count === deliveries,
    `baseline at ${endpoints} endpoints: the receiver got ${after.count - before.count} requests, expected ${deliveries}`,
  );
  return { ms: result.elapsedMs, cpuUs: cpu.user + cpu.system };
}

/** The attempts the worker can have in flight with `endpoints` busy endpoints. */
function workerConcurrency(config: Config['webhooks'], endpoints: number): number {
  return Math.min(config.concurrency, config.perEndpointConcurrency * endpoints);
}

/** (a) For each endpoint count: the worker, then the baseline at the worker's concurrency, to the receiver in a child process. */
async function measureThroughput(deliveries: number, settings: Config['webhooks']): Promise<ThroughputRow[]> {
  const port = await freePort();
  const receiverUrl = `http://127.0.0.1:${port}`;
  const child = spawnRole(__filename, RECEIVER_ROLE, { ...process.env, PORT: String(port) });
  return withServer(child, `${receiverUrl}/stats`, async () => {
    progress(`(a) warm-up: ${WARMUP_DELIVERIES} deliveries to ${WARMUP_ENDPOINTS} endpoints, worker and baseline`);
    const warm = await runWorker(receiverUrl, WARMUP_ENDPOINTS, WARMUP_DELIVERIES);
    await runBaseline(receiverUrl, WARMUP_ENDPOINTS, WARMUP_DELIVERIES, workerConcurrency(settings, WARMUP_ENDPOINTS), warm.payload);
    const rows: ThroughputRow[] = [];
    for (const endpoints of ENDPOINT_COUNTS) {
      const concurrency = workerConcurrency(settings, endpoints);
      progress(`(a) ${deliveries} deliveries to ${endpoints} endpoint(s): worker, then baseline at concurrency ${concurrency}`);
      const otherCpu = watchOtherCpu();
      const worker = await runWorker(receiverUrl, endpoints, deliveries);
      const baseline = await runBaseline(receiverUrl, endpoints, deliveries, concurrency, worker.payload);
      rows.push({ endpoints, events: deliveries / endpoints, deliveries, concurrency, worker, baseline, otherCpu: otherCpu() });
    }
    return rows;
  });
}

/**
 * (b) With the worker started and idle, emits LATENCY_EVENTS events one at a time, LATENCY_GAP_MS
 * apart, to one endpoint on an in-process receiver; latency = arrival of the delivery's body at
 * the receiver - the moment before the emitting call, both on this process's performance.now().
 */
async function measureLatency(): Promise<{ latency: Summary; otherCpu: number | null }> {
  const arrivals = new Map<string, number>();
  let duplicates = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      try {
        const email = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { registration: { email: string } } }).data
          .registration.email;
        if (arrivals.has(email)) duplicates++;
        else arrivals.set(email, at);
      } catch (err) {
        check(false, `latency: a delivery's body is not a registration.created event: ${(err as Error).message}`);
      }
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await withTimeout(new Promise((resolve) => server.once('listening', resolve)), STATS_TIMEOUT_MS, 'the latency receiver');
  const inst = await openInstance('svc-bench-latency-');
  try {
    seedEndpoints(inst, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, 1);
    const worker = createDeliveryWorker(inst.services, inst.config, logger);
    const emitted = new Map<string, number>();
    const otherCpu = watchOtherCpu();
    try {
      worker.start();
      await sleep(200);
      progress(`(b) ${LATENCY_EVENTS} events, ${LATENCY_GAP_MS} ms apart, to an idle worker`);
      for (let n = 0; n < LATENCY_EVENTS; n++) {
        emitted.set(`attendee-${n}@example.com`, performance.now());
        register(inst, n);
        await sleep(LATENCY_GAP_MS);
      }
      await pollUntil(() => arrivals.size === LATENCY_EVENTS, {
        intervalMs: 10,
        timeoutMs: ARRIVAL_TIMEOUT_MS,
        what: `the arrival of ${LATENCY_EVENTS} deliveries`,
      });
    } finally {
      await withTimeout(worker.stop(), WORKER_STOP_TIMEOUT_MS, 'worker.stop()');
    }
    const succeeded = count(inst.db, "SELECT count(*) AS n FROM deliveries WHERE status = 'succeeded'");
    check(succeeded === LATENCY_EVENTS, `latency: ${succeeded} of ${LATENCY_EVENTS} deliveries succeeded`);
    check(duplicates === 0, `latency: ${duplicates} deliveries arrived twice`);
    return { latency: summarize([...emitted].map(([email, at]) => arrivals.get(email)! - at)), otherCpu: otherCpu() };
  } finally {
    server.closeAllConnections();
    server.close();
    await inst.close();
  }
}

/** A small fast PRNG (mulberry32), so the feed's data is the same in every run. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The `data` of an event of `type`, shaped and sized like the service's own. */
function eventData(type: EventType, n: number, at: string, slug: string): Record<string, unknown> {
  const meeting = {
    id: `mtg_01jd8x3k2m${String(n % 100_000).padStart(16, '0')}`,
    code: 'abc-defg-hij',
    title: 'Weekly planning',
    status: 'ended',
    started_at: at,
    ended_at: at,
  };
  switch (type) {
    case 'meeting.started':
      return { meeting: { ...meeting, status: 'live', ended_at: null } };
    case 'meeting.ended':
      return { meeting };
    case 'recording.ready':
      return {
        meeting,
        recording: {
          id: `rec_${n}`,
          kind: 'video',
          status: 'ready',
          duration_seconds: 1800,
          size_bytes: 73400320,
          content_type: 'video/webm',
          created_at: at,
          ready_at: at,
        },
      };
    case 'transcript.ready':
      return { meeting, transcript: { language: 'en', segment_count: 214 } };
    case 'summary.ready':
      return { meeting, summary: { tldr: 'Release on Friday; Ada writes the release notes.' } };
    case 'registration.created':
      return {
        registration: {
          id: `reg_${n}`,
          email: `attendee-${n}@example.com`,
          name: `Attendee ${n}`,
          join_url: `http://127.0.0.1:8080/m/abc-defg-hij?registration=reg_${n}`,
          created_at: at,
        },
        webinar: { slug, title: 'Product webinar', meeting_id: meeting.id },
        meeting: { ...meeting, status: 'scheduled', started_at: null, ended_at: null },
      };
  }
}

/**
 * Fills an empty events table with `size` events, one prepared INSERT in big transactions
 * (benchmark setup, not product code); resolves to the id of the event in the middle. The data is the
 * same in every run and every table: a smaller table holds the first events of a bigger one.
 */
async function fillEvents(db: Db, orgIds: string[], size: number): Promise<string> {
  const insert = db.prepare('INSERT INTO events (id, organization_id, type, slug, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)');
  const random = prng(42);
  // One event per ms, ending before now, so ids sort like real ones.
  let clockMs = Date.now() - FEED_SIZES.at(-1)! - 60_000;
  const ids = new IdGenerator(() => clockMs);
  let middle = '';
  const batch = db.transaction((from: number, until: number) => {
    for (let n = from; n < until; n++) {
      clockMs++;
      const id = ids.next('evt');
      const type = EVENT_TYPES[Math.floor(random() * EVENT_TYPES.length)]!;
      const org = orgIds[Math.floor(random() * orgIds.length)]!;
      const slug = type === 'registration.created' ? WEBINAR_SLUGS[Math.floor(random() * WEBINAR_SLUGS.length)]! : null;
      const createdAt = isoAt(clockMs);
      const payload = JSON.stringify({ id, type, created_at: createdAt, data: eventData(type, n, createdAt, slug ?? '') });
      insert.run(id, org, type, slug, payload, createdAt);
      if (n === size / 2) middle = id;
    }
  });
  for (let from = 0; from < size; from += INSERT_BATCH) {
    batch(from, Math.min(size, from + INSERT_BATCH));
    await breathe();
  }
  return middle;
}

/** One feed query the API makes, and what it is called in the report. */
interface FeedShape {
  name: string;
  query: Omit<FeedQuery, 'since' | 'limit'>;
}

/** The three SQL shapes of EventsRepo: one type (a /triggers feed), several types (/events), and the webinar slug filter. */
const FEED_SHAPES: FeedShape[] = [
  { name: 'one type: /triggers/meeting.started', query: { types: ['meeting.started'] } },
  { name: 'all six types: /events', query: { types: [...EVENT_TYPES] } },
  { name: 'slug: /triggers/registration.created?slug=webinar-1', query: { types: ['registration.created'], slug: 'webinar-1' } },
];
const FEED_MODES = ['newest first', 'since middle'] as const;
const HTTP_ROW_NAME = 'HTTP GET /triggers/meeting.started (client-timed)';

/** Timings in µs of one feed query at each table size. */
interface FeedRow {
  name: string;
  mode: (typeof FEED_MODES)[number];
  bySize: Summary[];
}

/** A database with `size` events, its services and the in-process app serving it. */
interface FeedDb {
  size: number;
  inst: Instance;
  since: string;
  triggersUrl: string;
  key: string;
  server: http.Server;
  fillSeconds: number;
}

/** A fresh database with ORGANIZATIONS organizations filled with `size` events, and the real app on it, listening on loopback. */
async function openFeedDb(size: number): Promise<FeedDb> {
  const inst = await openInstance('svc-bench-feed-', ORGANIZATIONS - 1);
  try {
    const key = inst.services.keys.create({
      userId: inst.ownerId,
      name: 'feed',
      scopes: [...SCOPES],
      rateLimitPerSecond: 1_000_000,
      rateLimitPerMinute: 60_000_000,
    }).key;
    const fillStarted = performance.now();
    const since = await fillEvents(
      inst.db,
      inst.principal.organizations.map((o) => o.id),
      size,
    );
    const fillSeconds = (performance.now() - fillStarted) / 1000;
    const server = createApp({ config: inst.config, services: inst.services, logger }).listen(0, '127.0.0.1');
    await withTimeout(new Promise((resolve) => server.once('listening', resolve)), STATS_TIMEOUT_MS, 'the in-process API');
    const triggersUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/public/triggers/meeting.started?limit=${FEED_LIMIT}`;
    return { size, inst, since, triggersUrl, key, server, fillSeconds };
  } catch (err) {
    await inst.close();
    throw err;
  }
}

async function closeFeedDb(feedDb: FeedDb): Promise<void> {
  feedDb.server.closeAllConnections();
  feedDb.server.close();
  await feedDb.inst.close();
}

/** Runs `poll` `polls` times and adds how long each took, in µs, to `samples`; yields between calls now and then, outside the timing. */
async function timeCalls(poll: () => void, polls: number, samples: number[]): Promise<void> {
  for (let i = 0; i < polls; i++) {
    const started = process.hrtime.bigint();
    poll();
    samples.push(Number(process.hrtime.bigint() - started) / 1000);
    await breathe();
  }
}

/** Sends `polls` sequential GETs over `agent` and adds each one's µs to `samples`; checks every answer is 200. */
async function timeHttp(agent: http.Agent, url: string, key: string, polls: number, samples: number[]): Promise<void> {
  for (let i = 0; i < polls; i++) {
    const answer = await timedRequest(agent, { url, method: 'GET', headers: { authorization: `Bearer ${key}` } });
    check(answer.status === 200, `GET ${url} answered ${answer.status}`);
    samples.push(answer.ms * 1000);
  }
}

/** What (c) measured, with how long filling each table took. */
interface FeedResult {
  rows: FeedRow[];
  fillSeconds: number[];
  /** Share of the machine's CPU that other processes used while the polls were timed. */
  otherCpu: number | null;
}

/**
 * (c) Fills one database per size, then times EventsService.feed for each query shape, newest
 * first and after a cursor in the middle of the table, plus one HTTP sample (GET
 * /triggers/meeting.started on the real app in-process, over one keep-alive connection). The
 * sizes are measured in FEED_ROUNDS interleaved rounds, so a burst of other work on the machine
 * lands on every size alike.
 */
async function measureFeed(): Promise<FeedResult> {
  const dbs: FeedDb[] = [];
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (const size of FEED_SIZES) {
      progress(`(c) filling an events table with ${size} events`);
      dbs.push(await openFeedDb(size));
    }
    const cases = FEED_SHAPES.flatMap((shape) => FEED_MODES.map((mode) => ({ shape, mode })));
    const queryOf = (db: FeedDb, shape: FeedShape, mode: (typeof FEED_MODES)[number]): FeedQuery => ({
      ...shape.query,
      limit: FEED_LIMIT,
      ...(mode === 'since middle' ? { since: db.since } : {}),
    });
    const urlOf = (db: FeedDb, mode: (typeof FEED_MODES)[number]) =>
      mode === 'since middle' ? `${db.triggersUrl}&since=${db.since}` : db.triggersUrl;
    for (const db of dbs) {
      for (const { shape, mode } of cases) {
        const page = db.inst.services.events.feed(db.inst.principal, queryOf(db, shape, mode));
        check(
          page.data.length === FEED_LIMIT,
          `feed ${shape.name}, ${mode}, ${db.size} events: ${page.data.length} events, expected ${FEED_LIMIT}`,
        );
        if (mode === 'since middle')
          check(page.data[0]!.id > db.since, `feed ${shape.name}, ${db.size} events: the page since the middle starts after the cursor`);
      }
    }
    progress(`(c) timing feed polls: ${FEED_ROUNDS} rounds over the ${dbs.length} tables`);
    const pollsOf = (db: FeedDb, shape: FeedShape, mode: (typeof FEED_MODES)[number], polls: number, into: number[]) => {
      const query = queryOf(db, shape, mode);
      return timeCalls(() => db.inst.services.events.feed(db.inst.principal, query), polls, into);
    };
    const otherCpu = watchOtherCpu();
    const discarded: number[] = [];
    for (const db of dbs) {
      for (const { shape, mode } of cases) await pollsOf(db, shape, mode, FEED_WARMUP_POLLS, discarded);
      for (const mode of FEED_MODES) await timeHttp(agent, urlOf(db, mode), db.key, HTTP_WARMUP_POLLS, discarded);
    }
    // samples[row][size]: one row per case, then one per HTTP mode.
    const samples: number[][][] = Array.from({ length: cases.length + FEED_MODES.length }, () => dbs.map(() => []));
    for (let round = 0; round < FEED_ROUNDS; round++) {
      for (const [c, { shape, mode }] of cases.entries()) {
        for (const [d, db] of dbs.entries()) {
          await pollsOf(db, shape, mode, FEED_SETTLE_POLLS, discarded);
          await pollsOf(db, shape, mode, FEED_POLLS / FEED_ROUNDS, samples[c]![d]!);
        }
      }
      for (const [m, mode] of FEED_MODES.entries()) {
        for (const [d, db] of dbs.entries()) {
          await timeHttp(agent, urlOf(db, mode), db.key, FEED_SETTLE_POLLS, discarded);
          await timeHttp(agent, urlOf(db, mode), db.key, HTTP_POLLS / FEED_ROUNDS, samples[cases.length + m]![d]!);
        }
      }
    }
    const rows: FeedRow[] = [
      ...cases.map(({ shape, mode }, c) => ({ name: shape.name, mode, bySize: samples[c]!.map((x) => summarize(x)) })),
      ...FEED_MODES.map((mode, m) => ({ name: HTTP_ROW_NAME, mode, bySize: samples[cases.length + m]!.map((x) => summarize(x)) })),
    ];
    return { rows, fillSeconds: dbs.map((db) => db.fillSeconds), otherCpu: otherCpu() };
  } finally {
    agent.destroy();
    for (const db of dbs) await closeFeedDb(db);
  }
}

/** (a) as a markdown table, one row per endpoint count. */
function formatThroughput(rows: ThroughputRow[]): string {
  const perSecond = (n: number, r: RunResult) => Math.round(n / (r.ms / 1000));
  return markdownTable(
    [
      'endpoints',
      'events × endpoints',
      'max in flight',
      'worker deliveries/s',
      'worker CPU µs/delivery',
      'baseline POSTs/s',
      'baseline CPU µs/POST',
      'worker vs baseline',
      'other CPU',
    ],
    rows.map((r) => [
      r.endpoints,
      `${r.events} × ${r.endpoints}`,
      r.concurrency,
      perSecond(r.deliveries, r.worker),
      Math.round(r.worker.cpuUs / r.deliveries),
      perSecond(r.deliveries, r.baseline),
      Math.round(r.baseline.cpuUs / r.deliveries),
      percent(r.baseline.ms / r.worker.ms),
      otherCpuText(r.otherCpu),
    ]),
    [0, 2, 3, 4, 5, 6, 7, 8],
  );
}

/** (b) as a markdown table. */
function formatLatency({ latency, otherCpu }: { latency: Summary; otherCpu: number | null }): string {
  const ms = (value: number) => value.toFixed(1);
  return markdownTable(
    ['events', 'gap ms', 'p50 ms', 'p99 ms', 'max ms', 'other CPU'],
    [[latency.count, LATENCY_GAP_MS, ms(latency.p50), ms(latency.p99), ms(latency.max), otherCpuText(otherCpu)]],
    [0, 1, 2, 3, 4, 5],
  );
}

/** The median ratio between the largest and the smallest table size. */
function feedRatio(row: FeedRow): number {
  return row.bySize.at(-1)!.p50 / row.bySize[0]!.p50;
}

/** (c) as a markdown table: median / p99 µs per size, and the ratios between the largest and smallest size. */
function formatFeed(rows: FeedRow[]): string {
  const micros = (s: Summary) => `${Math.round(s.p50)} / ${Math.round(s.p99)}`;
  return markdownTable(
    ['query (limit 50)', 'mode', ...FEED_SIZES.map((n) => `10^${Math.log10(n)}: median / p99 µs`), 'median 10^6 / 10^4', 'p99 10^6 / 10^4'],
    rows.map((r) => [
      r.name,
      r.mode,
      ...r.bySize.map(micros),
      `${feedRatio(r).toFixed(2)}x`,
      `${(r.bySize.at(-1)!.p99 / r.bySize[0]!.p99).toFixed(2)}x`,
    ]),
    [2, 3, 4, 5, 6],
  );
}

/** One line per target, saying whether it is met. */
function formatTargets(throughput: ThroughputRow[], latency: Summary, feed: FeedRow[]): string {
  const slowest = throughput.reduce((a, b) => (a.deliveries / a.worker.ms <= b.deliveries / b.worker.ms ? a : b));
  const slowestRate = Math.round(slowest.deliveries / (slowest.worker.ms / 1000));
  const worstFeed = feed.reduce((a, b) => (feedRatio(a) >= feedRatio(b) ? a : b));
  return [
    `- >= ${TARGET_DELIVERIES_PER_SECOND} signed deliveries/s at every endpoint count: ` +
      `${verdict(slowestRate >= TARGET_DELIVERIES_PER_SECOND)} (lowest: ${slowestRate}/s at ${slowest.endpoints} endpoint(s))`,
    `- event-to-first-attempt p99 < ${TARGET_LATENCY_P99_MS} ms when idle: ${verdict(latency.p99 < TARGET_LATENCY_P99_MS)} (${latency.p99.toFixed(1)} ms)`,
    `- feed poll median flat within ${TARGET_FEED_RATIO}x from 10^4 to 10^6 events: ` +
      `${verdict(feedRatio(worstFeed) <= TARGET_FEED_RATIO)} (worst: ${feedRatio(worstFeed).toFixed(2)}x, ${worstFeed.name}, ${worstFeed.mode})`,
  ].join('\n');
}

/** Runs (a), (b) and (c) one after the other and prints the report; exits 1 on a correctness failure. */
async function main(): Promise<void> {
  cleanUpOnExit(RUN_DEADLINE_MS);
  const started = performance.now();
  const deliveries = deliveriesPerRun();
  // The defaults, as openInstance's explicit environment leaves them.
  const { webhooks: settings } = loadConfig({});
  const throughput = await measureThroughput(deliveries, settings);
  const latency = await measureLatency();
  const feed = await measureFeed();
  const fill = feed.fillSeconds.map((s, i) => `${FEED_SIZES[i]} in ${s.toFixed(1)} s`).join(', ');
  process.stdout.write(
    `\n${machine()}; worker settings (defaults): concurrency ${settings.concurrency}, ` +
      `${settings.perEndpointConcurrency} per endpoint, timeout ${settings.timeoutMs} ms; http webhook URLs allowed (loopback)\n\n` +
      `(a) Delivery throughput, ${deliveries} signed deliveries per row, receiver in a child process answering 204:\n\n` +
      `${formatThroughput(throughput)}\n\n` +
      `(b) Event-to-first-attempt latency, idle worker, one endpoint, receiver in-process:\n\n${formatLatency(latency)}\n\n` +
      `(c) Feed poll time, EventsService.feed in-process (HTTP rows: the real app, timed by the client), ` +
      `${ORGANIZATIONS} organizations, six types mixed; tables filled: ${fill}; ` +
      `other processes used ${otherCpuText(feed.otherCpu)} of the CPUs while the polls were timed:\n\n${formatFeed(feed.rows)}\n\n` +
      `Targets:\n${formatTargets(throughput, latency.latency, feed.rows)}\n\n` +
      `The run took ${Math.round((performance.now() - started) / 1000)} s.\n`,
  );
  if (failures.length > 0) {
    process.stderr.write(`\nFAILED (correctness):\n${failures.map((f) => `- ${f}`).join('\n')}\n`);
    process.exitCode = 1;
  }
}

if (process.argv[2] === RECEIVER_ROLE) {
  runReceiver();
} else {
  runMain(main);
}
