import fs from 'node:fs';
import { parseArgs } from 'node:util';
import type { ProjectDatabase } from './project.database';
import type { SqlResult } from './project.driver';
import { localSqlPath, sendLocalSql } from './project.socket';
import { rlsWarning, TABLES_RLS_SQL, tablesOf } from './project.rls';
import { API_ROLES, type ApiRole } from './project.setup';

/** Usage of `svc project`. */
export const PROJECT_USAGE = `  svc project keys [--json]        The project URL, the anon key and the service_role key.
  svc project sql "SQL" | -f FILE  Runs SQL as the database owner; prints the last statement's rows as JSON.
  svc project token --sub UUID [--role authenticated] [--expires-in 1h]
      Mints a user JWT signed with the project's secret.`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const UNIT_S: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** Where `svc project` writes. */
export interface ProjectCliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** Runs `svc project <command>`; SQL goes to a running service's socket when there is one. Returns the exit code. */
export async function runProjectCli(
  argv: string[],
  project: ProjectDatabase,
  dataDir: string,
  io: ProjectCliIo,
  nowMs = Date.now(),
): Promise<number> {
  const usage = (message: string) => {
    io.err(`svc: ${message}\n\nUsage:\n${PROJECT_USAGE}\n`);
    return 2;
  };
  const [command, ...rest] = argv;
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        file: { type: 'string', short: 'f' },
        sub: { type: 'string' },
        role: { type: 'string' },
        'expires-in': { type: 'string' },
        json: { type: 'boolean' },
      },
    });
  } catch (err) {
    return usage((err as Error).message);
  }
  const { values, positionals } = parsed;
  switch (command) {
    case 'keys': {
      const keys = project.keys();
      if (values.json) io.out(`${JSON.stringify({ url: keys.url, anon_key: keys.anon, service_role_key: keys.serviceRole }, null, 2)}\n`);
      else
        io.out(
          `Project URL:      ${keys.url}\nGraphQL:          ${keys.url}/graphql/v1\nanon key:         ${keys.anon}\nservice_role key: ${keys.serviceRole}\n`,
        );
      return 0;
    }
    case 'token': {
      if (!values.sub || !UUID.test(values.sub)) return usage('--sub must be a UUID');
      const role = (values.role ?? 'authenticated') as ApiRole;
      if (!API_ROLES.includes(role)) return usage(`--role must be one of ${API_ROLES.join(', ')}`);
      const match = /^(\d+)([smhd])$/.exec(values['expires-in'] ?? '1h');
      if (!match || Number(match[1]) === 0) return usage('--expires-in must look like 90s, 15m, 12h or 30d');
      const iat = Math.floor(nowMs / 1000);
      io.out(
        `${project.signToken({ sub: values.sub, role, aud: 'authenticated', iat, exp: iat + Number(match[1]) * UNIT_S[match[2]!]! })}\n`,
      );
      return 0;
    }
    case 'sql': {
      const sql = values.file !== undefined ? fs.readFileSync(values.file, 'utf8') : positionals.join(' ');
      if (!sql.trim()) return usage('give the SQL as an argument or with -f FILE');
      let results: SqlResult[];
      try {
        results = await sqlBesideService(project, dataDir, sql);
      } catch (err) {
        io.err(`svc: ${err instanceof Error ? err.message : String(err)}\n`);
        return 1;
      }
      const last = results[results.length - 1];
      if (last && last.rows.length > 0) io.out(`${JSON.stringify(last.rows, null, 2)}\n`);
      else io.err(`ok (${last?.affectedRows ?? 0} rows affected)\n`);
      const warning = await sqlBesideService(project, dataDir, TABLES_RLS_SQL).then(
        (tables) => rlsWarning(tablesOf(tables[0])),
        () => undefined,
      );
      if (warning) io.err(`svc: warning: ${warning}\n`);
      return 0;
    }
    default:
      return usage(command ? `unknown command: project ${command}` : 'name a project command');
  }
}

/** How long `svc project sql` waits for a starting service's socket when the service holds the embedded database. */
const SOCKET_WAIT_MS = 30_000;

/**
 * Runs SQL through a running service's socket, or on the database directly when no service runs. A service
 * that holds the embedded database but does not listen yet (it is starting) is waited for, not failed on.
 */
async function sqlBesideService(project: ProjectDatabase, dataDir: string, sql: string): Promise<SqlResult[]> {
  const socket = localSqlPath(dataDir);
  const noService = (err: unknown) => ['ENOENT', 'ECONNREFUSED'].includes(String((err as NodeJS.ErrnoException).code));
  try {
    return await sendLocalSql(socket, sql);
  } catch (err) {
    if (!noService(err)) throw err;
  }
  try {
    return await project.sql(sql);
  } catch (err) {
    if (!/is in use by process/.test(String(err))) throw err;
  }
  for (const until = Date.now() + SOCKET_WAIT_MS; ;) {
    try {
      return await sendLocalSql(socket, sql);
    } catch (err) {
      if (!noService(err) || Date.now() > until) throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
