import path from 'node:path';
import { AppError } from '../shared/errors';
import { quoteLiteral, type ProjectDriver, type SqlClient, type SqlResult } from './project.driver';
import { checkJwtTimes, loadJwtSecret, projectKeys, signJwt, verifyJwt, type JwtClaims } from './project.keys';
import { reflect, type Reflection } from './project.reflection';
import { PROJECT_SETUP_SQL, SETUP_APPLIED, SETUP_APPLIED_QUERY } from './project.setup';

/** Where the project database lives. */
export interface ProjectDriverOptions {
  /** A postgres:// URL, or undefined for the embedded database. */
  databaseUrl: string | undefined;
  /** The embedded database's directory. */
  dataDir: string;
}

/** Opens the driver the configuration names. */
export async function openProjectDriver(opts: ProjectDriverOptions): Promise<ProjectDriver> {
  // Each driver's module is loaded when it is first opened, so an idle service holds neither pg nor PGlite.
  /* eslint-disable @typescript-eslint/no-require-imports -- a lazy require: the build is CommonJS, and import() would load it as ESM */
  if (opts.databaseUrl) return (require('./pg.driver') as typeof import('./pg.driver')).openPgDriver(opts.databaseUrl);
  return (require('./pglite.driver') as typeof import('./pglite.driver')).openPgliteDriver(opts.dataDir);
  /* eslint-enable @typescript-eslint/no-require-imports */
}

/** What the project database needs from the configuration. */
export interface ProjectSettings {
  dataDir: string;
  baseUrl: string;
  databaseUrl: string | undefined;
  jwtSecret: string | undefined;
  statementTimeoutMs: number;
}

/** The per-request context a transaction runs in. */
export interface RequestScope {
  client: SqlClient;
  /** The catalog as of this transaction's snapshot (cached by schema version). */
  reflection: Reflection;
}

/** How long a token's verified signature and claims are remembered, and how many tokens. */
const VERIFIED_TTL_MS = 60_000;
const VERIFIED_MAX = 1_000;

/**
 * The project database: a driver opened on first use, Supabase's roles and helpers ensured, the JWT
 * secret and keys, and transactions run as a JWT's role with `request.jwt.claims` set.
 */
export class ProjectDatabase {
  private opening: Promise<ProjectDriver> | undefined;
  private opened = false;
  private cached: Reflection | undefined;
  private readonly secret: string;
  /** Tokens whose signature was verified lately, with their (frozen) claims; expiry is still checked on every use. */
  private readonly verified = new Map<string, { claims: JwtClaims; untilMs: number }>();
  private readonly closeHooks: (() => Promise<void>)[] = [];

  constructor(private readonly settings: ProjectSettings) {
    this.secret = loadJwtSecret(settings.dataDir, settings.jwtSecret);
  }

  /** The embedded database's directory. */
  static dataDirOf(dataDir: string): string {
    return path.join(dataDir, 'project');
  }

  /** Opens the database and runs the setup (once; later calls wait for the same start). */
  start(): Promise<ProjectDriver> {
    this.opening ??= (async () => {
      const driver = await openProjectDriver({
        databaseUrl: this.settings.databaseUrl,
        dataDir: ProjectDatabase.dataDirOf(this.settings.dataDir),
      });
      try {
        const [applied] = await driver.script(SETUP_APPLIED_QUERY);
        if (applied?.rows[0]?.applied !== SETUP_APPLIED) {
          await driver.script(`${PROJECT_SETUP_SQL}\ncomment on schema svc_graphql is ${quoteLiteral(SETUP_APPLIED)};`);
        }
      } catch (err) {
        await driver.close();
        throw err;
      }
      this.opened = true;
      return driver;
    })();
    const opening = this.opening;
    opening.catch(() => {
      if (this.opening === opening) this.opening = undefined;
    });
    return opening;
  }

  /** Whether the database runs: it starts on first use, so an idle service holds none. */
  get state(): 'stopped' | 'starting' | 'running' {
    if (!this.opening) return 'stopped';
    return this.opened ? 'running' : 'starting';
  }

  /** Which driver is in use. */
  get kind(): 'pglite' | 'postgres' {
    return this.settings.databaseUrl ? 'postgres' : 'pglite';
  }

  /** The project URL and its two keys. */
  keys(): { url: string; anon: string; serviceRole: string } {
    return { url: `${this.settings.baseUrl}/project`, ...projectKeys(this.secret) };
  }

  /** Mints a JWT signed with the project's secret. */
  signToken(claims: Record<string, unknown>): string {
    return signJwt(claims, this.secret);
  }

  /** Checks `apikey` (required) and an optional bearer token; returns the claims the request runs with. */
  authenticate(apikey: string | undefined, authorization: string | undefined, nowMs = Date.now()): JwtClaims {
    if (!apikey) throw new AppError('unauthorized', 'No API key found in request');
    const now = Math.floor(nowMs / 1000);
    const keyClaims = this.verify(apikey, nowMs, now);
    if (!authorization) return keyClaims;
    const match = /^Bearer (\S+)$/i.exec(authorization);
    if (!match) throw new AppError('unauthorized', 'The Authorization header must be "Bearer <JWT>"');
    return this.verify(match[1]!, nowMs, now);
  }

  /** `verifyJwt`, with the signature check remembered for a minute per token; `exp` and `nbf` are checked every time. */
  private verify(token: string, nowMs: number, now: number): JwtClaims {
    const hit = this.verified.get(token);
    if (hit && hit.untilMs > nowMs) {
      checkJwtTimes(hit.claims, now);
      return hit.claims;
    }
    const claims = verifyJwt(token, this.secret, now);
    if (hit) this.verified.delete(token);
    else if (this.verified.size >= VERIFIED_MAX) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(token, { claims, untilMs: nowMs + VERIFIED_TTL_MS });
    return claims;
  }

  /** Runs SQL as the database owner (a script of statements); returns each statement's result. */
  async sql(text: string): Promise<SqlResult[]> {
    const driver = await this.start();
    return driver.script(text);
  }

  /** Runs `fn` in one transaction as the claims' role with `request.jwt.claims` set, and a statement timeout. */
  async asRole<T>(claims: JwtClaims, fn: (scope: RequestScope) => Promise<T>): Promise<T> {
    const driver = await this.start();
    // The version is read (as the owner) before set_config switches the role; permissions are checked at executor start.
    // No parameters, so that it travels with `begin`: the values are quoted literals (the claims were verified, and are quoted anyway).
    const setup = `select (select schema_version from svc_graphql.meta)::int as version,
      set_config('request.jwt.claims', ${quoteLiteral(JSON.stringify(claims))}, true),
      set_config('request.jwt.claim.sub', ${quoteLiteral(typeof claims.sub === 'string' ? claims.sub : '')}, true),
      set_config('request.jwt.claim.role', ${quoteLiteral(claims.role)}, true),
      set_config('role', ${quoteLiteral(claims.role)}, true)`;
    return driver.transaction(
      async (client, begun) => {
        const version = Number(begun!.rows[0]!.version);
        if (!this.cached || this.cached.version !== version) {
          await client.query(`select set_config('role', 'none', true)`);
          const fresh = await reflect(client);
          if (!this.cached || fresh.version >= this.cached.version) this.cached = fresh;
          await client.query(`select set_config('role', $1, true)`, [claims.role]);
          return fn({ client, reflection: fresh });
        }
        return fn({ client, reflection: this.cached });
      },
      setup,
      this.settings.statementTimeoutMs,
    );
  }

  /** Runs `fn` in one transaction as the owner. */
  async asOwner<T>(fn: (client: SqlClient) => Promise<T>): Promise<T> {
    const driver = await this.start();
    return driver.transaction(fn);
  }

  /** Runs `stop` when the database closes: what serves it (the GraphQL engine's thread) stops with it. */
  onClose(stop: () => Promise<void>): void {
    this.closeHooks.push(stop);
  }

  /** Closes the driver if it was opened, and what serves it. */
  async close(): Promise<void> {
    await Promise.all(this.closeHooks.map((stop) => stop()));
    const opening = this.opening;
    this.opening = undefined;
    this.opened = false;
    if (!opening) return;
    const driver = await opening.catch(() => undefined);
    await driver?.close();
  }
}
