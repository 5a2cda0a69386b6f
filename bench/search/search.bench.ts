/**
 * Full-text search latency (GET /search's service call: FTS5 match, BM25 order, snippet, meeting join,
 * organization and scope filters) at 10^3 and 10^5 indexed transcript segments, against the bare ranked
 * FTS5 match of the same words (`SELECT rowid ... MATCH ? ORDER BY rank LIMIT 20`) on the same database in
 * the same run.
 * Target: p99 under 20 ms at 10^5 segments. See bench/README.md.
 */
import { startTestCore } from '../../service/src/testing/core';
import type { TestCore } from '../../service/src/testing/core';
import { matchExpression } from '../../service/src/search/search.service';
import type { Principal } from '../../service/src/identity/identity.service';
import { SCOPES } from '../../service/src/keys/scopes';
import { machine, markdownTable, progress, runMain, smokeOr, summarize, verdict } from '../support';

const SIZES = smokeOr([1_000, 100_000], [1_000]);
const SEGMENTS_PER_MEETING = 100;
const QUERIES = Number(process.env.BENCH_SEARCH_QUERIES ?? smokeOr(2_000, 50));
const TARGET_P99_MS = 20;
/** Words of the synthetic transcripts: common ones (many hits) and rarer ones (few). */
const COMMON = ['the', 'team', 'budget', 'launch', 'customer', 'release', 'design', 'review', 'next', 'week'];
const RARE = Array.from({ length: 2_000 }, (_unused, i) => `term${i.toString(36)}`);

/** A deterministic pseudo-random sequence, so every run indexes and asks the same things. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

function sentence(next: () => number): string {
  const words = Array.from({ length: 12 }, () =>
    next() < 0.7 ? COMMON[Math.floor(next() * COMMON.length)]! : RARE[Math.floor(next() * RARE.length)]!,
  );
  return `${words.join(' ')}.`;
}

function seed(core: TestCore, segments: number): Principal {
  const { services } = core;
  const { owner } = services.identity.ensureOwner();
  const org = services.identity.listOrganizations()[0]!;
  const { key } = services.keys.create({ userId: owner.id, name: 'bench', scopes: [...SCOPES] });
  const next = random(7);
  const principal = services.identity.authenticate(key)!;
  for (let m = 0; m < segments / SEGMENTS_PER_MEETING; m++) {
    const meeting = services.meetings.create(principal, { title: `Meeting ${m}`, organization_id: org.id });
    services.transcripts.complete(meeting.id, {
      language: 'en',
      segments: Array.from({ length: SEGMENTS_PER_MEETING }, (_unused, i) => ({
        start: i * 5,
        end: i * 5 + 5,
        speaker: 'Ann',
        text: sentence(next),
      })),
    });
  }
  return principal;
}

/** One or two words, a mix of common and rare ones, as people search. */
function queries(): string[] {
  const next = random(11);
  return Array.from({ length: QUERIES }, () => {
    const first = next() < 0.5 ? COMMON[Math.floor(next() * COMMON.length)]! : RARE[Math.floor(next() * RARE.length)]!;
    return next() < 0.5 ? first : `${first} ${RARE[Math.floor(next() * RARE.length)]!}`;
  });
}

function time(run: () => void): number {
  const started = process.hrtime.bigint();
  run();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

async function main(): Promise<void> {
  const rows: (string | number)[][] = [];
  let p99AtLargest = NaN;
  for (const size of SIZES) {
    const core = startTestCore({ SVC_LOG_LEVEL: 'silent' });
    try {
      progress(`indexing ${size} transcript segments`);
      const principal = seed(core, size);
      const bare = core.services.db.prepare<[string], { rowid: number }>(
        'SELECT rowid FROM search_index WHERE search_index MATCH ? ORDER BY rank LIMIT 20',
      );
      const asked = queries();
      for (const q of asked.slice(0, 200)) core.services.search.search(principal, { q, limit: 20 });
      progress(`${asked.length} searches at ${size} segments`);
      const service = summarize(asked.map((q) => time(() => core.services.search.search(principal, { q, limit: 20 }))));
      const baseline = summarize(asked.map((q) => time(() => bare.all(matchExpression(q)!))));
      if (size === SIZES.at(-1)) p99AtLargest = service.p99;
      rows.push([
        size.toLocaleString('en'),
        service.p50.toFixed(2),
        service.p99.toFixed(2),
        baseline.p50.toFixed(2),
        baseline.p99.toFixed(2),
        `${(service.p50 / baseline.p50).toFixed(2)}x`,
      ]);
    } finally {
      core.dispose();
    }
  }
  process.stdout.write(
    `\nSearch over transcript segments, ${QUERIES} one- or two-word queries, 20 hits a page; ${machine()}\n\n` +
      markdownTable(
        ['segments', 'GET /search service p50 ms', 'p99 ms', 'bare ranked MATCH p50 ms', 'p99 ms', 'p50 ratio'],
        rows,
        [0, 1, 2, 3, 4, 5],
      ) +
      `\n\np99 under ${TARGET_P99_MS} ms at ${SIZES.at(-1)!.toLocaleString('en')} segments: ${verdict(p99AtLargest < TARGET_P99_MS)}\n`,
  );
}

runMain(main);
