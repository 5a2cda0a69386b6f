import { loadConfig, type Config } from './config';
import { bootstrap } from './bootstrap';
import { keyHint } from './keys/keys.service';
import { SCOPES } from './keys/scopes';
import type { Services } from './services';
import { runProjectCli } from './project/project.cli';
import { runBackupCli } from './backup/backup.cli';
import { isoAt } from './shared/clock';
import { AppError } from './shared/errors';
import { EVENT_TYPES } from './events/event-types';
import type { JobStatus } from './jobs/jobs.repo';
import { runDoctorCli } from './doctor/doctor.cli';
import { runMediaNodeCli } from './media/nodes/media-node.cli';
import { USERS_COMMANDS } from './dashboard/users.cli';
import { readRunningService } from './shared/running-service';
import {
  optionalPositive,
  parseDuration,
  parseEvents,
  parseScopes,
  UsageError,
  type CliCommand,
  type CliIo,
  type CliOption,
  type CommandContext,
} from './cli.args';

const JOB_STATUSES: readonly JobStatus[] = ['pending', 'running', 'succeeded', 'failed'];

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
    name: 'media-node',
    summary: 'Runs a media node: mediasoup workers for the service at SVC_REDIS_URL, and nothing else.',
    details:
      'Needs SVC_REDIS_URL and SVC_NODE_SECRET; ports SVC_RTC_*, SVC_NODE_PORT. SIGTERM stops it (its rooms move); SIGUSR2 or --drain drains it.',
    options: { drain: { type: 'boolean', help: 'Ask the node SVC_NODE_ID to drain: no new rooms, exit once its rooms ended.' } },
    runAlone: (argv, io) => runMediaNodeCli(argv, io),
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
