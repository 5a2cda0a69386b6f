/**
 * The project GraphQL endpoint on a 100,000-row table, against the same queries written by hand in SQL through
 * the same driver, both served over loopback HTTP by the same process, on PGlite and on a PostgreSQL server:
 * a `first: 20` page with a filter and one nested relation, an aggregate (count, sum, avg, max) of the filtered
 * rows, and a page of a set-returning function's rows. Also the embedded database's
 * cold start and the process RSS with it loaded. See bench/README.md.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import express from 'express';
import { projectGraphqlRouter } from '../../service/src/graphql/graphql.routes';
import { ProjectDatabase } from '../../service/src/project/project.database';
import { createLogger } from '../../service/src/shared/logger';
import { startPostgresServer, type PostgresServer } from '../../service/src/testing/postgres-server';
import {
  closedLoop,
  machine,
  markdownTable,
  otherCpuText,
  progress,
  runMain,
  smokeOr,
  summarize,
  timedRequest,
  watchOtherCpu,
  type RequestSpec,
} from '../support';

const ROWS = smokeOr(100_000, 1_000);
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? smokeOr(400, 4));
const SATURATION_TOTAL = Number(process.env.BENCH_TOTAL ?? smokeOr(3000, 24));
/** Unmeasured requests of each variant first. */
const WARMUP_REQUESTS = smokeOr(50, 1);
const CONCURRENCY = 16;

const SCHEMA = `
create table author(id serial primary key, name text not null);
create table post(id serial primary key, author_id int not null references author(id), title text not null, score int not null);
insert into author(name) select 'author ' || i from generate_series(1, 1000) i;
insert into post(author_id, title, score) select 1 + (i % 1000), 'post ' || i, (i * 7919) % 1000 from generate_series(1, ${ROWS}) i;
create index post_score on post(score);
comment on table post is e'@graphql({"aggregate": {"enabled": true}})';
create function top_posts(min_score int) returns setof post stable language sql as $$ select * from post where score > min_score $$;
analyze;`;

/** A query as a GraphQL document and as hand-written SQL that builds the same JSON, taking the minimum score as $1. */
interface Query {
  name: string;
  graphql: string;
  sql: string;
  /** The GraphQL answer's root field, around the SQL's one-row, one-column result. */
  wrap: (value: unknown) => unknown;
}

const QUERIES: Query[] = [
  {
    name: 'page with relation',
    graphql: `query($min: Int) { postCollection(first: 20, filter: {score: {gt: $min}}) {
      edges { node { id title score author { name } } } } }`,
    sql: `select coalesce(jsonb_agg(jsonb_build_object('node', jsonb_build_object('id', p.id, 'title', p.title, 'score', p.score,
      'author', jsonb_build_object('name', a.name))) order by p.id), '[]') as v
      from (select * from post where score > $1 order by id limit 20) p join author a on a.id = p.author_id`,
    wrap: (edges) => ({ postCollection: { edges } }),
  },
  {
    name: 'aggregate',
    graphql: `query($min: Int) { postCollection(filter: {score: {gt: $min}}) {
      aggregate { count sum { score } avg { score } max { score } } } }`,
    sql: `select jsonb_build_object('count', count(*), 'sum', jsonb_build_object('score', sum(score)),
      'avg', jsonb_build_object('score', avg(score)), 'max', jsonb_build_object('score', max(score))) as v from post where score > $1`,
    wrap: (aggregate) => ({ postCollection: { aggregate } }),
  },
  {
    name: 'function call',
    graphql: `query($min: Int!) { top_posts(min_score: $min, first: 20) { edges { node { id title score } } } }`,
    sql: `select coalesce(jsonb_agg(jsonb_build_object('node', jsonb_build_object('id', p.id, 'title', p.title, 'score', p.score))
      order by p.id), '[]') as v from (select * from top_posts($1) order by id limit 20) p`,
    wrap: (edges) => ({ top_posts: { edges } }),
  },
];

interface Row {
  driver: string;
  query: string;
  variant: string;
  p50: number;
  p99: number;
  rps: number;
  other: string;
}

/** Rounds the saturation phase is cut into, the variants taking turns, so that both meet the same background load. */
const ROUNDS = 6;

async function measure(driver: string, url: string, apikey: string, query: Query, index: number): Promise<Row[]> {
  const variants: [string, RequestSpec][] = [
    [
      'GraphQL',
      {
        url: `${url}/project/graphql/v1`,
        method: 'POST',
        headers: { apikey, 'content-type': 'application/json' },
        body: JSON.stringify({ query: query.graphql, variables: { min: 500 } }),
      },
    ],
    ['hand-written SQL', { url: `${url}/hand/${index}?min=500`, method: 'GET' }],
  ];
  const [graphqlAnswer, handAnswer] = await Promise.all(variants.map(([, spec]) => answerOf(spec)));
  // Both variants must answer the same JSON, key order aside (the aggregate aside: avg's digits differ).
  if (query.name !== 'aggregate' && !isDeepStrictEqual(graphqlAnswer, handAnswer))
    throw new Error(
      `${query.name}: GraphQL and hand-written SQL answer differently: ${JSON.stringify([graphqlAnswer, handAnswer]).slice(0, 300)}`,
    );
  progress(`${driver}, ${query.name}: sequential, the two variants alternating`);
  const agents = variants.map(() => new http.Agent({ keepAlive: true, maxSockets: 1 }));
  for (let i = 0; i < WARMUP_REQUESTS; i++) for (const [v, [, spec]] of variants.entries()) await timedRequest(agents[v]!, spec);
  const cpu = watchOtherCpu();
  const samples: number[][] = variants.map(() => []);
  for (let i = 0; i < SEQUENTIAL; i++) {
    for (const [v, [variant, spec]] of variants.entries()) {
      const a = await timedRequest(agents[v]!, spec);
      if (a.status !== 200) throw new Error(`${variant} answered ${a.status}`);
      samples[v]!.push(a.ms);
    }
  }
  for (const agent of agents) agent.destroy();
  const other = otherCpuText(cpu());
  progress(`${driver}, ${query.name}: saturation, ${ROUNDS} rounds per variant, taking turns`);
  const elapsed = variants.map(() => 0);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [v, [variant, spec]] of variants.entries()) {
      const loop = await closedLoop({ total: SATURATION_TOTAL / ROUNDS, concurrency: CONCURRENCY, specOf: () => spec });
      if (loop.errors + loop.non2xx > 0) throw new Error(`${variant}: ${loop.errors} errors, ${loop.non2xx} non-2xx`);
      elapsed[v]! += loop.elapsedMs;
    }
  }
  return variants.map(([variant], v) => {
    const s = summarize(samples[v]!);
    return { driver, query: query.name, variant, p50: s.p50, p99: s.p99, rps: SATURATION_TOTAL / (elapsed[v]! / 1000), other };
  });
}

/** The JSON body of one request (to check that both variants answer alike). */
async function answerOf(spec: RequestSpec): Promise<unknown> {
  const response = await fetch(spec.url, { method: spec.method, headers: spec.headers, body: spec.body });
  if (response.status !== 200) throw new Error(`${spec.url} answered ${response.status}`);
  return response.json();
}

async function serve(project: ProjectDatabase): Promise<{ url: string; close(): Promise<void> }> {
  const app = express();
  app.use('/project/graphql/v1', projectGraphqlRouter(project, createLogger('silent')));
  app.get('/hand/:index', async (req, res) => {
    const query = QUERIES[Number(req.params.index)]!;
    const result = await project.asOwner((c) => c.query(query.sql, [String(req.query.min)]));
    res.json({ data: query.wrap(result.rows[0]!.v) });
  });
  const server = await new Promise<http.Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-project-'));
  const results: Row[] = [];
  const notes: string[] = [];
  let pgServer: PostgresServer | undefined;
  try {
    for (const driver of ['PGlite', 'PostgreSQL 15 server'] as const) {
      let databaseUrl: string | undefined;
      if (driver !== 'PGlite') {
        pgServer = await startPostgresServer();
        databaseUrl = await pgServer.createDatabase('bench');
      }
      const dataDir = path.join(dir, driver === 'PGlite' ? 'pglite' : 'pg');
      const project = new ProjectDatabase({
        dataDir,
        baseUrl: 'http://127.0.0.1',
        databaseUrl,
        jwtSecret: undefined,
        statementTimeoutMs: 30_000,
      });
      const rssBefore = process.memoryUsage().rss;
      const started = performance.now();
      await project.start();
      const coldMs = performance.now() - started;
      progress(`${driver}: started in ${coldMs.toFixed(0)} ms; loading ${ROWS} rows`);
      await project.sql(SCHEMA);
      if (driver === 'PGlite') {
        const rss = process.memoryUsage().rss;
        notes.push(`PGlite cold start (new data directory, setup included): ${(coldMs / 1000).toFixed(1)} s`);
        notes.push(
          `RSS of the process: ${(rssBefore / 2 ** 20).toFixed(0)} MB before, ${(rss / 2 ** 20).toFixed(0)} MB with PGlite loaded and ${ROWS} rows written`,
        );
      }
      const server = await serve(project);
      try {
        for (const [index, query] of QUERIES.entries())
          results.push(...(await measure(driver, server.url, project.keys().anon, query, index)));
      } finally {
        await server.close();
        await project.close();
      }
      if (driver === 'PGlite') {
        const again = new ProjectDatabase({
          dataDir,
          baseUrl: 'http://127.0.0.1',
          databaseUrl: undefined,
          jwtSecret: undefined,
          statementTimeoutMs: 30_000,
        });
        const t = performance.now();
        await again.start();
        notes.push(`PGlite start on an existing data directory: ${((performance.now() - t) / 1000).toFixed(1)} s`);
        await again.close();
      }
    }
  } finally {
    await pgServer?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const table = markdownTable(
    ['driver', 'query', 'variant', 'p50 ms', 'p99 ms', `req/s (${CONCURRENCY} in flight)`, 'other CPU'],
    results.map((r) => [r.driver, r.query, r.variant, r.p50.toFixed(2), r.p99.toFixed(2), r.rps.toFixed(0), r.other]),
    [3, 4, 5],
  );
  const ratios = ['PGlite', 'PostgreSQL 15 server'].flatMap((d) =>
    QUERIES.map(({ name }) => {
      const g = results.find((r) => r.driver === d && r.query === name && r.variant === 'GraphQL')!;
      const h = results.find((r) => r.driver === d && r.query === name && r.variant === 'hand-written SQL')!;
      return `${d}, ${name}: GraphQL/hand p50 ${(g.p50 / h.p50).toFixed(2)}x, p99 ${(g.p99 / h.p99).toFixed(2)}x, throughput hand/GraphQL ${(h.rps / g.rps).toFixed(2)}x`;
    }),
  );
  process.stdout.write(
    `# Project GraphQL benchmark\n\n${machine()}\n\n${table}\n\n${[...ratios, ...notes].map((n) => `- ${n}`).join('\n')}\n`,
  );
}

runMain(main);
