/**
 * Replays pg_graphql's regression suite against svc's GraphQL engine, on PGlite and on a PostgreSQL server, and
 * prints how many answers match. It reads a local checkout of supabase/pg_graphql (never copied into this repo):
 *
 *   npx tsx bench/graphql/conformance.replay.ts <path of a pg_graphql checkout> [pglite|postgres|both] [file-name-filter]
 *
 * (or PG_GRAPHQL_DIR=<path>). For each `test/sql/<name>.sql` it starts from an empty project, runs the setup
 * statements as the owner, and for each statement that calls `graphql.resolve(...)` and has a result in
 * `test/expected/<name>.out`: runs the statement once with a stand-in `graphql.resolve` that records its
 * arguments, answers each recorded call with svc's engine (service_role key), runs the statement again with a
 * stand-in that returns those answers (so `jsonb_pretty(...)`, `->` and the like apply as in the transcript),
 * and compares the value with the transcript's. See bench/graphql/README.md for what it cannot replay.
 */
import { isDeepStrictEqual } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import { startTestProject, type ProjectDriverKind, type TestProject } from '../../service/src/testing/project';
import { markdownTable, progress, runMain } from '../support';

/** Prints a line of the report (stdout; progress goes to stderr). */
const print = (line: string) => process.stdout.write(`${line}\n`);
/** The rows of one statement run as the owner. */
const rowsOf = async (p: TestProject, text: string) => ((await p.project.sql(text))[0]?.rows ?? []) as Record<string, unknown>[];

/** One statement of a script, with the result table the transcript shows after it (if any). */
interface Statement {
  text: string;
  /** The rows of a one-column result, as text (null for an SQL null); undefined when there was no table. */
  expected?: (string | null)[];
  /** The result had more than one column: not replayed. */
  multiColumn?: boolean;
}

/** Splits an SQL script into statements at top-level semicolons (quotes, dollar quotes and comments respected). */
export function splitStatements(script: string): string[] {
  const out: string[] = [];
  let start = 0;
  let i = 0;
  while (i < script.length) {
    const c = script[i]!;
    if (c === '-' && script[i + 1] === '-') {
      const end = script.indexOf('\n', i);
      i = end < 0 ? script.length : end;
    } else if (c === '/' && script[i + 1] === '*') {
      const end = script.indexOf('*/', i + 2);
      i = end < 0 ? script.length : end + 2;
    } else if (c === "'") {
      const escaped = /[eE]/.test(script[i - 1] ?? '') && !/[\w]/.test(script[i - 2] ?? ' ');
      i += 1;
      while (i < script.length) {
        if (escaped && script[i] === '\\') i += 2;
        else if (script[i] === "'" && script[i + 1] === "'") i += 2;
        else if (script[i] === "'") break;
        else i += 1;
      }
      i += 1;
    } else if (c === '"') {
      const end = script.indexOf('"', i + 1);
      i = end < 0 ? script.length : end + 1;
    } else if (c === '$') {
      const tag = /^\$([A-Za-z_][A-Za-z_0-9]*)?\$/.exec(script.slice(i));
      if (tag && !/[\w]/.test(script[i - 1] ?? ' ')) {
        const end = script.indexOf(tag[0], i + tag[0].length);
        i = end < 0 ? script.length : end + tag[0].length;
      } else i += 1;
    } else if (c === ';') {
      out.push(script.slice(start, i + 1));
      start = i + 1;
      i += 1;
    } else i += 1;
  }
  if (script.slice(start).trim()) out.push(script.slice(start));
  return out.map((s) => s.trim()).filter((s) => s.replace(/--[^\n]*/g, '').trim().length > 0);
}

/** Reads a psql transcript: the echoed statements, each with the one-column result table that follows it. */
export function readTranscript(out: string): Statement[] {
  const lines = out.split('\n');
  let echo = '';
  const statements: Statement[] = [];
  let done = 0;
  const flush = () => {
    const parts = splitStatements(echo);
    // Every part but an unterminated tail is a finished statement.
    const finished = echo.trimEnd().endsWith(';') ? parts : parts.slice(0, -1);
    for (const text of finished.slice(done)) statements.push({ text });
    done = finished.length;
  };
  for (let i = 0; i < lines.length; i++) {
    const isTable = i + 1 < lines.length && /^-+(\+-+)*$/.test(lines[i + 1]!) && lines[i + 1]!.length > 0;
    if (!isTable) {
      echo += `${lines[i]}\n`;
      continue;
    }
    flush();
    const multiColumn = lines[i + 1]!.includes('+');
    const rows: (string | null)[] = [];
    let j = i + 2;
    let pieces: string[] = [];
    for (; j < lines.length && !/^\(\d+ rows?\)$/.test(lines[j]!); j++) {
      const content = lines[j]!.slice(1).trimEnd();
      if (content.endsWith('+')) pieces.push(content.slice(0, -1));
      else {
        pieces.push(content);
        const cell = pieces.join('\n');
        rows.push(cell === '' && pieces.length === 1 ? null : cell);
        pieces = [];
      }
    }
    const last = statements[statements.length - 1];
    if (last) Object.assign(last, multiColumn ? { multiColumn: true } : { expected: rows });
    i = j + 1;
  }
  flush();
  return statements;
}

const STAND_INS = `
create schema graphql;
create table graphql._calls (seq serial primary key, query text, variables jsonb, operation_name text, answer jsonb, used boolean not null default false);
create table graphql._mode (replay boolean not null);
insert into graphql._mode values (false);
grant all on schema graphql to public;
grant all on all tables in schema graphql to public;
grant all on all sequences in schema graphql to public;
create function graphql.resolve(query text default null, variables jsonb default '{}', "operationName" text default null, extensions jsonb default null)
returns jsonb language plpgsql volatile as $fn$
declare result jsonb;
begin
  if (select replay from graphql._mode) then
    update graphql._calls set used = true where seq = (select min(seq) from graphql._calls where not used) returning answer into result;
    return result;
  end if;
  insert into graphql._calls (query, variables, operation_name) values (query, coalesce(variables, '{}'), "operationName");
  return null;
end $fn$;
create function graphql.encode(jsonb) returns text language sql immutable as $fn$ select encode(convert_to($1::text, 'utf-8'), 'base64') $fn$;
create function graphql.comment_directive(comment_ text) returns jsonb language sql immutable as $fn$
  select (regexp_match(comment_, '@graphql\\((.+)\\)', 's'))[1]::jsonb $fn$;
comment on schema public is '@graphql({"inflect_names": true})';
`;

/** Statements the replay cannot mean the same by: savepoints (svc's answers commit) and role switches (svc answers as service_role). */
const SKIPPED = /^(begin|commit|rollback|end|savepoint|release|set\s+(local\s+)?role|reset\s+role|set\s+search_path)\b/i;

interface CaseResult {
  file: string;
  kind: 'data' | 'error';
  equal: boolean;
  expected: unknown;
  actual: unknown;
  query: string;
}

const parseJson = (text: unknown): unknown => {
  if (typeof text !== 'string') return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};
const messages = (v: unknown) => ((v as { errors?: { message?: unknown }[] } | null)?.errors ?? []).map((e) => e.message);

async function replayFile(p: TestProject, file: string, statements: Statement[], baseline: { schemas: string[]; roles: string[] }) {
  await resetProject(p, baseline);
  await p.sql(STAND_INS);
  const claims = p.project.authenticate(p.keys.serviceRole, undefined);
  const results: CaseResult[] = [];
  let setupErrors = 0;
  /** The setup statements run since the fixtures, and how many of them each savepoint had seen. */
  const log: string[] = [];
  const savepoints = new Map<string, number>();
  for (const st of statements) {
    const text = st.text.replace(/^(\s*--[^\n]*\n)+/, '').trim();
    // A rollback returns to the fixtures (or to a savepoint): the project is rebuilt and the setup run so far replayed.
    const toSavepoint = /^rollback\s+to\s+(?:savepoint\s+)?(\w+)\s*;$/i.exec(text);
    if (toSavepoint || /^(rollback|abort)\s*;$/i.test(text)) {
      const keep = toSavepoint ? (savepoints.get(toSavepoint[1]!.toLowerCase()) ?? 0) : 0;
      log.length = keep;
      await resetProject(p, baseline);
      await p.sql(STAND_INS);
      for (const done of log) await p.sql(done).catch(() => undefined);
      continue;
    }
    const savepoint = /^savepoint\s+(\w+)\s*;$/i.exec(text);
    if (savepoint) savepoints.set(savepoint[1]!.toLowerCase(), log.length);
    if (SKIPPED.test(text)) continue;
    if (!/graphql\.resolve\s*\(/i.test(text) || !st.expected) {
      if (/^(select|grant|revoke)\b.*graphql\.resolve/is.test(text)) continue;
      try {
        await p.sql(text);
        log.push(text);
      } catch (err) {
        setupErrors += 1;
        if (process.env.SHOW_MISSES)
          process.stderr.write(`--- setup of ${file} failed: ${(err as Error).message}\n${text.slice(0, 300)}\n`);
      }
      continue;
    }
    await p.sql(`update graphql._mode set replay = false; truncate graphql._calls restart identity;`);
    try {
      await p.sql(text);
    } catch {
      setupErrors += 1;
      continue;
    }
    const calls = await rowsOf(p, `select seq, query, variables, operation_name from graphql._calls order by seq`);
    const queries: string[] = [];
    for (const call of calls as { seq: number; query: string; variables: unknown; operation_name: string | null }[]) {
      const variables = parseJson(call.variables) as Record<string, unknown>;
      const answer = await p.engine.respond({ query: call.query ?? '', variables, operationName: call.operation_name }, claims);
      queries.push(call.query);
      await p.project.sql(`update graphql._calls set answer = ${quote(answer)}::jsonb where seq = ${Number(call.seq)}`);
    }
    await p.sql(`update graphql._mode set replay = true`);
    let rows: Record<string, unknown>[];
    try {
      rows = await rowsOf(p, text);
    } finally {
      await p.sql(`update graphql._mode set replay = false`);
    }
    const actualCells = rows.map((r) => Object.values(r)[0]);
    st.expected.forEach((cell, i) => {
      const expected = parseJson(cell);
      const actual = parseJson(actualCells[i] ?? null);
      const isError = messages(expected).length > 0;
      results.push({
        file,
        kind: isError ? 'error' : 'data',
        equal: isError ? isDeepStrictEqual(messages(actual), messages(expected)) : isDeepStrictEqual(actual, expected),
        expected,
        actual,
        query: queries[i] ?? queries[0] ?? '',
      });
    });
  }
  return { results, setupErrors };
}

const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;

async function resetProject(p: TestProject, baseline: { schemas: string[]; roles: string[] }) {
  const schemas = await rowsOf(p, `select nspname from pg_namespace`);
  for (const { nspname } of schemas as { nspname: string }[]) {
    if (!baseline.schemas.includes(nspname)) await p.sql(`drop schema ${JSON.stringify(nspname)} cascade`);
  }
  await p.reset();
  // pg_regress runs pg_graphql's suite with PGTZ=PST8PDT: sessions opened from now on (and PGlite's one) use it.
  await p.sql(
    `do $$ begin execute format('alter database %I set timezone = %L', current_database(), 'PST8PDT'); end $$; set timezone = 'PST8PDT'`,
  );
  const roles = await rowsOf(p, `select rolname from pg_roles`);
  for (const { rolname } of roles as { rolname: string }[]) {
    if (baseline.roles.includes(rolname)) continue;
    await p.sql(`drop owned by ${JSON.stringify(rolname)} cascade; drop role ${JSON.stringify(rolname)}`).catch(() => undefined);
  }
}

async function replayDriver(kind: ProjectDriverKind, dir: string, filter: string | undefined) {
  progress(`starting the project database on ${kind}`);
  const p = await startTestProject(kind, { statementTimeoutMs: 30_000 });
  try {
    const schemas = await rowsOf(p, `select nspname from pg_namespace`);
    const roles = await rowsOf(p, `select rolname from pg_roles`);
    const baseline = {
      schemas: (schemas as { nspname: string }[]).map((r) => r.nspname).filter((n) => n !== 'graphql'),
      roles: (roles as { rolname: string }[]).map((r) => r.rolname),
    };
    const files = fs
      .readdirSync(path.join(dir, 'test', 'sql'))
      .filter((f) => f.endsWith('.sql') && (!filter || new RegExp(filter).test(f)))
      .sort();
    const all: CaseResult[] = [];
    const failedSetups: string[] = [];
    for (const f of files) {
      const name = f.replace(/\.sql$/, '');
      const outFile = path.join(dir, 'test', 'expected', `${name}.out`);
      if (!fs.existsSync(outFile)) continue;
      const statements = readTranscript(fs.readFileSync(outFile, 'utf8'));
      try {
        const { results, setupErrors } = await replayFile(p, name, statements, baseline);
        all.push(...results);
        if (setupErrors > 0) failedSetups.push(`${name} (${setupErrors})`);
        progress(`${kind} ${name}: ${results.filter((r) => r.equal).length}/${results.length}`);
      } catch (err) {
        failedSetups.push(`${name} (aborted: ${(err as Error).message.slice(0, 80)})`);
      }
    }
    return { all, failedSetups };
  } finally {
    await p.close();
  }
}

async function main(): Promise<void> {
  const dir = process.argv[2] ?? process.env.PG_GRAPHQL_DIR;
  if (!dir || !fs.existsSync(path.join(dir, 'test', 'sql'))) {
    throw new Error('usage: npx tsx bench/graphql/conformance.replay.ts <pg_graphql checkout> [pglite|postgres|both] [filter]');
  }
  const which = process.argv[3] ?? 'both';
  const kinds: ProjectDriverKind[] = which === 'both' ? ['pglite', 'postgres'] : [which as ProjectDriverKind];
  const filter = process.argv[4];
  const summary: (string | number)[][] = [];
  const byFile = new Map<string, Record<string, number>>();
  for (const kind of kinds) {
    const { all, failedSetups } = await replayDriver(kind, dir, filter);
    const data = all.filter((r) => r.kind === 'data');
    const errors = all.filter((r) => r.kind === 'error');
    const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(0)} %` : '-');
    const dataEqual = data.filter((r) => r.equal).length;
    const errorsEqual = errors.filter((r) => r.equal).length;
    summary.push([
      kind,
      `${dataEqual} / ${data.length}`,
      pct(dataEqual, data.length),
      `${errorsEqual} / ${errors.length}`,
      pct(errorsEqual, errors.length),
    ]);
    for (const r of all) {
      const row = byFile.get(r.file) ?? {};
      const key = `${kind} ${r.kind} ${r.equal ? 'equal' : 'missed'}`;
      row[key] = (row[key] ?? 0) + 1;
      byFile.set(r.file, row);
      if (!r.equal && process.env.SHOW_MISSES) {
        process.stderr.write(
          `--- ${kind} ${r.file} (${r.kind})\n${r.query.trim()}\nexpected: ${JSON.stringify(r.expected)}\nactual:   ${JSON.stringify(r.actual)}\n`,
        );
      }
    }
    if (failedSetups.length) print(`${kind}: files with setup statements that failed: ${failedSetups.join(', ')}\n`);
  }
  print(markdownTable(['driver', 'data cases equal', '', 'error messages equal', ''], summary, [1, 2, 3, 4]));
  print('\nMisses by file (feature) of pg_graphql’s suite:\n');
  const rows = [...byFile]
    .map(([file, c]) => [
      file,
      ...kinds.flatMap((k) => [
        `${c[`${k} data missed`] ?? 0} / ${(c[`${k} data missed`] ?? 0) + (c[`${k} data equal`] ?? 0)}`,
        `${c[`${k} error missed`] ?? 0} / ${(c[`${k} error missed`] ?? 0) + (c[`${k} error equal`] ?? 0)}`,
      ]),
    ])
    .filter((r) => r.slice(1).some((x) => !String(x).startsWith('0 /')));
  rows.sort((a, b) => parseInt(String(b[1])) + parseInt(String(b[2])) - (parseInt(String(a[1])) + parseInt(String(a[2]))));
  print(markdownTable(['file', ...kinds.flatMap((k) => [`${k} data missed`, `${k} errors missed`])], rows));
}

runMain(main);
