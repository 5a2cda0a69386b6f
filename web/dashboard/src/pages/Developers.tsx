import { useState } from 'react';
import { api, type Page, type Session } from '../api';
import type { WebhookEndpoint as Endpoint } from '../api-types';
import { Badge, Button, Checkboxes, ConfirmButton, ErrorNotice, SecretOnce, Section, useAction, Table, useLoad, when } from '../ui';
import { Deliveries } from './Deliveries';

interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  organization_id: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  created_at: string;
}

const EXPIRIES = [
  { label: 'Never', days: 0 },
  { label: '30 days', days: 30 },
  { label: '90 days', days: 90 },
  { label: '1 year', days: 365 },
];

/** Settings > Developers: API keys and webhook endpoints. */
export function Developers({ session }: { session: Session }) {
  return (
    <>
      <div className="page-head">
        <h1>Developers</h1>
        <p className="links">
          <a href="/api/v1/public/docs" target="_blank" rel="noreferrer">
            API console
          </a>
          <a href="/api/v1/public/openapi.json" target="_blank" rel="noreferrer">
            OpenAPI document
          </a>
        </p>
      </div>
      <ApiKeys session={session} />
      <WebhookEndpoints session={session} />
    </>
  );
}

function orgName(session: Session, id: string | null): string {
  if (id === null) return 'All';
  return session.organizations.find((o) => o.id === id)?.name ?? id;
}

function ApiKeys({ session }: { session: Session }) {
  const keys = useLoad(() => api<{ data: ApiKey[] }>('GET', '/keys'), []);
  const [creating, setCreating] = useState(false);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(['meetings:read']);
  const [org, setOrg] = useState('');
  const [expiryDays, setExpiryDays] = useState(0);
  const [created, setCreated] = useState<string>();
  const create = useAction();

  return (
    <Section
      title="API keys"
      id="keys"
      actions={
        !creating && (
          <Button variant="primary" onClick={() => setCreating(true)}>
            Create key
          </Button>
        )
      }
    >
      {created && <SecretOnce title="Your new API key" label="API key" value={created} onDone={() => setCreated(undefined)} />}
      {creating && (
        <form
          className="form"
          aria-label="New API key"
          onSubmit={(e) => {
            e.preventDefault();
            void create.run(async () => {
              const expires_at = expiryDays ? new Date(Date.now() + expiryDays * 86_400_000).toISOString() : null;
              const res = await api<{ key: string }>('POST', '/keys', { name, scopes, organization_id: org || null, expires_at });
              setCreated(res.key);
              setCreating(false);
              setName('');
              keys.reload();
            });
          }}
        >
          <label>
            Name
            <input required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} placeholder="CI pipeline" />
          </label>
          <Checkboxes legend="Scopes" options={session.scopes} value={scopes} onChange={setScopes} />
          <div className="row">
            <label>
              Organization
              <select value={org} onChange={(e) => setOrg(e.target.value)}>
                <option value="">All my organizations</option>
                {session.organizations.map((o) => (
                  <option key={o.id} value={o.id}>
                    {o.name}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Expires
              <select value={expiryDays} onChange={(e) => setExpiryDays(Number(e.target.value))}>
                {EXPIRIES.map((x) => (
                  <option key={x.days} value={x.days}>
                    {x.label}
                  </option>
                ))}
              </select>
            </label>
          </div>
          <ErrorNotice error={create.error} />
          <div className="actions">
            <Button onClick={() => setCreating(false)}>Cancel</Button>
            <Button type="submit" variant="primary" disabled={create.pending}>
              Create key
            </Button>
          </div>
        </form>
      )}
      <ErrorNotice error={keys.error} />
      {keys.data && keys.data.data.length === 0 && <p className="empty">No API keys yet.</p>}
      {keys.data && keys.data.data.length > 0 && (
        <Table headers={['Name', 'Key', 'Scopes', 'Organization', 'Last used', 'Status', <span className="sr-only">Actions</span>]}>
          {keys.data.data.map((k) => (
            <tr key={k.id} data-key-id={k.id}>
              <td>{k.name}</td>
              <td>
                <code>{k.prefix}</code>
              </td>
              <td className="scopes">{k.scopes.length === session.scopes.length ? 'all' : k.scopes.join(', ') || 'none'}</td>
              <td>{orgName(session, k.organization_id)}</td>
              <td>{k.last_used_at ? when(k.last_used_at) : 'Never'}</td>
              <td>
                {k.revoked_at ? (
                  <Badge tone="muted">Revoked</Badge>
                ) : k.expires_at && Date.parse(k.expires_at) <= Date.now() ? (
                  <Badge tone="muted">Expired</Badge>
                ) : (
                  <Badge tone="ok">{k.expires_at ? `Active until ${when(k.expires_at)}` : 'Active'}</Badge>
                )}
              </td>
              <td>
                <div className="row-actions">
                  {!k.revoked_at && (
                    <ConfirmButton
                      label="Revoke"
                      title={`Revoke “${k.name}”?`}
                      message={
                        <p>
                          Requests with <code>{k.prefix}</code> are refused at once. This cannot be undone.
                        </p>
                      }
                      confirmLabel="Revoke key"
                      onConfirm={async () => {
                        await api('POST', `/keys/${k.id}/revoke`);
                        keys.reload();
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
  );
}

function WebhookEndpoints({ session }: { session: Session }) {
  const endpoints = useLoad(() => api<Page<Endpoint>>('GET', '/v1/webhook-endpoints?limit=100'), []);
  const [creating, setCreating] = useState(false);
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<string[]>([]);
  const [secret, setSecret] = useState<{ title: string; value: string }>();
  const [open, setOpen] = useState<string>();
  const create = useAction();
  const change = useAction();

  return (
    <Section
      title="Webhook endpoints"
      id="webhooks"
      actions={
        !creating && (
          <Button variant="primary" onClick={() => setCreating(true)}>
            Add endpoint
          </Button>
        )
      }
    >
      {secret && <SecretOnce title={secret.title} label="Signing secret" value={secret.value} onDone={() => setSecret(undefined)} />}
      {creating && (
        <form
          className="form"
          aria-label="New webhook endpoint"
          onSubmit={(e) => {
            e.preventDefault();
            void create.run(async () => {
              const ep = await api<Endpoint>('POST', '/v1/webhook-endpoints', { url, description, events });
              setSecret({ title: 'The endpoint’s signing secret', value: ep.secret! });
              setCreating(false);
              setUrl('');
              setDescription('');
              setEvents([]);
              endpoints.reload();
            });
          }}
        >
          <label>
            URL
            <input
              type="url"
              required
              value={url}
              onChange={(e) => setUrl(e.target.value)}
              placeholder="https://example.com/webhooks/svc"
            />
          </label>
          <label>
            Description
            <input maxLength={500} value={description} onChange={(e) => setDescription(e.target.value)} />
          </label>
          <Checkboxes legend="Events" options={session.event_types} value={events} onChange={setEvents} />
          <ErrorNotice error={create.error} />
          <div className="actions">
            <Button onClick={() => setCreating(false)}>Cancel</Button>
            <Button type="submit" variant="primary" disabled={create.pending || events.length === 0}>
              Add endpoint
            </Button>
          </div>
        </form>
      )}
      <ErrorNotice error={endpoints.error ?? change.error} />
      {endpoints.data && endpoints.data.data.length === 0 && <p className="empty">No webhook endpoints yet.</p>}
      <ul className="endpoint-list">
        {endpoints.data?.data.map((ep) => (
          <li key={ep.id} className="endpoint" data-endpoint-id={ep.id}>
            <div className="endpoint-head">
              <div>
                <code className="url">{ep.url}</code>
                {ep.description && <p className="muted">{ep.description}</p>}
                <p className="muted">{ep.events.join(', ')}</p>
              </div>
              <div className="endpoint-state">
                {ep.enabled ? (
                  <Badge tone="ok">Enabled</Badge>
                ) : (
                  <Badge tone="bad">Disabled{ep.disabled_reason ? `: ${ep.disabled_reason}` : ''}</Badge>
                )}
              </div>
            </div>
            <div className="actions">
              <Button
                disabled={change.pending}
                onClick={() =>
                  change.run(async () => {
                    await api('PATCH', `/v1/webhook-endpoints/${ep.id}`, { enabled: !ep.enabled });
                    endpoints.reload();
                  })
                }
              >
                {ep.enabled ? 'Disable' : 'Enable'}
              </Button>
              <ConfirmButton
                label="Rotate secret"
                variant="secondary"
                title="Rotate the signing secret?"
                message={<p>A new secret signs deliveries from now on; the old one keeps signing beside it for 24 hours.</p>}
                confirmLabel="Rotate"
                onConfirm={async () => {
                  const rotated = await api<Endpoint>('POST', `/v1/webhook-endpoints/${ep.id}/rotate-secret`);
                  setSecret({ title: 'The endpoint’s new signing secret', value: rotated.secret! });
                }}
              />
              <Button aria-expanded={open === ep.id} onClick={() => setOpen(open === ep.id ? undefined : ep.id)}>
                {open === ep.id ? 'Hide deliveries' : 'Deliveries'}
              </Button>
              <ConfirmButton
                label="Delete"
                title="Delete this endpoint?"
                message={<p>The endpoint and its delivery history are deleted.</p>}
                confirmLabel="Delete endpoint"
                onConfirm={async () => {
                  await api('DELETE', `/v1/webhook-endpoints/${ep.id}`);
                  endpoints.reload();
                }}
              />
            </div>
            {open === ep.id && <Deliveries path={`/v1/webhook-endpoints/${ep.id}/deliveries`} redeliver />}
          </li>
        ))}
      </ul>
    </Section>
  );
}
