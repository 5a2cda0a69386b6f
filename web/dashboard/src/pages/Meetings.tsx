import { useState } from 'react';
import { api, type Page, type Session } from '../api';
import { Link, navigate } from '../router';
import { Badge, Button, ErrorNotice, Section, useAction, Table, useLoad, when } from '../ui';
import { STATUS_TONE, zonedDateTime, type Meeting } from './meeting-types';

const FILTERS = ['all', 'scheduled', 'live', 'ended', 'cancelled'] as const;
const PAGE_SIZE = 20;

/** Meetings: the list with a status filter and paging, and the create form. */
export function Meetings({ session }: { session: Session }) {
  const [status, setStatus] = useState<(typeof FILTERS)[number]>('all');
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const list = useLoad(() => {
    const q = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (status !== 'all') q.set('status', status);
    if (cursor) q.set('cursor', cursor);
    return api<Page<Meeting>>('GET', `/v1/meetings?${q}`);
  }, [status, cursor]);
  const [creating, setCreating] = useState(false);

  return (
    <>
      <div className="page-head">
        <h1>Meetings</h1>
        {!creating && (
          <Button variant="primary" onClick={() => setCreating(true)}>
            New meeting
          </Button>
        )}
      </div>
      {creating && <CreateMeeting session={session} onCancel={() => setCreating(false)} />}
      <Section
        title="All meetings"
        actions={
          <div className="filters" role="group" aria-label="Filter by status">
            {FILTERS.map((f) => (
              <Button
                key={f}
                aria-pressed={status === f}
                onClick={() => {
                  setStatus(f);
                  setCursors([]);
                }}
              >
                {f[0]!.toUpperCase() + f.slice(1)}
              </Button>
            ))}
          </div>
        }
      >
        <ErrorNotice error={list.error} />
        {list.data && list.data.data.length === 0 && (
          <p className="empty">No meetings{status === 'all' ? '' : ` with status ${status}`}.</p>
        )}
        {list.data && list.data.data.length > 0 && (
          <Table headers={['Title', 'Status', 'Kind', 'Starts', 'Code']}>
            {list.data.data.map((m) => (
              <tr key={m.id}>
                <td>
                  <Link href={`/meetings/${m.id}`}>{m.title}</Link>
                </td>
                <td>
                  <Badge tone={STATUS_TONE[m.status]}>{m.status}</Badge>
                </td>
                <td>{m.kind === 'webinar' ? `Webinar (${m.slug})` : 'Meeting'}</td>
                <td>{when(m.scheduled_at)}</td>
                <td>
                  <code>{m.code}</code>
                </td>
              </tr>
            ))}
          </Table>
        )}
        <nav className="pager" aria-label="Pages">
          <Button disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
            Previous page
          </Button>
          <Button disabled={!list.data?.has_more} onClick={() => list.data?.next_cursor && setCursors([...cursors, list.data.next_cursor])}>
            Next page
          </Button>
        </nav>
      </Section>
    </>
  );
}

const ZONES: string[] = (Intl as unknown as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.('timeZone') ?? ['UTC'];

function CreateMeeting({ session, onCancel }: { session: Session; onCancel: () => void }) {
  const [type, setType] = useState<'instant' | 'scheduled' | 'webinar'>('instant');
  const [title, setTitle] = useState('');
  const [date, setDate] = useState(() => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10));
  const [time, setTime] = useState('09:00');
  const [zone, setZone] = useState(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
  const [duration, setDuration] = useState(60);
  const [slug, setSlug] = useState('');
  const [org, setOrg] = useState(session.organizations[0]?.id ?? '');
  const create = useAction();
  return (
    <Section title="New meeting">
      <form
        className="form"
        aria-label="New meeting"
        onSubmit={(e) => {
          e.preventDefault();
          void create.run(async () => {
            const body: Record<string, unknown> = { title, organization_id: org || undefined };
            if (type !== 'instant') {
              body.scheduled_at = zonedDateTime(date, time, zone);
              body.duration_minutes = duration;
            }
            if (type === 'webinar') Object.assign(body, { kind: 'webinar', slug });
            const meeting = await api<Meeting>('POST', '/v1/meetings', body);
            navigate(`/meetings/${meeting.id}`);
          });
        }}
      >
        <fieldset className="checkboxes">
          <legend>Type</legend>
          {(['instant', 'scheduled', 'webinar'] as const).map((t) => (
            <label key={t} className="check">
              <input type="radio" name="type" value={t} checked={type === t} onChange={() => setType(t)} />
              {t === 'instant' ? 'Instant meeting' : t === 'scheduled' ? 'Scheduled meeting' : 'Webinar'}
            </label>
          ))}
        </fieldset>
        <label>
          Title
          <input required maxLength={200} value={title} onChange={(e) => setTitle(e.target.value)} />
        </label>
        {type !== 'instant' && (
          <div className="row">
            <label>
              Date
              <input type="date" required value={date} onChange={(e) => setDate(e.target.value)} />
            </label>
            <label>
              Time
              <input type="time" required value={time} onChange={(e) => setTime(e.target.value)} />
            </label>
            <label>
              Time zone
              <select value={zone} onChange={(e) => setZone(e.target.value)}>
                {(ZONES.includes(zone) ? ZONES : [zone, ...ZONES]).map((z) => (
                  <option key={z}>{z}</option>
                ))}
              </select>
            </label>
            <label>
              Duration (minutes)
              <input type="number" min={1} max={1440} value={duration} onChange={(e) => setDuration(Number(e.target.value))} />
            </label>
          </div>
        )}
        {type === 'webinar' && (
          <label>
            Slug (the public name of its registration page)
            <input
              required
              pattern="[a-z0-9][a-z0-9-]{1,62}[a-z0-9]"
              value={slug}
              onChange={(e) => setSlug(e.target.value)}
              placeholder="spring-launch"
            />
          </label>
        )}
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
        <ErrorNotice error={create.error} />
        <div className="actions">
          <Button onClick={onCancel}>Cancel</Button>
          <Button type="submit" variant="primary" disabled={create.pending}>
            Create meeting
          </Button>
        </div>
      </form>
    </Section>
  );
}
