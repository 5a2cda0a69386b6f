import { useState } from 'react';
import { api, ApiError, type Page, type Session } from '../api';
import { Link } from '../router';
import { Badge, Button, ConfirmButton, copyText, ErrorNotice, Section, useAction, Table, useLoad, when } from '../ui';
import { STATUS_TONE, type Meeting } from './meeting-types';

interface Participant {
  id: string;
  name: string;
  role: 'host' | 'guest';
  joined_at: string;
  left_at: string | null;
}

interface Recording {
  id: string;
  kind: 'video' | 'audio';
  status: 'processing' | 'ready' | 'failed';
  duration_seconds: number | null;
  size_bytes: number | null;
  created_at: string;
  failure_reason: string | null;
}

interface Registration {
  id: string;
  email: string;
  name: string;
  created_at: string;
}

interface Transcript {
  status: string;
  language: string;
  segments: { start: number; speaker?: string | null; text: string }[];
  text: string;
}

interface Summary {
  tldr: string;
  decisions: { text: string }[];
  action_items: { text: string; owner: string | null; due: string | null }[];
  generator: string;
}

/** A value that may not exist yet: undefined while the API answers 404. */
async function optional<T>(load: Promise<T>): Promise<T | null> {
  try {
    return await load;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

/** A meeting's page: its facts and actions, participants, recordings, transcript, summary and registrations. */
export function MeetingPage({ id, session }: { id: string; session: Session }) {
  const meeting = useLoad(() => api<Meeting>('GET', `/v1/meetings/${encodeURIComponent(id)}`), [id]);
  const m = meeting.data;
  if (meeting.error) return <ErrorNotice error={meeting.error} />;
  if (!m) return <p className="loading">Loading…</p>;
  return (
    <>
      <p>
        <Link href="/meetings">← Meetings</Link>
      </p>
      <div className="page-head">
        <h1>{m.title}</h1>
        <Badge tone={STATUS_TONE[m.status]}>{m.status}</Badge>
      </div>
      <MeetingActions meeting={m} onChanged={meeting.reload} />
      <div className="grid-2">
        <Section title="Details">
          <dl className="facts">
            <dt>Kind</dt>
            <dd>{m.kind === 'webinar' ? `Webinar, slug ${m.slug}` : 'Meeting'}</dd>
            <dt>Code</dt>
            <dd>
              <code>{m.code}</code>
            </dd>
            <dt>Starts</dt>
            <dd>
              {when(m.scheduled_at)} <span className="muted">({m.scheduled_at})</span>
            </dd>
            <dt>Duration</dt>
            <dd>{m.duration_minutes} minutes</dd>
            <dt>Started</dt>
            <dd>{when(m.started_at)}</dd>
            <dt>Ended</dt>
            <dd>{when(m.ended_at)}</dd>
            <dt>Join link</dt>
            <dd>
              <code>{m.join_url}</code>
            </dd>
          </dl>
        </Section>
        <Participants meetingId={m.id} />
      </div>
      {(m.status === 'scheduled' || m.status === 'live') && <Embedding meeting={m} baseUrl={session.base_url} />}
      <Recordings meetingId={m.id} />
      <div className="grid-2">
        <TranscriptView meetingId={m.id} />
        <SummaryView meetingId={m.id} />
      </div>
      {m.kind === 'webinar' && <Registrations meetingId={m.id} />}
    </>
  );
}

function MeetingActions({ meeting: m, onChanged }: { meeting: Meeting; onChanged: () => void }) {
  const [copied, setCopied] = useState(false);
  const host = useAction();
  return (
    <div className="card">
      <div className="actions">
        <Button
          onClick={async () => {
            await copyText(m.join_url);
            setCopied(true);
          }}
        >
          {copied ? 'Join link copied' : 'Copy join link'}
        </Button>
        {(m.status === 'scheduled' || m.status === 'live') && (
          <Button
            variant="primary"
            disabled={host.pending}
            onClick={() =>
              host.run(async () => {
                const popup = window.open('', '_blank');
                const link = await api<{ url: string }>('POST', `/v1/meetings/${m.id}/host-links`, {});
                if (popup) popup.location.href = link.url;
                else location.href = link.url;
              })
            }
          >
            Join as host
          </Button>
        )}
        {m.status === 'live' && (
          <ConfirmButton
            label="End meeting"
            title="End this meeting for everyone?"
            message={<p>Everyone in the room is disconnected and the meeting is marked ended.</p>}
            confirmLabel="End meeting"
            onConfirm={async () => {
              await api('POST', `/meetings/${m.id}/end`);
              onChanged();
            }}
          />
        )}
        {m.status === 'scheduled' && (
          <ConfirmButton
            label="Cancel meeting"
            title="Cancel this meeting?"
            message={<p>The meeting stays listed as cancelled; its join link stops working.</p>}
            confirmLabel="Cancel meeting"
            onConfirm={async () => {
              await api('DELETE', `/v1/meetings/${m.id}`);
              onChanged();
            }}
          />
        )}
      </div>
      <ErrorNotice error={host.error} />
    </div>
  );
}

/** The parent origins allowed to frame the meeting's room, edited as one entry per line, and a snippet to embed it. */
function Embedding({ meeting: m, baseUrl }: { meeting: Meeting; baseUrl: string }) {
  const loaded = useLoad(() => api<{ origins: string[] }>('GET', `/v1/meetings/${m.id}/embed-origins`), [m.id]);
  const [draft, setDraft] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const save = useAction();
  const stored = loaded.data?.origins ?? [];
  const text = draft ?? stored.join('\n');
  const entries = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const snippet = [
    `<div id="meeting" style="height: 640px"></div>`,
    `<script src="${baseUrl}/embed/svc-embed.js"></script>`,
    `<script>`,
    `  new SvcEmbed.SvcMeeting({ container: '#meeting', meetingCode: '${m.code}' });`,
    `</script>`,
  ].join('\n');
  return (
    <Section title="Embedding" id="embedding">
      <ErrorNotice error={loaded.error} />
      <form
        className="form"
        onSubmit={(event) => {
          event.preventDefault();
          setSaved(false);
          void save.run(async () => {
            try {
              const result = await api<{ origins: string[] }>('PUT', `/v1/meetings/${m.id}/embed-origins`, { origins: entries });
              setDraft(result.origins.join('\n'));
              setSaved(true);
              loaded.reload();
            } catch (err) {
              // Name the entry, not its index: "origins[1] must use https://" -> "http://x.example.com: must use https://".
              if (err instanceof ApiError)
                throw new ApiError(
                  err.status,
                  err.code,
                  err.detail.replace(/origins\[(\d+)\]/g, (_, i) => `${entries[Number(i)]}:`),
                );
              throw err;
            }
          });
        }}
      >
        <label htmlFor="embed-origins">Sites allowed to embed this meeting, one origin per line</label>
        <textarea
          id="embed-origins"
          rows={3}
          spellCheck={false}
          placeholder={'https://app.example.com\nhttps://*.example.org'}
          value={text}
          onChange={(event) => {
            setDraft(event.target.value);
            setSaved(false);
          }}
        />
        <p className="hint">
          <code>https://host[:port]</code> or <code>https://*.host</code> (its subdomains, not the host itself); <code>http://</code> only
          for localhost. With no entry, no site can show the room.
        </p>
        <div className="actions">
          <Button type="submit" variant="primary" disabled={save.pending}>
            Save allowed sites
          </Button>
          {saved && (
            <span role="status" className="muted">
              Saved
            </span>
          )}
        </div>
        <ErrorNotice error={save.error} />
      </form>
      {stored.length > 0 && (
        <details>
          <summary>Embed code</summary>
          <pre className="snippet">{snippet}</pre>
          <p className="hint">
            For named guests, mint a token on your server (<code>POST /api/v1/public/embed/tokens</code>) and pass it as{' '}
            <code>joinToken</code>.
          </p>
        </details>
      )}
    </Section>
  );
}

function Participants({ meetingId }: { meetingId: string }) {
  const list = useLoad(() => api<Page<Participant>>('GET', `/v1/meetings/${meetingId}/participants?limit=100`), [meetingId]);
  return (
    <Section title="Participants">
      <ErrorNotice error={list.error} />
      {list.data?.data.length === 0 && <p className="empty">Nobody has joined yet.</p>}
      {list.data && list.data.data.length > 0 && (
        <Table headers={['Name', 'Role', 'Joined', 'Left']}>
          {list.data.data.map((p) => (
            <tr key={p.id}>
              <td>{p.name}</td>
              <td>{p.role}</td>
              <td>{when(p.joined_at)}</td>
              <td>{p.left_at ? when(p.left_at) : <Badge tone="ok">in the room</Badge>}</td>
            </tr>
          ))}
        </Table>
      )}
    </Section>
  );
}

function Recordings({ meetingId }: { meetingId: string }) {
  const list = useLoad(() => api<Page<Recording>>('GET', `/v1/meetings/${meetingId}/recordings?limit=100`), [meetingId]);
  return (
    <Section title="Recordings">
      <ErrorNotice error={list.error} />
      {list.data?.data.length === 0 && <p className="empty">No recordings.</p>}
      <ul className="endpoint-list">
        {list.data?.data.map((r) => {
          const file = `/dashboard/api/v1/recordings/${r.id}/download`;
          return (
            <li key={r.id} className="endpoint">
              <div className="endpoint-head">
                <span>
                  {r.kind === 'video' ? 'Video' : 'Audio'} recording, {when(r.created_at)}
                  {r.duration_seconds !== null && `, ${Math.round(r.duration_seconds / 60)} min`}
                  {r.size_bytes !== null && `, ${(r.size_bytes / 1_048_576).toFixed(1)} MB`}
                </span>
                <Badge tone={r.status === 'ready' ? 'ok' : r.status === 'failed' ? 'bad' : 'info'}>{r.status}</Badge>
              </div>
              {r.failure_reason && <p className="muted">Failed: {r.failure_reason}</p>}
              {r.status === 'ready' && (
                <>
                  {r.kind === 'video' ? (
                    <video controls preload="none" src={file} aria-label="Play the recording" />
                  ) : (
                    <audio controls preload="none" src={file} aria-label="Play the recording" />
                  )}
                  <a href={file} download>
                    Download
                  </a>
                </>
              )}
            </li>
          );
        })}
      </ul>
    </Section>
  );
}

function TranscriptView({ meetingId }: { meetingId: string }) {
  const t = useLoad(() => optional(api<Transcript>('GET', `/v1/meetings/${meetingId}/transcript`)), [meetingId]);
  return (
    <Section title="Transcript">
      <ErrorNotice error={t.error} />
      {t.data === null && <p className="empty">No transcript yet.</p>}
      {t.data && (
        <div className="transcript">
          {t.data.segments.length > 0
            ? t.data.segments.map((s, i) => (
                <p key={i}>
                  <span className="muted">{new Date(s.start * 1000).toISOString().slice(11, 19)}</span>{' '}
                  {s.speaker && <strong>{s.speaker}: </strong>}
                  {s.text}
                </p>
              ))
            : t.data.text}
        </div>
      )}
    </Section>
  );
}

function SummaryView({ meetingId }: { meetingId: string }) {
  const s = useLoad(() => optional(api<Summary>('GET', `/v1/meetings/${meetingId}/summary`)), [meetingId]);
  return (
    <Section title="Summary">
      <ErrorNotice error={s.error} />
      {s.data === null && <p className="empty">No summary yet.</p>}
      {s.data && (
        <>
          <p>{s.data.tldr}</p>
          {s.data.decisions.length > 0 && (
            <>
              <h3>Decisions</h3>
              <ul>
                {s.data.decisions.map((d, i) => (
                  <li key={i}>{d.text}</li>
                ))}
              </ul>
            </>
          )}
          {s.data.action_items.length > 0 && (
            <>
              <h3>Action items</h3>
              <ul>
                {s.data.action_items.map((a, i) => (
                  <li key={i}>
                    {a.text}
                    {a.owner && <span className="muted"> ({a.owner})</span>}
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
    </Section>
  );
}

function Registrations({ meetingId }: { meetingId: string }) {
  const list = useLoad(() => api<Page<Registration>>('GET', `/meetings/${meetingId}/registrations?limit=100`), [meetingId]);
  return (
    <Section title="Registrations">
      <ErrorNotice error={list.error} />
      {list.data?.data.length === 0 && <p className="empty">No registrations yet.</p>}
      {list.data && list.data.data.length > 0 && (
        <Table headers={['Name', 'Email', 'Registered']}>
          {list.data.data.map((r) => (
            <tr key={r.id}>
              <td>{r.name}</td>
              <td>{r.email}</td>
              <td>{when(r.created_at)}</td>
            </tr>
          ))}
        </Table>
      )}
    </Section>
  );
}
