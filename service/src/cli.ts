import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from './config';
import { bootstrap } from './bootstrap';
import { AppError } from './shared/errors';
import { keyHint } from './keys/keys.service';
import { isScope, SCOPES, type Scope } from './keys/scopes';
import type { Services } from './services';
import { runProjectCli } from './project/project.cli';
import { runBackupCli } from './backup/backup.cli';
import { isoAt } from './shared/clock';
import { EVENT_TYPES, isEventType, type EventType } from './events/event-types';
import type { JobStatus } from './jobs/jobs.repo';
import { runDoctorCli } from './doctor/doctor.cli';
import { USERS_COMMANDS } from './dashboard/users.cli';
import { readRunningService } from './shared/running-service';

const JOB_STATUSES: readonly JobStatus[] = ['pending', 'running', 'succeeded', 'failed'];

/** Where the CLI writes. */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** One option of a command, as `parseArgs` takes it plus what `svc help` shows. */
export interface CliOption {
  type: 'string' | 'boolean';
  short?: string;
  /** The value's placeholder in the help, e.g. NAME. */
  value?: string;
  required?: boolean;
  help: string;
}

/** What a command run on the services gets. */
export interface CommandContext {
  services: Services;
  io: CliIo;
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
  /** What was piped in (for `users set-password`). */
  stdin: string;
  ownerId: string;
}

/**
 * One `svc` command: the words that name it, its help, and how it runs. `svc help` and the dispatcher both read
 * this table, so a command is registered with its help in one place. `run` works on the bootstrapped services;
 * `runAlone` gets the raw arguments and starts what it needs itself (before or without a bootstrap).
 */
export interface CliCommand {
  name: string;
  /** Positional arguments as shown in the help, e.g. KEY_ID. */
  args?: string;
  summary: string;
  /** More lines shown by `svc help <command>`. */
  details?: string;
  options?: Record<string, CliOption>;
  /** Reads stdin (a password) before running: prompted for hidden on a terminal, else read from the pipe. */
  readsSecret?: boolean;
  run?: (ctx: CommandContext) => number;
  runAlone?: (argv: string[], io: CliIo) => Promise<number>;
}

class UsageError extends Error {}

const json: CliOption = { type: 'boolean', help: 'Print JSON instead of one line per item.' };
const org: CliOption = { type: 'string', value: 'ORG_ID', help: 'The organization (default: the first one).' };
const events: CliOption = {
  type: 'string',
  value: 'TYPE[,TYPE...]',
  required: true,
  help: `Event types to send: ${EVENT_TYPES.join(', ')}, or "all".`,
};

function orgOrFirst(services: Services, id: string | undefined): string {
  const org = id ?? services.identity.listOrganizations()[0]!.id;
  if (!services.identity.listOrganizations().some((o) => o.id === org)) throw new UsageError(`no organization ${org}; see svc orgs list`);
  return org;
}

/** Every `svc` command, in the order `svc help` lists them. */
export const COMMANDS: CliCommand[] = [
  {
    name: 'keys create',
    summary: 'Creates an API key and prints it, once, and nothing else on stdout.',
    options: {
      name: { type: 'string', value: 'NAME', required: true, help: 'What the key is for.' },
      scopes: { type: 'string', value: 'SCOPE[,SCOPE...]', required: true, help: `${SCOPES.join(', ')}, or "all".` },
      org: { type: 'string', value: 'ORG_ID', help: 'Restrict the key to one organization (default: all of the owner’s).' },
      'expires-in': { type: 'string', value: '30d', help: 'Expiry: 90s, 15m, 12h or 30d (at most 3650d); default never.' },
      'rate-limit-per-minute': { type: 'string', value: 'N', help: 'This key’s own limit per minute (default 120).' },
      'rate-limit-per-second': { type: 'string', value: 'N', help: 'This key’s own limit per second (default 20).' },
    },
    run: ({ services, io, values, ownerId }) => {
      const name = values.name as string | undefined;
      if (!name) throw new UsageError('--name is required');
      const orgId = values.org as string | undefined;
      if (orgId && !services.identity.listOrganizations().some((o) => o.id === orgId)) {
        throw new UsageError(`no organization ${orgId}; see svc orgs list`);
      }
      const expiresIn = values['expires-in'] as string | undefined;
      const { key } = services.keys.create({
        userId: ownerId,
        name,
        scopes: parseScopes(values.scopes as string | undefined),
        organizationId: orgId ?? null,
        expiresAt: expiresIn ? isoAt(services.clock.now() + parseDuration(expiresIn)) : null,
        rateLimitPerMinute: optionalPositive(values['rate-limit-per-minute'] as string | undefined, '--rate-limit-per-minute'),
        rateLimitPerSecond: optionalPositive(values['rate-limit-per-second'] as string | undefined, '--rate-limit-per-second'),
      });
      io.out(`${key}\n`);
      return 0;
    },
  },
  {
    name: 'keys list',
    summary: 'Lists the API keys (their first characters, never the secret), scopes, organization and state.',
    options: { json },
    run: ({ services, io, values }) => {
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
    },
  },
  {
    name: 'keys revoke',
    args: 'KEY_ID',
    summary: 'Revokes an API key; it stops working at once.',
    run: ({ services, io, positionals }) => {
      const id = positionals[0];
      if (!id) throw new UsageError('name the key id to revoke');
      services.keys.revoke(id);
      io.err(`revoked ${id}\n`);
      return 0;
    },
  },
  {
    name: 'orgs create',
    summary: 'Creates an organization owned by the owner; prints its id.',
    options: { name: { type: 'string', value: 'NAME', required: true, help: 'The organization’s name.' } },
    run: ({ services, io, values, ownerId }) => {
      if (!values.name) throw new UsageError('--name is required');
      io.out(`${services.identity.createOrganization(ownerId, values.name as string).id}\n`);
      return 0;
    },
  },
  {
    name: 'orgs list',
    summary: 'Lists the organizations.',
    options: { json },
    run: ({ services, io, values }) => {
      const orgs = services.identity.listOrganizations();
      if (values.json) io.out(`${JSON.stringify(orgs, null, 2)}\n`);
      else for (const o of orgs) io.out(`${o.id}  ${o.name}\n`);
      return 0;
    },
  },
  {
    name: 'integrations add-slack',
    summary: 'Posts events to a Slack channel with a bot token; prints the new integration’s id.',
    options: {
      token: { type: 'string', value: 'xoxb-...', required: true, help: 'The Slack bot token (stored encrypted, never printed).' },
      channel: { type: 'string', value: 'C0123ABC', required: true, help: 'The channel id.' },
      events,
      org,
    },
    run: (ctx) => addChatIntegration(ctx, 'slack'),
  },
  {
    name: 'integrations add-teams',
    summary: 'Posts events to a Microsoft Teams Workflows webhook; prints the new integration’s id.',
    options: { url: { type: 'string', value: 'https://...', required: true, help: 'The Workflows webhook URL.' }, events, org },
    run: (ctx) => addChatIntegration(ctx, 'teams'),
  },
  {
    name: 'integrations add-project',
    summary: 'Writes events to table public.svc_events of the project database (RLS on; service_role reads it).',
    options: { events, org },
    run: ({ services, io, values }) => {
      const orgId = orgOrFirst(services, values.org as string | undefined);
      io.out(`${services.integrations.create(orgId, { kind: 'project', events: parseEvents(values.events as string | undefined) }).id}\n`);
      return 0;
    },
  },
  {
    name: 'integrations list',
    summary: 'Lists the integrations with their events and state (ok, failing, disabled).',
    options: { json },
    run: ({ services, io, values }) => {
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
    },
  },
  {
    name: 'integrations remove',
    args: 'INTEGRATION_ID',
    summary: 'Removes an integration.',
    run: ({ services, io, positionals }) => {
      const id = positionals[0];
      if (!id) throw new UsageError('name the integration id to remove');
      const integration = services.integrationsRepo.findAny(id);
      if (!integration) throw AppError.notFound(`Integration ${id}`);
      services.integrations.remove([integration.organization_id], id);
      io.err(`removed ${id}\n`);
      return 0;
    },
  },
  {
    name: 'dashboard-link',
    summary: 'Prints a one-time dashboard sign-in link for the owner (valid 15 minutes).',
    details: 'The link uses the running service’s base URL (recorded in the data directory when it starts), or SVC_BASE_URL when set.',
    run: ({ services, io, positionals, ownerId }) => {
      if (positionals.length > 0) throw new UsageError('dashboard-link takes no arguments');
      io.out(`${services.dashboard.signInLink(ownerId).url}\n`);
      return 0;
    },
  },
  {
    name: 'jobs list',
    summary: 'Lists background jobs (transcribe, summarize), newest first, with attempts and the last error.',
    options: { status: { type: 'string', value: JOB_STATUSES.join('|'), help: 'Only jobs in this state.' }, json },
    run: ({ services, io, values }) => {
      const status = values.status as string | undefined;
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
    },
  },
  {
    name: 'jobs retry',
    args: 'JOB_ID',
    summary: 'Runs a failed job again, with a fresh set of attempts.',
    run: ({ services, io, positionals }) => {
      const id = positionals[0];
      if (!id) throw new UsageError('name the job id to retry (see svc jobs list --status failed)');
      services.jobs.retry(id);
      io.err(`job ${id} is pending again; a running service picks it up within a second\n`);
      return 0;
    },
  },
  ...USERS_COMMANDS,
  {
    name: 'users set-password',
    args: 'EMAIL',
    summary: 'Sets a user’s dashboard password (at least 10 characters), read from stdin; enables email + password sign-in.',
    readsSecret: true,
    run: ({ services, io, positionals, stdin }) => {
      const email = positionals[0];
      if (!email) throw new UsageError('name the user by email (see svc users list)');
      const password = stdin.split(/\r?\n/)[0] ?? '';
      if (!password)
        throw new UsageError('pipe the new password on stdin, e.g. `read -rs P && printf %s "$P" | npx svc users set-password EMAIL`');
      services.dashboard.setPassword(email, password);
      io.err(`password set for ${email}; sign in at the dashboard with it\n`);
      return 0;
    },
  },
  {
    name: 'doctor',
    summary: 'Checks this server: base URL, TLS, ports, TURN, announced IP, ffmpeg, pocketsphinx, disk; exit 1 if one fails.',
    details: 'One line per check, with the fix. Reads only: it neither creates the data directory nor opens the database.',
    runAlone: (_argv, io) => runDoctorCli(process.env, io.out),
  },
  {
    name: 'backup',
    args: 'FILE',
    summary: 'Writes the data directory to FILE (.tar.gz, mode 0600), also while the service runs.',
    details: 'Database, project database, recordings, master key and project JWT secret. Keep FILE as secret as the data directory.',
    runAlone: (argv, io) => runBackupCli(argv, cliConfig(), io),
  },
  {
    name: 'restore',
    args: 'FILE',
    summary: 'Restores a backup into SVC_DATA_DIR, which must be empty or missing; then start the service on it.',
    details: 'Exit code 1 when refused (not empty, damaged, newer schema).',
    runAlone: (argv, io) => runBackupCli(argv, cliConfig(), io),
  },
  {
    name: 'project keys',
    summary: 'Prints the project URL, the anon key and the service_role key.',
    options: { json },
    runAlone: runProject,
  },
  {
    name: 'project sql',
    args: '"SQL"',
    summary: 'Runs SQL as the database owner; prints the last statement’s rows as JSON.',
    details: 'Then warns on stderr, in one line, about public tables with row-level security off (the anon key reads and writes them).',
    options: { file: { type: 'string', short: 'f', value: 'FILE', help: 'Read the SQL from FILE instead of the argument.' } },
    runAlone: runProject,
  },
  {
    name: 'project token',
    summary: 'Mints a user JWT signed with the project’s secret.',
    options: {
      sub: { type: 'string', value: 'UUID', required: true, help: 'The user id (the `sub` claim).' },
      role: { type: 'string', value: 'ROLE', help: 'anon, authenticated (default) or service_role.' },
      'expires-in': { type: 'string', value: '1h', help: 'Lifetime: 90s, 15m, 12h or 30d (default 1h).' },
    },
    runAlone: runProject,
  },
];

const HELP_FOOTER = 'The database is the one in SVC_DATA_DIR (default ./data), shared with a running service.';

function addChatIntegration({ services, io, values }: CommandContext, kind: 'slack' | 'teams'): number {
  const orgId = orgOrFirst(services, values.org as string | undefined);
  const integration = services.integrations.create(orgId, {
    kind,
    events: parseEvents(values.events as string | undefined),
    ...(kind === 'slack'
      ? { bot_token: values.token as string | undefined, channel: values.channel as string | undefined }
      : { webhook_url: values.url as string | undefined }),
  });
  io.out(`${integration.id}\n`);
  return 0;
}

/** The command `argv` names (one word, or two), and the arguments after its name. */
export function findCommand(argv: readonly string[]): { command: CliCommand; rest: string[] } | undefined {
  const two = COMMANDS.find((c) => c.name === `${argv[0]} ${argv[1]}`);
  if (two) return { command: two, rest: argv.slice(2) };
  const one = COMMANDS.find((c) => c.name === argv[0]);
  return one ? { command: one, rest: argv.slice(1) } : undefined;
}

function synopsis(c: CliCommand): string {
  const options = Object.entries(c.options ?? {}).map(([flag, o]) => {
    const text = `--${flag}${o.value ? ` ${o.value}` : ''}`;
    return o.required ? text : `[${text}]`;
  });
  return ['svc', c.name, ...(c.args ? [c.args] : []), ...options].join(' ');
}

/** `svc help` (every command, one line each), or the help of the commands `topic` names (a command or a group). */
export function helpText(topic: readonly string[] = []): string | undefined {
  if (topic.length === 0) {
    const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 2;
    const lines = COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`);
    return `Usage: svc COMMAND [ARGUMENTS] [OPTIONS]\n\nCommands:\n${lines.join('\n')}\n\nRun \`svc help COMMAND\` for a command's options. ${HELP_FOOTER}`;
  }
  const exact = findCommand(topic);
  const chosen = exact && exact.rest.length === 0 ? [exact.command] : COMMANDS.filter((c) => c.name.split(' ')[0] === topic.join(' '));
  if (chosen.length === 0) return undefined;
  return `Usage:\n${chosen.map(commandHelp).join('\n\n')}\n\n${HELP_FOOTER}`;
}

function commandHelp(c: CliCommand): string {
  const options = Object.entries(c.options ?? {}).map(([flag, o]) => {
    const name = `${o.short ? `-${o.short}, ` : ''}--${flag}${o.value ? ` ${o.value}` : ''}`;
    return `      ${name.padEnd(34)} ${o.help}${o.required ? ' (required)' : ''}`;
  });
  return [`  ${synopsis(c)}`, `      ${c.summary}`, ...(c.details ? [`      ${c.details}`] : []), ...options].join('\n');
}

function parseOptions(command: CliCommand, args: string[]) {
  const options = Object.fromEntries(
    Object.entries(command.options ?? {}).map(([flag, o]) => [flag, { type: o.type, ...(o.short ? { short: o.short } : {}) }]),
  );
  return parseArgs({ args, allowPositionals: true, options });
}

function usageFailure(io: CliIo, message: string, argv: readonly string[]): number {
  const found = findCommand(argv);
  io.err(`svc: ${message}\n\n${(found && helpText(found.command.name.split(' '))) ?? helpText()}\n`);
  return 2;
}

/** Runs one `svc` command against the services of a database; returns the process exit code. `stdin` is what was piped in, for set-password. */
export function runCli(argv: string[], services: Services, io: CliIo, stdin = ''): number {
  const help = runHelp(argv, io);
  if (help !== undefined) return help;
  if (argv.length === 0) return usageFailure(io, 'no command given', argv);
  const found = findCommand(argv);
  if (!found?.command.run) return usageFailure(io, `unknown command: ${argv.slice(0, 2).join(' ')}`, argv);
  const { command, rest } = found;
  try {
    const { values, positionals } = parseOptions(command, rest);
    const ownerId = services.identity.ensureOwner().owner.id;
    return command.run!({ services, io, values, positionals, stdin, ownerId });
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      return usageFailure(io, (err as Error).message, argv);
    }
    if (err instanceof AppError) {
      const fields = err.extra.errors?.map((e) => ` (${e.param} ${e.message})`).join('') ?? '';
      io.err(`svc: ${err.code === 'validation_failed' ? 'invalid input' : err.detail}${fields}\n`);
      return 1;
    }
    throw err;
  }
}

/**
 * The configuration the CLI runs with: the environment's, with the base URL of the service running on the same data
 * directory when SVC_BASE_URL is not set (so links printed here are the ones the service answers, not localhost:8080).
 */
export function cliConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const config = loadConfig(env);
  if (env.SVC_BASE_URL !== undefined) return config;
  const running = readRunningService(config.dataDir);
  return running ? loadConfig({ ...env, SVC_BASE_URL: running.base_url }) : config;
}

async function runProject(argv: string[], io: CliIo): Promise<number> {
  const core = bootstrap(cliConfig());
  try {
    return await runProjectCli(argv.slice(1), core.project, core.config.dataDir, io);
  } finally {
    await core.project.close();
    core.close();
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
/** The topic of a help request (`svc help [topic]`, `svc --help`, `svc <command> --help`), or undefined when `argv` asks for none. */
function helpTopic(argv: readonly string[]): string[] | undefined {
  if (argv[0] === 'help') return argv.slice(1);
  if (argv.includes('--help') || argv.includes('-h')) return argv.filter((a) => a !== '--help' && a !== '-h');
  return undefined;
}

/** Prints the help `argv` asks for; returns the exit code, or undefined when `argv` is not a help request. */
export function runHelp(argv: readonly string[], io: CliIo): number | undefined {
  const topic = helpTopic(argv);
  if (!topic) return undefined;
  const text = helpText(topic);
  if (text === undefined) return usageFailure(io, `unknown command: ${topic.join(' ')}`, []);
  io.out(`${text}\n`);
  return 0;
}

/** Entry point of the `svc` binary. */
export function main(argv = process.argv.slice(2)): void {
  const io = { out: (t: string) => process.stdout.write(t), err: (t: string) => process.stderr.write(t) };
  const help = runHelp(argv, io);
  if (help !== undefined) {
    process.exitCode = help;
    return;
  }
  const found = findCommand(argv);
  // Before any bootstrap: a mistyped command creates no data directory.
  if (!found) {
    process.exitCode = runCliWithoutServices(argv, io);
    return;
  }
  // Commands that start what they need: a restore writes into an empty directory, the doctor only reads, etc.
  if (found.command.runAlone) {
    void found.command.runAlone(argv, io).then((code) => (process.exitCode = code));
    return;
  }
  const core = bootstrap(cliConfig());
  if (found.command.readsSecret) {
    const secret = process.stdin.isTTY ? promptHidden('New password (not shown): ') : Promise.resolve(readStdin());
    void secret.then((text) => {
      process.exitCode = runCli(argv, core.services, io, text);
      core.close();
    });
    return;
  }
  const code = runCli(argv, core.services, io);
  core.close();
  process.exitCode = code;
}

function runCliWithoutServices(argv: readonly string[], io: CliIo): number {
  return usageFailure(io, argv.length === 0 ? 'no command given' : `unknown command: ${argv.slice(0, 2).join(' ')}`, argv);
}
