import { useState } from 'react';
import { api, type Page, type Session } from '../api';
import { Badge, Button, Checkboxes, ConfirmButton, ErrorNotice, Section, useAction, useLoad, when } from '../ui';
import { Deliveries } from './Deliveries';

interface Integration {
  id: string;
  kind: 'slack' | 'teams' | 'project';
  events: string[];
  channel: string | null;
  secret_hint: string;
  enabled: boolean;
  status: 'ok' | 'failing' | 'disabled';
  disabled_reason: string | null;
  last_error: string | null;
  last_delivered_at: string | null;
}

const KIND_LABEL = { slack: 'Slack', teams: 'Microsoft Teams', project: 'Project database' } as const;

/** Settings > Integrations: Slack and Teams notifications (and the project database), with status, a test message and deliveries. */
export function Integrations({ session }: { session: Session }) {
  const list = useLoad(() => api<Page<Integration>>('GET', '/v1/integrations?limit=100'), []);
  const [adding, setAdding] = useState<'slack' | 'teams'>();
  const [open, setOpen] = useState<string>();
  const [tested, setTested] = useState<Record<string, string>>({});
  const change = useAction();
  return (
    <>
      <div className="page-head">
        <h1>Integrations</h1>
        <div className="actions">
          <Button variant="primary" onClick={() => setAdding('slack')}>
            Add Slack
          </Button>
          <Button variant="primary" onClick={() => setAdding('teams')}>
            Add Teams
          </Button>
        </div>
      </div>
      {adding && (
        <AddIntegration
          kind={adding}
          session={session}
          onDone={() => {
            setAdding(undefined);
            list.reload();
          }}
        />
      )}
      <Section title="Channel notifications">
        <ErrorNotice error={list.error ?? change.error} />
        {list.data?.data.length === 0 && (
          <p className="empty">No integrations yet: add Slack or Teams to post meeting events to a channel.</p>
        )}
        <ul className="endpoint-list">
          {list.data?.data.map((i) => (
            <li key={i.id} className="endpoint" data-integration-id={i.id}>
              <div className="endpoint-head">
                <div>
                  <strong>{KIND_LABEL[i.kind]}</strong> {i.channel && <code>{i.channel}</code>}{' '}
                  <span className="muted">{i.secret_hint}</span>
                  <p className="muted">{i.events.join(', ')}</p>
                  <p className="muted">Last delivered: {when(i.last_delivered_at)}</p>
                </div>
                <div>
                  {i.status === 'ok' && <Badge tone="ok">OK</Badge>}
                  {i.status === 'failing' && <Badge tone="warn">Failing: {i.last_error}</Badge>}
                  {i.status === 'disabled' && <Badge tone="bad">Disabled: {i.disabled_reason}</Badge>}
                </div>
              </div>
              <div className="actions">
                {i.kind !== 'project' && (
                  <Button
                    disabled={change.pending}
                    onClick={() =>
                      change.run(async () => {
                        const r = await api<{ ok: boolean; error: string | null; duration_ms: number }>(
                          'POST',
                          `/integrations/${i.id}/test`,
                        );
                        setTested({
                          ...tested,
                          [i.id]: r.ok ? `Test message sent (${r.duration_ms} ms)` : `Test message failed: ${r.error}`,
                        });
                      })
                    }
                  >
                    Send test message
                  </Button>
                )}
                <Button
                  disabled={change.pending}
                  onClick={() =>
                    change.run(async () => {
                      await api('PATCH', `/v1/integrations/${i.id}`, { enabled: !i.enabled });
                      list.reload();
                    })
                  }
                >
                  {i.enabled ? 'Disable' : 'Enable'}
                </Button>
                <Button aria-expanded={open === i.id} onClick={() => setOpen(open === i.id ? undefined : i.id)}>
                  {open === i.id ? 'Hide deliveries' : 'Deliveries'}
                </Button>
                <ConfirmButton
                  label="Remove"
                  title="Remove this integration?"
                  message={<p>Notifications stop and its delivery history is deleted.</p>}
                  confirmLabel="Remove integration"
                  onConfirm={async () => {
                    await api('DELETE', `/v1/integrations/${i.id}`);
                    list.reload();
                  }}
                />
                {tested[i.id] && <span role="status">{tested[i.id]}</span>}
              </div>
              {open === i.id && <Deliveries path={`/v1/integrations/${i.id}/deliveries`} />}
            </li>
          ))}
        </ul>
      </Section>
    </>
  );
}

function AddIntegration({ kind, session, onDone }: { kind: 'slack' | 'teams'; session: Session; onDone: () => void }) {
  const [token, setToken] = useState('');
  const [channel, setChannel] = useState('');
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(['meeting.started', 'recording.ready']);
  const add = useAction();
  return (
    <Section title={kind === 'slack' ? 'Add Slack' : 'Add Microsoft Teams'}>
      <form
        className="form"
        aria-label={kind === 'slack' ? 'New Slack integration' : 'New Teams integration'}
        onSubmit={(e) => {
          e.preventDefault();
          void add.run(async () => {
            const body = kind === 'slack' ? { kind, bot_token: token, channel, events } : { kind, webhook_url: url, events };
            await api('POST', '/v1/integrations', body);
            onDone();
          });
        }}
      >
        {kind === 'slack' ? (
          <div className="row">
            <label>
              Bot token
              <input
                required
                type="password"
                autoComplete="off"
                value={token}
                onChange={(e) => setToken(e.target.value)}
                placeholder="xoxb-…"
              />
            </label>
            <label>
              Channel ID
              <input required value={channel} onChange={(e) => setChannel(e.target.value)} placeholder="C0123ABC" />
            </label>
          </div>
        ) : (
          <label>
            Workflow URL
            <input required type="url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://…" />
          </label>
        )}
        <Checkboxes legend="Events" options={session.event_types} value={events} onChange={setEvents} />
        <ErrorNotice error={add.error} />
        <div className="actions">
          <Button onClick={onDone}>Cancel</Button>
          <Button type="submit" variant="primary" disabled={add.pending || events.length === 0}>
            Add
          </Button>
        </div>
      </form>
    </Section>
  );
}
