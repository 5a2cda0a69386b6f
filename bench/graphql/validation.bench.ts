/**
 * What a hostile GraphQL document costs the event loop: a fragment bomb (n fragments spreading the next one
 * twice, 2^n paths) at n = 24..40 against a benign document of the same length, both sent with the anon key
 * through the engine on the embedded database, rounds interleaved; then the largest documents the limits let
 * through and some just past them. Per document: the median time of one request, the event loop's busy time
 * per request, and its longest delay while the document's requests ran.
 * See bench/graphql/README.md.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startTestProject } from '../../service/src/testing/project';
import { machine, markdownTable, otherCpuText, progress, runMain, summarize, watchOtherCpu } from '../support';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PER_ROUND = Number(process.env.BENCH_PER_ROUND ?? 20);
const BOMB_SIZES = [24, 28, 32, 36, 40];

/** n fragments that each spread the next one twice, the last spreading one that does not exist. */
function fragmentBomb(n: number): string {
  const chain = Array.from({ length: n - 1 }, (_, i) => `fragment A${i + 1} on Query { ...A${i + 2} ...A${i + 2} }`);
  return `{ ...A1 } ${chain.join(' ')} fragment A${n} on Query { ...Missing }`;
}

/** A valid query of aliased `__typename` fields, as long as `length`. */
function benignOfLength(length: number): string {
  let body = '';
  for (let i = 0; `{${body} }`.length < length; i++) body += ` t${i}: __typename`;
  return `{${body} }`;
}

interface Measured {
  medianMs: number;
  /** The event loop's busy time (not waiting for I/O) per request: what the request cost the HTTP loop in all. */
  busyMs: number;
  maxDelayMs: number;
  answer: string;
}

async function main(): Promise<void> {
  progress('starting the embedded project database');
  const p = await startTestProject('pglite', { statementTimeoutMs: 30_000 });
  try {
    await p.sql(`create table tree(id int primary key, parent_id int references tree(id)); insert into tree values (1, null);
      insert into tree select i, null from generate_series(2, 30) i;
      insert into tree select 100 + i, 1 + (i - 1) / 30 from generate_series(1, 900) i;
      insert into tree select 10000 + i, 100 + 1 + (i - 1) / 30 from generate_series(1, 27000) i;
      create index tree_parent on tree(parent_id);
      analyze;`);
    const claims = p.project.authenticate(p.keys.anon, undefined);
    let sent = 0;
    // A comment that differs every time: the engine remembers parsed and validated documents by their text, an attacker would not repeat one.
    const run = (query: string) => p.engine.respond({ query: `${query}\n# ${(sent += 1)}` }, claims);

    const documents = new Map<string, string>();
    for (const n of BOMB_SIZES) {
      const bomb = fragmentBomb(n);
      documents.set(`bomb n=${n}`, bomb);
      documents.set(`benign n=${n}`, benignOfLength(bomb.length));
    }
    const treeField = (i: number) => `t${i}: treeCollection(first: 1) { edges { node { id } } }`;
    documents.set('bomb n=40 ending in a field', fragmentBomb(40).replace('...Missing', '__typename'));
    documents.set('2,000 aliased fields', `{ ${Array.from({ length: 2_000 }, (_, i) => `f${i}: __typename`).join(' ')} }`);
    documents.set('20 root collections', `{ ${Array.from({ length: 20 }, (_, i) => treeField(i)).join(' ')} }`);
    documents.set('2,000 same-name fields', `{ ${'a: __typename '.repeat(2_000)}}`);
    documents.set('50 same-name fields with subselections', `{ ${'treeCollection { __typename } '.repeat(50)}}`);
    documents.set('500 same-name fields with subselections', `{ ${'treeCollection { __typename } '.repeat(500)}}`);
    documents.set('16 levels deep', `{ ${'treeCollection(first: 1) { edges { node { '.repeat(5)}id${' } } }'.repeat(5)} }`);
    documents.set(
      '930 rows (two nested pages of 30)',
      `{ treeCollection(filter: {parent_id: {is: NULL}}) { edges { node { id treeCollection { edges { node { id } } } } } } }`,
    );
    documents.set(
      '27,930 rows (three nested pages of 30)',
      `{ treeCollection(filter: {parent_id: {is: NULL}}) { edges { node { id ${'treeCollection { edges { node { id '.repeat(2)}${'} } } '.repeat(2)}} } } }`,
    );
    documents.set(
      'about 100 KB of aliased fields',
      `{ ${Array.from({ length: 2_000 }, (_, i) => `${'f'.repeat(33)}${i}: __typename`).join(' ')} }`,
    );
    documents.set(
      'about 100 KB of fragment spreads',
      `{ ...F } fragment F on Query { ${'...G '.repeat(19_000)}} fragment G on Query { __typename }`,
    );

    const samples = new Map<string, number[]>([...documents.keys()].map((k) => [k, []]));
    const delays = new Map<string, number>();
    const busy = new Map<string, number>();
    const answers = new Map<string, string>();
    for (const [name, query] of documents) {
      if (query.length > 100_000) throw new Error(`${name} is ${query.length} characters, over the engine's limit`);
      for (let i = 0; i < 5; i++) answers.set(name, (await run(query)).slice(0, 90));
    }
    const cpu = watchOtherCpu();
    for (let round = 0; round < ROUNDS; round++) {
      progress(`round ${round + 1} of ${ROUNDS}`);
      for (const [name, query] of documents) {
        const delay = monitorEventLoopDelay({ resolution: 1 });
        delay.enable();
        const utilization = performance.eventLoopUtilization();
        for (let i = 0; i < PER_ROUND; i++) {
          const started = performance.now();
          await run(query);
          samples.get(name)!.push(performance.now() - started);
        }
        delay.disable();
        busy.set(name, (busy.get(name) ?? 0) + performance.eventLoopUtilization(utilization).active);
        delays.set(name, Math.max(delays.get(name) ?? 0, delay.max / 1e6));
      }
    }
    const other = cpu();

    const measured = new Map<string, Measured>();
    for (const name of documents.keys()) {
      measured.set(name, {
        medianMs: summarize(samples.get(name)!).p50,
        busyMs: busy.get(name)! / samples.get(name)!.length,
        maxDelayMs: delays.get(name)!,
        answer: answers.get(name)!,
      });
    }
    const row = (name: string) => {
      const m = measured.get(name)!;
      return [name, documents.get(name)!.length, m.medianMs.toFixed(2), m.busyMs.toFixed(2), m.maxDelayMs.toFixed(1), `\`${m.answer}\``];
    };
    const bombs = markdownTable(
      ['document', 'characters', 'median ms', 'event loop busy ms per request', 'longest event-loop delay ms', 'answer (start)'],
      BOMB_SIZES.flatMap((n) => [row(`bomb n=${n}`), row(`benign n=${n}`)]),
      [1, 2, 3, 4],
    );
    const ratios = BOMB_SIZES.map(
      (n) => `n=${n}: bomb / benign ${(measured.get(`bomb n=${n}`)!.medianMs / measured.get(`benign n=${n}`)!.medianMs).toFixed(2)}x`,
    );
    const others = markdownTable(
      ['document', 'characters', 'median ms', 'event loop busy ms per request', 'longest event-loop delay ms', 'answer (start)'],
      [...documents.keys()].filter((k) => !/^(bomb|benign) n=\d+$/.test(k)).map(row),
      [1, 2, 3, 4],
    );
    process.stdout.write(
      `# GraphQL validation benchmark\n\n${machine()}; ${ROUNDS} rounds x ${PER_ROUND} requests per document, interleaved; ` +
        `other CPU ${otherCpuText(other)}\n\n## Fragment bombs against benign documents of the same length\n\n${bombs}\n\n` +
        `${ratios.map((r) => `- ${r}`).join('\n')}\n\n## Large and hostile documents at and past the limits\n\n${others}\n`,
    );
  } finally {
    await p.close();
  }
}

runMain(main);
