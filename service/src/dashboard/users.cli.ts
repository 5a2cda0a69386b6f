import { isRole, ROLES, type Role } from '../identity/roles';
import { AppError } from '../shared/errors';
import type { TeamService } from './team.service';

/** What a `svc users` command gets from the CLI (a subset of its command context). */
interface UsersCommandContext {
  services: { team: TeamService };
  io: { out: (text: string) => void; err: (text: string) => void };
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** One command, in the shape of the CLI's command table. */
interface UsersCommand {
  name: string;
  args?: string;
  summary: string;
  details?: string;
  options?: Record<string, { type: 'string' | 'boolean'; value?: string; required?: boolean; help: string }>;
  run: (ctx: UsersCommandContext) => number;
}

const ROLE_HELP = `${ROLES.join(', ')}: owners and admins manage keys, webhooks, integrations, the project and the team; members see and host their organization’s meetings.`;

function emailArgument(positionals: string[]): string {
  const email = positionals[0];
  if (!email) throw AppError.invalid([{ param: 'EMAIL', message: 'is required (see svc users list)' }]);
  return email;
}

function roleOption(raw: string | boolean | undefined, fallback?: Role): Role {
  if (raw === undefined && fallback) return fallback;
  if (typeof raw !== 'string' || !isRole(raw)) throw AppError.invalid([{ param: '--role', message: `must be one of ${ROLES.join(', ')}` }]);
  return raw;
}

/** The `svc users` commands about teammates, in the shape of the CLI's command table; the CLI acts with an owner's rights. */
export const USERS_COMMANDS: UsersCommand[] = [
  {
    name: 'users list',
    summary: 'Lists the team (email, role, organizations) and the invitations still pending.',
    options: { json: { type: 'boolean', help: 'Print JSON ({users, invites}) instead of one line per item.' } },
    run: ({ services, io, values }) => {
      const users = services.team.listMembers();
      const invites = services.team.listInvites();
      if (values.json) {
        io.out(`${JSON.stringify({ users, invites }, null, 2)}\n`);
        return 0;
      }
      for (const u of users) io.out(`${u.id}  ${u.email}  ${u.role}  ${u.name}  [${u.organizations.map((o) => o.name).join(', ')}]\n`);
      for (const i of invites) io.out(`${i.id}  ${i.email}  ${i.role}  invited, until ${i.expires_at}  [${i.organization.name}]\n`);
      return 0;
    },
  },
  {
    name: 'users invite',
    args: 'EMAIL',
    summary: 'Invites a teammate: prints a one-time link (valid 7 days), and nothing else on stdout.',
    details:
      'Send the link to them; opening it, they choose a name and password and are signed in. A new invitation for the same email replaces the pending one.',
    options: {
      role: { type: 'string', value: 'ROLE', help: `${ROLE_HELP} Default: member.` },
      org: { type: 'string', value: 'ORG_ID', help: 'The organization they join (default: the first one).' },
    },
    run: ({ services, io, values, positionals }) => {
      const invite = services.team.invite(null, {
        email: emailArgument(positionals),
        role: roleOption(values.role, 'member'),
        organizationId: typeof values.org === 'string' ? values.org : undefined,
      });
      io.out(`${invite.url}\n`);
      io.err(`invited ${invite.email} as ${invite.role} to ${invite.organization.name}; the link works once, until ${invite.expires_at}\n`);
      return 0;
    },
  },
  {
    name: 'users set-role',
    args: 'EMAIL',
    summary: 'Changes a teammate’s role (the last owner stays one).',
    options: { role: { type: 'string', value: 'ROLE', required: true, help: ROLE_HELP } },
    run: ({ services, io, values, positionals }) => {
      const user = services.team.findByEmail(emailArgument(positionals));
      const changed = services.team.changeRole(null, user.id, roleOption(values.role));
      io.err(`${changed.email} is now ${changed.role}\n`);
      return 0;
    },
  },
  {
    name: 'users remove',
    args: 'EMAIL',
    summary: 'Removes a teammate: their dashboard sessions end and their API keys are revoked at once.',
    run: ({ services, io, positionals }) => {
      const user = services.team.findByEmail(emailArgument(positionals));
      services.team.remove(null, user.id);
      io.err(`removed ${user.email}\n`);
      return 0;
    },
  },
];
