import { useEffect, useState } from 'react';
import { api, ApiError, type Page, type Session } from '../api';
import { Link } from '../router';
import { Badge, Button, ConfirmButton, copyText, ErrorNotice, formatDuration, Section, useAction, Table, useLoad, when } from '../ui';
import { STATUS_TONE, type Meeting } from './meeting-types';
import { joinAsHost, MeetingForm, StartTimes } from './Meetings';

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

/** Where a meeting's transcript or summary stands, as /meetings/{id}/processing says. */
interface ProcessingState {
  status: 'none' | 'pending' | 'running' | 'failed' | 'ready';
  failure_reason: string | null;
  attempt_count: number;
  next_attempt_at: string | null;
  updated_at: string | null;
  can_retry: boolean;
}

interface Processing {
  transcript: ProcessingState;
  summary: ProcessingState;
}

const PROCESSING_LABEL = { none: 'not started', pending: 'queued', running: 'in progress', failed: 'failed', ready: 'ready' } as const;
const PROCESSING_TONE = { none: 'muted', pending: 'info', running: 'info', failed: 'bad', ready: 'ok' } as const;

/** Calls `tick` every `ms` while `active` and the page is visible, and once when the page becomes visible again. */
function usePoll(tick: () => void, ms: number, active: boolean): void {
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => document.visibilityState === 'visible' && tick(), ms);
    const onVisible = () => document.visibilityState === 'visible' && tick();
    document.addEventListener('visibilitychange', onVisible);
    window.addEventListener('pageshow', onVisible);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisible);
      window.removeEventListener('pageshow', onVisible);
    };
  }, [tick, ms, active]);
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
  const processing = useLoad(() => api<Processing>('GET', `/meetings/${encodeURIComponent(id)}/processing`), [id]);
  const [editing, setEditing] = useState(false);
  const m = meeting.data;
  // A meeting goes live when someone joins and ends when the room empties: keep the status shown current.
  usePoll(meeting.reload, 10_000, m?.status === 'scheduled' || m?.status === 'live');
  const busy =
    processing.data && [processing.data.transcript, processing.data.summary].some((p) => p.status === 'pending' || p.status === 'running');
  usePoll(processing.reload, 3_000, Boolean(busy));
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
      <MeetingActions meeting={m} onChanged={meeting.reload} onEdit={() => setEditing(true)} />
      {editing && (
        <Section title="Edit meeting">
          <MeetingForm
            session={session}
            meeting={m}
            onCancel={() => setEditing(false)}
            onSaved={() => {
              setEditing(false);
              meeting.reload();
            }}
          />
        </Section>
      )}
      <div className="grid-2">
        <Section title="Details">
          <dl className="facts">
            <dt>Kind</dt>
            <dd>
              {m.kind === 'webinar' ? (
                <>
                  Webinar, registration page <a href={`/w/${encodeURIComponent(m.slug ?? '')}`}>/w/{m.slug}</a>
                </>
              ) : (
                'Meeting'
              )}
            </dd>
            <dt>Code</dt>
            <dd>
              <code>{m.code}</code>
            </dd>
            <dt>Starts</dt>
            <dd>
              <StartTimes meeting={m} />
              <a className="ics" href={`/dashboard/api/meetings/${encodeURIComponent(m.id)}/calendar.ics`} download={`${m.code}.ics`}>
                Add to calendar (.ics)
              </a>
            </dd>
            <dt>Duration</dt>
            <dd>{m.duration_minutes} minutes</dd>
            <dt>Settings</dt>
            <dd>
              Waiting room {m.settings.waiting_room ? 'on' : 'off'}; automatic recording and transcript{' '}
              {m.settings.transcription_auto ? 'on' : 'off'}
              {typeof m.settings.join_before_start_minutes === 'number' &&
                `; guests may join ${m.settings.join_before_start_minutes} minutes before the start`}
            </dd>
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
        <TranscriptView meetingId={m.id} state={processing.data?.transcript} onRetried={processing.reload} />
        <SummaryView meetingId={m.id} state={processing.data?.summary} onRetried={processing.reload} />
      </div>
      <ErrorNotice error={processing.error} />
      {m.kind === 'webinar' && <Registrations meetingId={m.id} />}
    </>
  );
}

function MeetingActions({ meeting: m, onChanged, onEdit }: { meeting: Meeting; onChanged: () => void; onEdit: () => void }) {
  const [copied, setCopied] = useState(false);
  const host = useAction();
  const open = m.status === 'scheduled' || m.status === 'live';
  return (
    <div className="card">
      <div className="actions">
        {open && (
          <Button variant="primary" disabled={host.pending} onClick={() => host.run(() => joinAsHost(m.id))}>
            {m.status === 'live' ? 'Join as host' : 'Start now'}
          </Button>
        )}
        <Button
          onClick={async () => {
            await copyText(m.join_url);
            setCopied(true);
          }}
        >
          {copied ? 'Join link copied' : 'Copy join link'}
        </Button>
        {open && <Button onClick={onEdit}>Edit</Button>}
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
        {(m.status === 'ended' || m.status === 'cancelled') && (
          <ConfirmButton
            label="Reopen meeting"
            title="Reopen this meeting?"
            message={<p>It is scheduled again, with the same join links{m.slug ? ' and registration page' : ''}.</p>}
            confirmLabel="Reopen meeting"
            onConfirm={async () => {
              await api('POST', `/v1/meetings/${m.id}/reopen`);
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
                  {r.duration_seconds !== null && (
                    <>
                      , <span aria-label="duration">{formatDuration(r.duration_seconds)}</span>
                    </>
                  )}
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

/** A transcript's or summary's status: a badge, why it failed, and Retry for a failed one. */
function ProcessingStatus({
  meetingId,
  output,
  state,
  onRetried,
}: {
  meetingId: string;
  output: 'transcript' | 'summary';
  state: ProcessingState | undefined;
  onRetried: () => void;
}) {
  const retry = useAction();
  if (!state) return null;
  return (
    <div className="processing">
      <p>
        Status: <Badge tone={PROCESSING_TONE[state.status]}>{PROCESSING_LABEL[state.status]}</Badge>
        {state.status === 'pending' && state.next_attempt_at && state.failure_reason && (
          <span className="muted"> (trying again {when(state.next_attempt_at)})</span>
        )}
      </p>
      {state.failure_reason && (state.status === 'failed' || state.status === 'pending') && (
        <p className={state.status === 'failed' ? 'failure' : 'muted'}>
          {state.status === 'failed' ? 'Failed: ' : 'Last attempt failed: '}
          {state.failure_reason}
        </p>
      )}
      {state.can_retry && (
        <Button
          disabled={retry.pending}
          onClick={() =>
            retry.run(async () => {
              await api('POST', `/meetings/${encodeURIComponent(meetingId)}/${output}/retry`);
              onRetried();
            })
          }
        >
          Retry
        </Button>
      )}
      <ErrorNotice error={retry.error} />
    </div>
  );
}

function TranscriptView({ meetingId, state, onRetried }: { meetingId: string; state: ProcessingState | undefined; onRetried: () => void }) {
  const t = useLoad(() => optional(api<Transcript>('GET', `/v1/meetings/${meetingId}/transcript`)), [meetingId, state?.status]);
  return (
    <Section title="Transcript" id="transcript">
      <ProcessingStatus meetingId={meetingId} output="transcript" state={state} onRetried={onRetried} />
      <ErrorNotice error={t.error} />
      {t.data === null && state?.status === 'none' && <p className="empty">No transcript: this meeting has no transcribed recording.</p>}
      {t.data && (
        <div className="transcript">
          {t.data.segments.length > 0
            ? t.data.segments.map((s, i) => (
                <p key={i}>
                  <span className="muted">{formatDuration(s.start)}</span> {s.speaker && <strong>{s.speaker}: </strong>}
                  {s.text}
                </p>
              ))
            : t.data.text}
        </div>
      )}
    </Section>
  );
}

function SummaryView({ meetingId, state, onRetried }: { meetingId: string; state: ProcessingState | undefined; onRetried: () => void }) {
  const s = useLoad(() => optional(api<Summary>('GET', `/v1/meetings/${meetingId}/summary`)), [meetingId, state?.status]);
  return (
    <Section title="Summary" id="summary">
      <ProcessingStatus meetingId={meetingId} output="summary" state={state} onRetried={onRetried} />
      <ErrorNotice error={s.error} />
      {s.data === null && state?.status === 'none' && <p className="empty">No summary: it is made from the transcript.</p>}
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
