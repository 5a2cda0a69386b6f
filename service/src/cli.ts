import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from './config';
import { bootstrap } from './bootstrap';
import { AppError } from './shared/errors';
import { keyHint } from './keys/keys.service';
import { isScope, SCOPES, type Scope } from './keys/scopes';
import type { Services } from './services';
import { PROJECT_USAGE, runProjectCli } from './project/project.cli';
import { BACKUP_USAGE, runBackupCli } from './backup/backup.cli';
import { isoAt } from './shared/clock';
import { EVENT_TYPES, isEventType, type EventType } from './events/event-types';
import type { JobStatus } from './jobs/jobs.repo';
import { runDoctorCli } from './doctor/doctor.cli';

const JOB_STATUSES: readonly JobStatus[] = ['pending', 'running', 'succeeded', 'failed'];

const USAGE = `Usage:
  svc keys create --name NAME --scopes SCOPE[,SCOPE...] [--org ORG_ID] [--expires-in 30d]
                  [--rate-limit-per-minute N] [--rate-limit-per-second N]
      Prints the new key, once, and nothing else on stdout.
  svc keys list [--json]
  svc keys revoke KEY_ID
  svc orgs create --name NAME      Prints the new organization's id.
  svc orgs list [--json]
  svc integrations add-slack --token xoxb-... --channel C0123ABC --events TYPE[,TYPE...] [--org ORG_ID]
  svc integrations add-teams --url https://... --events TYPE[,TYPE...] [--org ORG_ID]
      Prints the new integration's id.
  svc integrations add-project --events TYPE[,TYPE...] [--org ORG_ID]
      Events go to table public.svc_events of the project database (RLS on; service_role reads it).
  svc integrations list [--json]
  svc integrations remove INTEGRATION_ID
  svc dashboard-link               Prints a one-time dashboard sign-in link for the owner (valid 15 minutes).
  svc jobs list [--status pending|running|succeeded|failed] [--json]
      Background jobs (transcribe, summarize), newest first, with attempts and the last error.
  svc jobs retry JOB_ID            Runs a failed job again (with a fresh set of attempts).
  svc users list [--json]
  svc users set-password EMAIL     Reads the new password from stdin (at least 10 characters); enables
                                   email + password sign-in to the dashboard.
  svc doctor                       Checks this server (base URL, TLS, ports, TURN, announced IP, ffmpeg,
                                   pocketsphinx, disk): one line each with the fix; exit 1 if one fails.
${PROJECT_USAGE}
${BACKUP_USAGE}

Scopes: ${SCOPES.join(', ')}, or "all".
Event types: ${EVENT_TYPES.join(', ')}, or "all".
The database is the one in SVC_DATA_DIR (default ./data), shared with a running service.`;

/** Where the CLI writes. */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

class UsageError extends Error {}

/** Runs one `svc` command against the services of a database; returns the process exit code. `stdin` is what was piped in, for set-password. */
export function runCli(argv: string[], services: Services, io: CliIo, stdin = ''): number {
  const clock = services.clock;
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
        token: { type: 'string' },
        channel: { type: 'string' },
        url: { type: 'string' },
        events: { type: 'string' },
        json: { type: 'boolean' },
        status: { type: 'string' },
      },
    });
    const { owner } = services.identity.ensureOwner();
    if (group === 'dashboard-link') {
      if (command !== undefined) throw new UsageError('dashboard-link takes no arguments');
      io.out(`${services.dashboard.signInLink(owner.id).url}\n`);
      return 0;
    }
    switch (`${group} ${command}`) {
      case 'jobs list': {
        const status = values.status;
        if (status !== undefined && !JOB_STATUSES.includes(status as JobStatus)) {
          throw new UsageError(`--status must be one of ${JOB_STATUSES.join(', ')}`);
        }
        const jobs = services.jobs.list({ status: status as JobStatus | undefined });
        if (values.json) io.out(`${JSON.stringify(jobs, null, 2)}\n`);
        else {
          for (const j of jobs) {
            const error = j.last_error ? `  error: ${j.last_error}` : '';
            io.out(`${j.id}  ${j.kind}  ${j.status}  attempts=${j.attempt_count}  created=${j.created_at}  ${j.payload}${error}\n`);
          }
        }
        return 0;
      }
      case 'jobs retry': {
        const id = positionals[0];
        if (!id) throw new UsageError('name the job id to retry (see svc jobs list --status failed)');
        services.jobs.retry(id);
        io.err(`job ${id} is pending again; a running service picks it up within a second\n`);
        return 0;
      }
      case 'users list': {
        const users = services.identity.listUsers();
        if (values.json) io.out(`${JSON.stringify(users, null, 2)}\n`);
        else for (const u of users) io.out(`${u.id}  ${u.email}  ${u.name}\n`);
        return 0;
      }
      case 'users set-password': {
        const email = positionals[0];
        if (!email) throw new UsageError('name the user by email (see svc users list)');
        const password = stdin.split(/\r?\n/)[0] ?? '';
        if (!password)
          throw new UsageError('pipe the new password on stdin, e.g. `read -rs P && printf %s "$P" | npx svc users set-password EMAIL`');
        services.dashboard.setPassword(email, password);
        io.err(`password set for ${email}; sign in at the dashboard with it\n`);
        return 0;
      }
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
      case 'integrations add-project': {
        const org = values.org ?? services.identity.listOrganizations()[0]!.id;
        if (!services.identity.listOrganizations().some((o) => o.id === org))
          throw new UsageError(`no organization ${org}; see svc orgs list`);
        io.out(`${services.integrations.create(org, { kind: 'project', events: parseEvents(values.events) }).id}\n`);
        return 0;
      }
      case 'integrations add-slack':
      case 'integrations add-teams': {
        const slack = command === 'add-slack';
        const org = values.org ?? services.identity.listOrganizations()[0]!.id;
        if (!services.identity.listOrganizations().some((o) => o.id === org))
          throw new UsageError(`no organization ${org}; see svc orgs list`);
        const integration = services.integrations.create(org, {
          kind: slack ? 'slack' : 'teams',
          events: parseEvents(values.events),
          ...(slack ? { bot_token: values.token, channel: values.channel } : { webhook_url: values.url }),
        });
        io.out(`${integration.id}\n`);
        return 0;
      }
      case 'integrations list': {
        const all = services.integrations.listAll();
        if (values.json) io.out(`${JSON.stringify(all, null, 2)}\n`);
        else {
          for (const i of all) {
            const where = i.kind === 'slack' ? `${i.channel} (${i.secret_hint})` : i.secret_hint;
            const state =
              i.status === 'disabled' ? `disabled: ${i.disabled_reason}` : i.status === 'failing' ? `failing: ${i.last_error}` : 'ok';
            io.out(`${i.id}  ${i.kind}  ${where}  org=${i.organization_id}  [${i.events.join(',')}]  ${state}\n`);
          }
        }
        return 0;
      }
      case 'integrations remove': {
        const id = positionals[0];
        if (!id) throw new UsageError('name the integration id to remove');
        const integration = services.integrationsRepo.findAny(id);
        if (!integration) throw AppError.notFound(`Integration ${id}`);
        services.integrations.remove([integration.organization_id], id);
        io.err(`removed ${id}\n`);
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
    if (err instanceof AppError) {
      const fields = err.extra.errors?.map((e) => ` (${e.param} ${e.message})`).join('') ?? '';
      io.err(`svc: ${err.code === 'validation_failed' ? 'invalid input' : err.detail}${fields}\n`);
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

function parseEvents(raw: string | undefined): EventType[] {
  if (!raw) throw new UsageError('--events is required (comma-separated event types, or "all")');
  if (raw === 'all') return [...EVENT_TYPES];
  const types = raw.split(',').map((s) => s.trim());
  const unknown = types.filter((t) => !isEventType(t));
  if (unknown.length > 0) throw new UsageError(`unknown event type(s): ${unknown.join(', ')}`);
  return types as EventType[];
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const LONGEST_EXPIRY_MS = 3650 * UNIT_MS.d!;
const LARGEST_RATE_LIMIT = 1_000_000;

/** Parses `90s`, `15m`, `12h` or `30d` (at most ten years) into milliseconds. */
function parseDuration(raw: string): number {
  const match = /^(\d{1,12})([smhd])$/.exec(raw);
  if (!match || Number(match[1]) === 0) throw new UsageError(`--expires-in must look like 90s, 15m, 12h or 30d, got "${raw}"`);
  const ms = Number(match[1]) * UNIT_MS[match[2]!]!;
  if (ms > LONGEST_EXPIRY_MS) throw new UsageError(`--expires-in must be at most 3650d (ten years), got "${raw}"`);
  return ms;
}

// Decimal digits only: Number() would also take 0x10, 1e3, 2.0 and surrounding spaces.
function optionalPositive(raw: string | undefined, flag: string): number | null {
  if (raw === undefined) return null;
  const n = /^[1-9]\d{0,6}$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= 1 && n <= LARGEST_RATE_LIMIT))
    throw new UsageError(`${flag} must be a whole number from 1 to ${LARGEST_RATE_LIMIT}, got "${raw}"`);
  return n;
}

function promptHidden(question: string): Promise<string> {
  return new Promise((resolve) => {
    process.stderr.write(question);
    const stdin = process.stdin;
    stdin.setRawMode(true);
    stdin.resume();
    let value = '';
    stdin.on('data', (chunk: Buffer) => {
      for (const ch of chunk.toString('utf8')) {
        if (ch === '\u0003') process.exit(130);
        if (ch === '\r' || ch === '\n') {
          stdin.setRawMode(false);
          stdin.pause();
          process.stderr.write('\n');
          return resolve(value);
        }
        value = ch === '\u007f' ? value.slice(0, -1) : value + ch;
      }
    });
  });
}

function readStdin(): string {
  try {
    return fs.readFileSync(0, 'utf8');
  } catch {
    return '';
  }
}

/** Entry point of the `svc` binary. */
export function main(argv = process.argv.slice(2)): void {
  // Before bootstrap: a restore writes into an empty directory, and a backup copies the database as it is.
  if (argv[0] === 'backup' || argv[0] === 'restore') {
    const io = { out: (t: string) => process.stdout.write(t), err: (t: string) => process.stderr.write(t) };
    void runBackupCli(argv, loadConfig(), io).then((code) => (process.exitCode = code));
    return;
  }
  // Before bootstrap too: the doctor only reads; it neither creates the data directory nor opens the database.
  if (argv[0] === 'doctor') {
    void runDoctorCli(process.env, (t) => process.stdout.write(t)).then((code) => (process.exitCode = code));
    return;
  }
  const core = bootstrap(loadConfig());
  const io = { out: (t: string) => process.stdout.write(t), err: (t: string) => process.stderr.write(t) };
  if (argv[0] === 'project') {
    void runProjectCli(argv.slice(1), core.project, core.config.dataDir, io).then(async (code) => {
      await core.project.close();
      core.close();
      process.exitCode = code;
    });
    return;
  }
  if (argv[0] === 'users' && argv[1] === 'set-password') {
    const password = process.stdin.isTTY ? promptHidden('New password (not shown): ') : Promise.resolve(readStdin());
    void password.then((text) => {
      process.exitCode = runCli(argv, core.services, io, text);
      core.close();
    });
    return;
  }
  const code = runCli(argv, core.services, io);
  core.close();
  process.exitCode = code;
}
