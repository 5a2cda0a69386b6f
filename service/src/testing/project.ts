import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GraphqlEngine, type GraphqlResponse } from '../graphql/graphql.engine';
import { ProjectDatabase } from '../project/project.database';
import { PROJECT_SETUP_SQL } from '../project/project.setup';
import { startPostgresServer, type PostgresServer } from './postgres-server';

/** The two drivers every project-database test runs against. */
export const PROJECT_DRIVERS = ['pglite', 'postgres'] as const;
/** One of the drivers. */
export type ProjectDriverKind = (typeof PROJECT_DRIVERS)[number];

/** A project database for tests, on PGlite or on a PostgreSQL server this helper started, with its GraphQL engine. */
export interface TestProject {
  kind: ProjectDriverKind;
  project: ProjectDatabase;
  engine: GraphqlEngine;
  dataDir: string;
  /** The database URL (server mode only). */
  databaseUrl: string | undefined;
  /** The anon and service_role keys. */
  keys: { anon: string; serviceRole: string };
  /** Drops everything in `public` and re-runs the setup, so a test starts from an empty project. */
  reset(): Promise<void>;
  /** Runs SQL as the owner. */
  sql(text: string): Promise<void>;
  /** Runs GraphQL with a key or token (anon by default). */
  gql(query: string, variables?: Record<string, unknown>, token?: string): Promise<GraphqlResponse>;
  close(): Promise<void>;
}

/** Starts a test project; in server mode the PostgreSQL server is started here and stopped by `close()`. */
export async function startTestProject(
  kind: ProjectDriverKind,
  opts: { secret?: string; statementTimeoutMs?: number } = {},
): Promise<TestProject> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-project-'));
  let server: PostgresServer | undefined;
  let databaseUrl: string | undefined;
  if (kind === 'postgres') {
    server = await startPostgresServer();
    databaseUrl = await server.createDatabase('project');
  }
  const project = new ProjectDatabase({
    dataDir,
    baseUrl: 'http://127.0.0.1',
    databaseUrl,
    jwtSecret: opts.secret,
    statementTimeoutMs: opts.statementTimeoutMs ?? 5_000,
  });
  await project.start();
  const engine = new GraphqlEngine(project);
  project.onClose(() => engine.close());
  const keys = project.keys();
  return {
    kind,
    project,
    engine,
    dataDir,
    databaseUrl,
    keys,
    async reset() {
      await project.sql(`drop schema public cascade; create schema public; comment on schema public is null; ${PROJECT_SETUP_SQL}`);
    },
    async sql(text) {
      await project.sql(text);
    },
    async gql(query, variables, token = keys.anon) {
      return JSON.parse(await engine.respond({ query, variables }, project.authenticate(token, undefined))) as GraphqlResponse;
    },
    async close() {
      await project.close();
      await server?.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
