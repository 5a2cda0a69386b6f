import { useState } from 'react';
import { api, type Role, type Session } from '../api';
import { Badge, Button, ConfirmButton, CopyField, ErrorNotice, Section, Table, useAction, useLoad, when } from '../ui';

interface Member {
  id: string;
  name: string;
  email: string;
  role: Role;
  organizations: { id: string; name: string }[];
  created_at: string;
}

interface Invite {
  id: string;
  email: string;
  role: Role;
  organization: { id: string; name: string };
  invited_by: string;
  created_at: string;
  expires_at: string;
}

const ROLE_LABEL: Record<Role, string> = { owner: 'Owner', admin: 'Admin', member: 'Member' };

/** What each role may do, as the page explains it. */
export const ROLE_HELP: Record<Role, string> = {
  owner: 'Everything, including making and removing owners.',
  admin: 'Manages API keys, webhooks, integrations, the project database and teammates (except owners).',
  member: 'Sees and hosts the meetings of their organization.',
};

/** The roles `session`'s user may hand out: only owners grant the owner role. */
function grantable(session: Session): Role[] {
  return session.user.role === 'owner' ? ['owner', 'admin', 'member'] : ['admin', 'member'];
}

/** Settings > Team: the teammates with their roles, invitations by one-time link, role changes and removal. */
export function Team({ session }: { session: Session }) {
  const members = useLoad(() => api<{ data: Member[] }>('GET', '/users'), []);
  const invites = useLoad(() => api<{ data: Invite[] }>('GET', '/invites'), []);
  const change = useAction();
  const owners = members.data?.data.filter((m) => m.role === 'owner').length ?? 0;
  const mayTouch = (role: Role) => role !== 'owner' || session.user.role === 'owner';

  return (
    <>
      <div className="page-head">
        <h1>Team</h1>
      </div>
      <InviteForm session={session} onInvited={invites.reload} />
      <Section title="Teammates" id="members">
        <ErrorNotice error={members.error ?? change.error} />
        {members.data && (
          <Table headers={['Name', 'Email', 'Role', 'Organization', 'Joined', <span className="sr-only">Actions</span>]}>
            {members.data.data.map((m) => {
              const self = m.id === session.user.id;
              const lastOwner = m.role === 'owner' && owners <= 1;
              return (
                <tr key={m.id} data-user-email={m.email}>
                  <td>
                    <span>
                      {m.name}
                      {self && <span className="muted"> (you)</span>}
                    </span>
                  </td>
                  <td className="team-email">{m.email}</td>
                  <td>
                    {mayTouch(m.role) && !lastOwner ? (
                      <select
                        aria-label={`Role of ${m.email}`}
                        value={m.role}
                        disabled={change.pending}
                        onChange={(e) =>
                          change.run(async () => {
                            await api('PATCH', `/users/${m.id}`, { role: e.target.value });
                            members.reload();
                          })
                        }
                      >
                        {grantable(session).map((r) => (
                          <option key={r} value={r}>
                            {ROLE_LABEL[r]}
                          </option>
                        ))}
                      </select>
                    ) : (
                      <Badge tone={m.role === 'member' ? 'muted' : 'info'}>{ROLE_LABEL[m.role]}</Badge>
                    )}
                  </td>
                  <td>{m.organizations.map((o) => o.name).join(', ') || '—'}</td>
                  <td>{when(m.created_at)}</td>
                  <td>
                    <div className="row-actions">
                      {mayTouch(m.role) && !lastOwner && (
                        <ConfirmButton
                          label={self ? 'Leave' : 'Remove'}
                          title={self ? 'Leave the team?' : `Remove ${m.email}?`}
                          message={
                            <p>
                              {self ? 'You are' : `${m.name} is`} signed out everywhere at once, and every API key {self ? 'you' : 'they'}{' '}
                              made stops working. An invitation can bring {self ? 'you' : 'them'} back.
                            </p>
                          }
                          confirmLabel={self ? 'Leave' : 'Remove'}
                          onConfirm={async () => {
                            await api('DELETE', `/users/${m.id}`);
                            if (self) location.assign('/sign-in');
                            else members.reload();
                          }}
                        />
                      )}
                      {lastOwner && <span className="muted">The last owner</span>}
                    </div>
                  </td>
                </tr>
              );
            })}
          </Table>
        )}
      </Section>
      <Section title="Pending invitations" id="invites">
        <ErrorNotice error={invites.error} />
        {invites.data && invites.data.data.length === 0 && <p className="empty">No pending invitations.</p>}
        {invites.data && invites.data.data.length > 0 && (
          <Table headers={['Email', 'Role', 'Organization', 'Invited by', 'Expires', <span className="sr-only">Actions</span>]}>
            {invites.data.data.map((i) => (
              <tr key={i.id} data-invite-email={i.email}>
                <td className="team-email">{i.email}</td>
                <td>{ROLE_LABEL[i.role]}</td>
                <td>{i.organization.name}</td>
                <td className="team-email">{i.invited_by}</td>
                <td>{when(i.expires_at)}</td>
                <td>
                  <div className="row-actions">
                    {mayTouch(i.role) && (
                      <ConfirmButton
                        label="Revoke"
                        title={`Revoke the invitation for ${i.email}?`}
                        message={<p>The link stops working at once.</p>}
                        confirmLabel="Revoke invitation"
                        onConfirm={async () => {
                          await api('DELETE', `/invites/${i.id}`);
                          invites.reload();
                        }}
                      />
                    )}
                  </div>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Section>
      <Section title="Roles" id="roles">
        <dl className="role-help">
          {(['owner', 'admin', 'member'] as const).map((r) => (
            <div key={r}>
              <dt>{ROLE_LABEL[r]}</dt>
              <dd>{ROLE_HELP[r]}</dd>
            </div>
          ))}
        </dl>
      </Section>
    </>
  );
}

function InviteForm({ session, onInvited }: { session: Session; onInvited: () => void }) {
  const [open, setOpen] = useState(false);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [org, setOrg] = useState(session.organizations[0]?.id ?? '');
  const [created, setCreated] = useState<{ email: string; url: string; expires_at: string }>();
  const invite = useAction();
  return (
    <Section
      title="Invite a teammate"
      id="invite"
      actions={
        !open &&
        !created && (
          <Button variant="primary" onClick={() => setOpen(true)}>
            Invite
          </Button>
        )
      }
    >
      {created && (
        <div className="secret-once" role="status">
          <h3>Invitation link for {created.email}</h3>
          <p className="warning">Send this link to them. It works once, until {when(created.expires_at)}, and is shown only this once.</p>
          <CopyField label="Invitation link" value={created.url} />
          <Button variant="primary" onClick={() => setCreated(undefined)}>
            I have copied it
          </Button>
        </div>
      )}
      {!open && !created && (
        <p className="muted">Invite someone by email: they get a one-time link, valid 7 days, to choose a name and password.</p>
      )}
      {open && (
        <form
          className="form"
          aria-label="Invite a teammate"
          onSubmit={(e) => {
            e.preventDefault();
            void invite.run(async () => {
              const res = await api<{ email: string; url: string; expires_at: string }>('POST', '/invites', {
                email,
                role,
                organization_id: org || undefined,
              });
              setCreated(res);
              setOpen(false);
              setEmail('');
              setRole('member');
              onInvited();
            });
          }}
        >
          <div className="row">
            <label>
              Email
              <input
                type="email"
                required
                maxLength={320}
                value={email}
                onChange={(e) => setEmail(e.target.value)}
                placeholder="ada@example.com"
              />
            </label>
            <label>
              Role
              <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
                {grantable(session).map((r) => (
                  <option key={r} value={r}>
                    {ROLE_LABEL[r]}
                  </option>
                ))}
              </select>
            </label>
            {session.organizations.length > 1 && (
              <label>
                Organization
                <select value={org} onChange={(e) => setOrg(e.target.value)}>
                  {session.organizations.map((o) => (
                    <option key={o.id} value={o.id}>
                      {o.name}
                    </option>
                  ))}
                </select>
              </label>
            )}
          </div>
          <p className="hint">{ROLE_HELP[role]}</p>
          <ErrorNotice error={invite.error} />
          <div className="actions">
            <Button onClick={() => setOpen(false)}>Cancel</Button>
            <Button type="submit" variant="primary" disabled={invite.pending}>
              Create invitation link
            </Button>
          </div>
        </form>
      )}
    </Section>
  );
}
