import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { loadConfig } from './config';
import { openDatabase, type Db } from './db/connection';
import { migrate } from './db/migrate';
import { ApiError } from './http/errors';
import { keyHint } from './keys/keys.service';
import { isScope, SCOPES, type Scope } from './keys/scopes';
import { createServices } from './services';
import { isoAt, systemClock, type Clock } from './shared/clock';
import { SecretBox } from './shared/secret-box';

const USAGE = `Usage:
  svc keys create --name NAME --scopes SCOPE[,SCOPE...] [--org ORG_ID] [--expires-in 30d]
                  [--rate-limit-per-minute N] [--rate-limit-per-second N]
      Prints the new key, once, and nothing else on stdout.
  svc keys list [--json]
  svc keys revoke KEY_ID
  svc orgs create --name NAME      Prints the new organization's id.
  svc orgs list [--json]

Scopes: ${SCOPES.join(', ')}, or "all".
The database is the one in SVC_DATA_DIR (default ./data), shared with a running service.`;

/** Where the CLI writes. */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

class UsageError extends Error {}

/** Runs one `svc` command against `db`; returns the process exit code. */
export function runCli(argv: string[], db: Db, io: CliIo, clock: Clock = systemClock): number {
  // The CLI manages keys and organizations only, so it never opens a sealed secret.
  const services = createServices(db, { baseUrl: '', allowInsecureWebhooks: false }, clock, new SecretBox(randomBytes(32)));
  const [group, command, ...rest] = argv;
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        name: { type: 'string' },
        scopes: { type: 'string' },
        org: { type: 'string' },
        'expires-in': { type: 'string' },
        'rate-limit-per-minute': { type: 'string' },
        'rate-limit-per-second': { type: 'string' },
        json: { type: 'boolean' },
      },
    });
    const { owner } = services.identity.ensureOwner();
    switch (`${group} ${command}`) {
      case 'keys create': {
        if (!values.name) throw new UsageError('--name is required');
        if (values.org && !services.identity.listOrganizations().some((o) => o.id === values.org)) {
          throw new UsageError(`no organization ${values.org}; see svc orgs list`);
        }
        const { key } = services.keys.create({
          userId: owner.id,
          name: values.name,
          scopes: parseScopes(values.scopes),
          organizationId: values.org ?? null,
          expiresAt: values['expires-in'] ? isoAt(clock.now() + parseDuration(values['expires-in'])) : null,
          rateLimitPerMinute: optionalPositive(values['rate-limit-per-minute'], '--rate-limit-per-minute'),
          rateLimitPerSecond: optionalPositive(values['rate-limit-per-second'], '--rate-limit-per-second'),
        });
        io.out(`${key}\n`);
        return 0;
      }
      case 'keys list': {
        const rows = services.keys.list().map((k) => ({
          id: k.id,
          name: k.name,
          key: keyHint(k),
          scopes: k.scopes,
          organization_id: k.organization_id,
          expires_at: k.expires_at,
          revoked_at: k.revoked_at,
          created_at: k.created_at,
        }));
        if (values.json) io.out(`${JSON.stringify(rows, null, 2)}\n`);
        else {
          for (const k of rows) {
            const state = k.revoked_at ? `revoked ${k.revoked_at}` : k.expires_at ? `expires ${k.expires_at}` : 'active';
            io.out(`${k.id}  ${k.key}  ${k.name}  [${k.scopes.join(',')}]  org=${k.organization_id ?? 'any'}  ${state}\n`);
          }
        }
        return 0;
      }
      case 'keys revoke': {
        const id = positionals[0];
        if (!id) throw new UsageError('name the key id to revoke');
        services.keys.revoke(id);
        io.err(`revoked ${id}\n`);
        return 0;
      }
      case 'orgs create': {
        if (!values.name) throw new UsageError('--name is required');
        io.out(`${services.identity.createOrganization(owner.id, values.name).id}\n`);
        return 0;
      }
      case 'orgs list': {
        const orgs = services.identity.listOrganizations();
        if (values.json) io.out(`${JSON.stringify(orgs, null, 2)}\n`);
        else for (const o of orgs) io.out(`${o.id}  ${o.name}\n`);
        return 0;
      }
      default:
        throw new UsageError(group ? `unknown command: ${argv.slice(0, 2).join(' ')}` : 'no command given');
    }
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`svc: ${(err as Error).message}\n\n${USAGE}\n`);
      return 2;
    }
    if (err instanceof ApiError) {
      io.err(`svc: ${err.detail}\n`);
      return 1;
    }
    throw err;
  }
}

function parseScopes(raw: string | undefined): Scope[] {
  if (!raw) throw new UsageError('--scopes is required (comma-separated, or "all")');
  if (raw === 'all') return [...SCOPES];
  const scopes = raw.split(',').map((s) => s.trim());
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length > 0) throw new UsageError(`unknown scope(s): ${unknown.join(', ')}`);
  return scopes as Scope[];
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses `90s`, `15m`, `12h` or `30d` into milliseconds. */
export function parseDuration(raw: string): number {
  const match = /^(\d+)([smhd])$/.exec(raw);
  if (!match || Number(match[1]) === 0) throw new UsageError(`--expires-in must look like 90s, 15m, 12h or 30d, got "${raw}"`);
  return Number(match[1]) * UNIT_MS[match[2]!]!;
}

function optionalPositive(raw: string | undefined, flag: string): number | null {
  if (raw === undefined) return null;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} must be a positive integer`);
  return n;
}

/** Entry point of the `svc` binary. */
export function main(argv = process.argv.slice(2)): void {
  const db = openDatabase(loadConfig().databasePath);
  migrate(db);
  const code = runCli(argv, db, { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) });
  db.close();
  process.exitCode = code;
}
