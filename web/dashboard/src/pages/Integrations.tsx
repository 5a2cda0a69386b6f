import { useEffect, useState } from 'react';
import { api, type Page, type Session } from '../api';
import type { Integration } from '../api-types';
import { navigate, useLocation } from '../router';
import { Badge, Button, Checkboxes, ConfirmButton, ErrorNotice, Section, useAction, useLoad, when } from '../ui';
import { Deliveries } from './Deliveries';

const KIND_LABEL = { slack: 'Slack', teams: 'Microsoft Teams', project: 'Project database' } as const;

/** Settings > Integrations: Slack and Teams notifications (and the project database), with status, a test message and deliveries. */
export function Integrations({ session }: { session: Session }) {
  const list = useLoad(() => api<Page<Integration>>('GET', '/v1/integrations?limit=100'), []);
  const { query } = useLocation();
  // Where Slack's install sent the browser back: the outcome, shown once (a reload drops the query).
  const [slackOutcome] = useState(() => ({ installed: query.get('slack_installed'), error: query.get('slack_error') }));
  useEffect(() => {
    if (query.has('slack_installed') || query.has('slack_error')) navigate('/settings/integrations', { replace: true });
  }, [query]);
  const [adding, setAdding] = useState<'slack' | 'slack-app' | 'teams'>();
  const [open, setOpen] = useState<string>();
  const [tested, setTested] = useState<Record<string, string>>({});
  const change = useAction();
  return (
    <>
      <div className="page-head">
        <h1>Integrations</h1>
        <div className="actions">
          {session.slack_install_available && (
            <Button variant="primary" onClick={() => setAdding('slack-app')}>
              Add to Slack
            </Button>
          )}
          <Button variant="primary" onClick={() => setAdding('slack')}>
            Add Slack (bot token)
          </Button>
          <Button variant="primary" onClick={() => setAdding('teams')}>
            Add Teams
          </Button>
        </div>
      </div>
      {slackOutcome.installed && (
        <p className="notice notice-ok" role="status">
          Slack app installed.
        </p>
      )}
      <ErrorNotice error={slackOutcome.error ?? undefined} />
      {adding === 'slack-app' && <AddToSlack session={session} onCancel={() => setAdding(undefined)} />}
      {(adding === 'slack' || adding === 'teams') && (
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
              {i.kind === 'slack' && !i.channel && <ChooseChannel integrationId={i.id} onDone={list.reload} />}
              {open === i.id && <Deliveries path={`/v1/integrations/${i.id}/deliveries`} />}
            </li>
          ))}
        </ul>
      </Section>
    </>
  );
}

/** "Add to Slack": pick the events, then Slack's consent page installs the operator's Slack app and picks the channel. */
function AddToSlack({ session, onCancel }: { session: Session; onCancel: () => void }) {
  const [events, setEvents] = useState<string[]>(['meeting.started', 'recording.ready']);
  const start = useAction();
  return (
    <Section title="Add to Slack">
      <form
        className="form"
        aria-label="Add to Slack"
        onSubmit={(e) => {
          e.preventDefault();
          void start.run(async () => {
            const { authorize_url } = await api<{ authorize_url: string }>('POST', '/integrations/slack/install', { events });
            window.location.assign(authorize_url);
          });
        }}
      >
        <p className="hint">Slack asks you to allow svc’s app in your workspace and to pick the channel it posts to.</p>
        <Checkboxes legend="Events" options={session.event_types} value={events} onChange={setEvents} />
        <ErrorNotice error={start.error} />
        <div className="actions">
          <Button onClick={onCancel}>Cancel</Button>
          <Button type="submit" variant="primary" disabled={start.pending || events.length === 0}>
            Continue to Slack
          </Button>
        </div>
      </form>
    </Section>
  );
}

/** The channel of a Slack app installed without one; setting it starts the notifications. */
function ChooseChannel({ integrationId, onDone }: { integrationId: string; onDone: () => void }) {
  const [channel, setChannel] = useState('');
  const save = useAction();
  return (
    <form
      className="form"
      aria-label="Choose the Slack channel"
      onSubmit={(e) => {
        e.preventDefault();
        void save.run(async () => {
          await api('PATCH', `/v1/integrations/${integrationId}`, { channel });
          onDone();
        });
      }}
    >
      <div className="row">
        <label>
          Channel ID
          <input required value={channel} onChange={(e) => setChannel(e.target.value)} placeholder="C0123ABC" />
        </label>
      </div>
      <ErrorNotice error={save.error} />
      <Button type="submit" variant="primary" disabled={save.pending}>
        Save channel
      </Button>
    </form>
  );
}

function AddIntegration({ kind, session, onDone }: { kind: 'slack' | 'teams'; session: Session; onDone: () => void }) {
  const [token, setToken] = useState('');
  const [channel, setChannel] = useState('');
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(['meeting.started', 'recording.ready']);
  const add = useAction();
  return (
    <Section title={kind === 'slack' ? 'Add Slack with a bot token' : 'Add Microsoft Teams'}>
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
