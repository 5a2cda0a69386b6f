/**
 * (c) Feed flatness: whether a feed poll (EventsService.feed in-process, and GET /triggers over the
 * real app) stays as fast at 10^6 events as at 10^4.
 */
import http from 'node:http';
import { createApp } from '../../service/src/app';
import { EVENT_TYPES, type EventType } from '../../service/src/events/event-types';
import type { Db } from '../../service/src/db/connection';
import type { FeedQuery } from '../../service/src/events/events.service';
import { isoAt } from '../../service/src/shared/clock';
import { IdGenerator } from '../../service/src/shared/ids';
import {
  breathe,
  markdownTable,
  otherCpuText,
  progress,
  smokeOr,
  summarize,
  timedRequest,
  verdict,
  watchOtherCpu,
  type Summary,
} from '../support';
import { listeningPort, openInstance, type Instance } from './instance';
import type { Checks, Subject } from './subject';

/** Table sizes, page size, polls per measurement and the data's mix. */
const FEED_SIZES = smokeOr([10_000, 100_000, 1_000_000], [10_000, 20_000]);
const FEED_LIMIT = 50;
const FEED_WARMUP_POLLS = smokeOr(300, 5);
const FEED_POLLS = smokeOr(1_000, 10);
const HTTP_WARMUP_POLLS = smokeOr(200, 5);
const HTTP_POLLS = smokeOr(300, 10);
const FEED_ROUNDS = smokeOr(5, 1);
/** Untimed polls before each timed batch, so the batch does not pay for what ran just before it. */
const FEED_SETTLE_POLLS = smokeOr(20, 2);
/** Rows per insert transaction: about 15 ms each, so the process stays responsive to signals in between. */
const INSERT_BATCH = 1_000;
const ORGANIZATIONS = 3;
const WEBINAR_SLUGS = ['webinar-1', 'webinar-2', 'webinar-3', 'webinar-4', 'webinar-5'];
const TARGET_FEED_RATIO = 2;

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
  server: http.Server;
  fillSeconds: number;
}

/** A fresh database with ORGANIZATIONS organizations filled with `size` events, and the real app on it, listening on loopback. */
async function openFeedDb(size: number): Promise<FeedDb> {
  const inst = await openInstance('svc-bench-feed-', ORGANIZATIONS - 1);
  try {
    const fillStarted = performance.now();
    const since = await fillEvents(
      inst.db,
      inst.principal.organizations.map((o) => o.id),
      size,
    );
    const fillSeconds = (performance.now() - fillStarted) / 1000;
    const server = createApp({ config: inst.config, services: inst.services, logger: inst.logger }).listen(0, '127.0.0.1');
    const port = await listeningPort(server, 'the in-process API');
    const triggersUrl = `http://127.0.0.1:${port}/api/v1/public/triggers/meeting.started?limit=${FEED_LIMIT}`;
    return { size, inst, since, triggersUrl, server, fillSeconds };
  } catch (err) {
    await inst.close();
    throw err;
  }
}

/** Stops the app and removes the database. */
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
async function timeHttp(checks: Checks, agent: http.Agent, url: string, key: string, polls: number, samples: number[]): Promise<void> {
  for (let i = 0; i < polls; i++) {
    const answer = await timedRequest(agent, { url, method: 'GET', headers: { authorization: `Bearer ${key}` } });
    checks.check(answer.status === 200, `GET ${url} answered ${answer.status}`);
    samples.push(answer.ms * 1000);
  }
}

/** What the subject measured, with how long filling each table took. */
interface FeedResult {
  rows: FeedRow[];
  fillSeconds: number[];
  /** Share of the machine's CPU that other processes used while the polls were timed. */
  otherCpu: number | null;
}

/**
 * Fills one database per size, then times EventsService.feed for each query shape, newest
 * first and after a cursor in the middle of the table, plus one HTTP sample (GET
 * /triggers/meeting.started on the real app in-process, over one keep-alive connection). The
 * sizes are measured in FEED_ROUNDS interleaved rounds, so a burst of other work on the machine
 * lands on every size alike.
 */
async function measureFeed(checks: Checks): Promise<FeedResult> {
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
        checks.check(
          page.data.length === FEED_LIMIT,
          `feed ${shape.name}, ${mode}, ${db.size} events: ${page.data.length} events, expected ${FEED_LIMIT}`,
        );
        if (mode === 'since middle')
          checks.check(
            page.data[0]!.id > db.since,
            `feed ${shape.name}, ${db.size} events: the page since the middle starts after the cursor`,
          );
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
      for (const mode of FEED_MODES) await timeHttp(checks, agent, urlOf(db, mode), db.inst.key, HTTP_WARMUP_POLLS, discarded);
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
          await timeHttp(checks, agent, urlOf(db, mode), db.inst.key, FEED_SETTLE_POLLS, discarded);
          await timeHttp(checks, agent, urlOf(db, mode), db.inst.key, HTTP_POLLS / FEED_ROUNDS, samples[cases.length + m]![d]!);
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

/** The median ratio between the largest and the smallest table size. */
function feedRatio(row: FeedRow): number {
  return row.bySize.at(-1)!.p50 / row.bySize[0]!.p50;
}

/** The rows as a markdown table: median / p99 µs per size, and the ratios between the largest and smallest size. */
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

/** The target line: the least flat row against TARGET_FEED_RATIO. */
function formatTarget(rows: FeedRow[]): string {
  const worst = rows.reduce((a, b) => (feedRatio(a) >= feedRatio(b) ? a : b));
  return (
    `- feed poll median flat within ${TARGET_FEED_RATIO}x from 10^4 to 10^6 events: ` +
    `${verdict(feedRatio(worst) <= TARGET_FEED_RATIO)} (worst: ${feedRatio(worst).toFixed(2)}x, ${worst.name}, ${worst.mode})`
  );
}

/** (c) Feed poll time at each table size. */
export const feed: Subject = {
  name: 'feed',
  async run(checks) {
    const result = await measureFeed(checks);
    const fill = result.fillSeconds.map((s, i) => `${FEED_SIZES[i]} in ${s.toFixed(1)} s`).join(', ');
    return {
      section:
        `(c) Feed poll time, EventsService.feed in-process (HTTP rows: the real app, timed by the client), ` +
        `${ORGANIZATIONS} organizations, six types mixed; tables filled: ${fill}; ` +
        `other processes used ${otherCpuText(result.otherCpu)} of the CPUs while the polls were timed:\n\n${formatFeed(result.rows)}`,
      target: formatTarget(result.rows),
    };
  },
};
