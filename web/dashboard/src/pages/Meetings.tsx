import { useId, useState } from 'react';
import { api, ApiError, type FieldProblem, type Page, type Session } from '../api';
import type { Meeting } from '../api-types';
import { Link, navigate } from '../router';
import { Badge, Button, ErrorNotice, FieldError, Section, useAction, Table, useLoad } from '../ui';
import { meetingTimes, STATUS_TONE, viewerZone, wallClock, zonedDateTime } from './meeting-types';

const FILTERS = ['all', 'scheduled', 'live', 'ended', 'cancelled'] as const;
const PAGE_SIZE = 20;

/** Creates an instant meeting and opens its room as the signed-in host, their name filled in. */
export async function startInstantMeeting(session: Session): Promise<void> {
  const meeting = await api<Meeting>('POST', '/v1/meetings', {
    title: session.user.name ? `${session.user.name}’s meeting` : 'Instant meeting',
    time_zone: viewerZone(),
    organization_id: session.organizations[0]?.id,
  });
  await joinAsHost(meeting.id);
}

/** Opens a meeting's room in this tab as the signed-in host, their name filled in. */
export async function joinAsHost(meetingId: string): Promise<void> {
  const link = await api<{ url: string }>('POST', `/meetings/${encodeURIComponent(meetingId)}/join-as-host`);
  location.assign(link.url);
}

/** Meetings: Start now, the list with a status filter and paging, and the form for a new one. */
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
  const start = useAction();

  return (
    <>
      <div className="page-head">
        <h1>Meetings</h1>
        <div className="actions">
          <Button variant="primary" disabled={start.pending} onClick={() => start.run(() => startInstantMeeting(session))}>
            Start now
          </Button>
          {!creating && <Button onClick={() => setCreating(true)}>New meeting</Button>}
        </div>
      </div>
      <ErrorNotice error={start.error} />
      {creating && (
        <Section title="New meeting">
          <MeetingForm session={session} onCancel={() => setCreating(false)} onSaved={(m) => navigate(`/meetings/${m.id}`)} />
        </Section>
      )}
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
                <td>
                  <StartTimes meeting={m} />
                </td>
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

/** A meeting's start in its own time zone and, below it when the viewer is elsewhere, in the viewer's. */
export function StartTimes({ meeting }: { meeting: Pick<Meeting, 'scheduled_at' | 'time_zone'> }) {
  const times = meetingTimes(meeting.scheduled_at, meeting.time_zone);
  return (
    <span className="times">
      <span>
        {times.there}
        {times.zone && <span className="muted"> ({times.zone})</span>}
      </span>
      {times.here && <span className="muted">{times.here}</span>}
    </span>
  );
}

const ZONES: string[] = (Intl as unknown as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.('timeZone') ?? ['UTC'];

/** The fields whose problems show beside them; the others show above the buttons. */
const FIELDS = [
  'title',
  'scheduled_at',
  'time_zone',
  'duration_minutes',
  'slug',
  'settings.waiting_room',
  'settings.transcription_auto',
  'settings.captions',
  'settings.join_before_start_minutes',
] as const;

/** A number field's value as a number, or as typed when it is none (so the API names the problem). */
function numberOrText(value: string): number | string {
  const number = Number(value);
  return value.trim() === '' || !Number.isFinite(number) ? value : number;
}

/**
 * The form for a new meeting or webinar, or, given `meeting`, for changing one: title, start date, time and time zone,
 * duration and settings. Fields the server refuses show its message beside them.
 */
export function MeetingForm({
  session,
  meeting,
  onCancel,
  onSaved,
}: {
  session: Session;
  meeting?: Meeting;
  onCancel: () => void;
  onSaved: (meeting: Meeting) => void;
}) {
  const ids = useId();
  const initialZone = meeting?.time_zone ?? viewerZone();
  const initialWall = meeting
    ? wallClock(meeting.scheduled_at, initialZone)
    : { date: new Date(Date.now() + 86_400_000).toISOString().slice(0, 10), time: '09:00' };
  const [kind, setKind] = useState<'meeting' | 'webinar'>(meeting?.kind ?? 'meeting');
  const [title, setTitle] = useState(meeting?.title ?? '');
  const [date, setDate] = useState(initialWall.date);
  const [time, setTime] = useState(initialWall.time);
  const [zone, setZone] = useState(initialZone);
  const [duration, setDuration] = useState(String(meeting?.duration_minutes ?? 60));
  const [waitingRoom, setWaitingRoom] = useState(meeting?.settings.waiting_room ?? false);
  const [autoTranscribe, setAutoTranscribe] = useState(meeting?.settings.transcription_auto ?? false);
  const [captions, setCaptions] = useState(meeting?.settings.captions ?? false);
  const [joinEarly, setJoinEarly] = useState(String(meeting?.settings.join_before_start_minutes ?? 10));
  const [slug, setSlug] = useState('');
  const [org, setOrg] = useState(session.organizations[0]?.id ?? '');
  const [problems, setProblems] = useState<FieldProblem[]>([]);
  const save = useAction();
  const problemOf = (param: string) => problems.find((p) => p.param === param)?.message;
  const other = problems.filter((p) => !(FIELDS as readonly string[]).includes(p.param));
  const described = (param: string) => ({
    'aria-invalid': problemOf(param) ? true : undefined,
    'aria-describedby': problemOf(param) ? `${ids}-${param}` : undefined,
  });
  const editable = !meeting || meeting.status === 'scheduled' || meeting.status === 'live';

  return (
    <form
      className="form"
      aria-label={meeting ? 'Edit meeting' : 'New meeting'}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        setProblems([]);
        void save.run(async () => {
          const body: Record<string, unknown> = {
            title,
            scheduled_at: date && time ? zonedDateTime(date, time, zone) : `${date}T${time}`,
            time_zone: zone,
            duration_minutes: numberOrText(duration),
            settings: {
              waiting_room: waitingRoom,
              transcription_auto: autoTranscribe,
              captions,
              join_before_start_minutes: numberOrText(joinEarly),
            },
          };
          if (!meeting) {
            body.organization_id = org || undefined;
            if (kind === 'webinar') Object.assign(body, { kind: 'webinar', slug });
          }
          try {
            const saved = meeting
              ? await api<Meeting>('PATCH', `/v1/meetings/${meeting.id}`, body)
              : await api<Meeting>('POST', '/v1/meetings', body);
            onSaved(saved);
          } catch (err) {
            if (!(err instanceof ApiError) || err.fields.length === 0) throw err;
            setProblems(err.fields);
          }
        });
      }}
    >
      {!meeting && (
        <fieldset className="checkboxes">
          <legend>Type</legend>
          {(['meeting', 'webinar'] as const).map((k) => (
            <label key={k} className="check">
              <input type="radio" name="kind" value={k} checked={kind === k} onChange={() => setKind(k)} />
              {k === 'meeting' ? 'Meeting' : 'Webinar'}
            </label>
          ))}
        </fieldset>
      )}
      <label>
        Title
        <input maxLength={200} value={title} onChange={(e) => setTitle(e.target.value)} {...described('title')} />
        <FieldError id={`${ids}-title`} message={problemOf('title')} />
      </label>
      <div className="row">
        <label>
          Date
          <input type="date" value={date} onChange={(e) => setDate(e.target.value)} {...described('scheduled_at')} />
        </label>
        <label>
          Time
          <input type="time" value={time} onChange={(e) => setTime(e.target.value)} {...described('scheduled_at')} />
        </label>
        <label>
          Time zone
          <select value={zone} onChange={(e) => setZone(e.target.value)} {...described('time_zone')}>
            {(ZONES.includes(zone) ? ZONES : [zone, ...ZONES]).map((z) => (
              <option key={z}>{z}</option>
            ))}
          </select>
          <FieldError id={`${ids}-time_zone`} message={problemOf('time_zone')} />
        </label>
        <label>
          Duration (minutes)
          <input
            type="number"
            inputMode="numeric"
            min={1}
            max={1440}
            value={duration}
            onChange={(e) => setDuration(e.target.value)}
            {...described('duration_minutes')}
          />
          <FieldError id={`${ids}-duration_minutes`} message={problemOf('duration_minutes')} />
        </label>
      </div>
      <FieldError id={`${ids}-scheduled_at`} message={problemOf('scheduled_at') && `Start: ${problemOf('scheduled_at')}`} />
      {!meeting && kind === 'webinar' && (
        <label>
          Slug (the public name of its registration page)
          <input value={slug} onChange={(e) => setSlug(e.target.value)} placeholder="spring-launch" {...described('slug')} />
          <FieldError id={`${ids}-slug`} message={problemOf('slug')} />
        </label>
      )}
      <fieldset className="checkboxes">
        <legend>Settings</legend>
        <label className="check">
          <input type="checkbox" checked={waitingRoom} onChange={(e) => setWaitingRoom(e.target.checked)} />
          Waiting room: a host admits each guest
        </label>
        <label className="check">
          <input type="checkbox" checked={autoTranscribe} onChange={(e) => setAutoTranscribe(e.target.checked)} />
          Record and transcribe automatically when it starts
        </label>
        <label className="check">
          <input type="checkbox" checked={captions} onChange={(e) => setCaptions(e.target.checked)} />
          Live captions on from the start (speech-to-text on this server)
        </label>
        <label className="inline-number">
          Guests may join
          <input
            type="number"
            inputMode="numeric"
            min={0}
            value={joinEarly}
            onChange={(e) => setJoinEarly(e.target.value)}
            {...described('settings.join_before_start_minutes')}
          />
          minutes before the start
          <FieldError id={`${ids}-settings.join_before_start_minutes`} message={problemOf('settings.join_before_start_minutes')} />
        </label>
      </fieldset>
      {!meeting && session.organizations.length > 1 && (
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
      {other.length > 0 && (
        <ul className="notice notice-error" role="alert">
          {other.map((p) => (
            <li key={p.param}>
              {p.param} {p.message}
            </li>
          ))}
        </ul>
      )}
      {problems.length > 0 && other.length === 0 && (
        <p className="sr-only" role="alert">
          {problems.map((p) => `${p.param} ${p.message}`).join('; ')}
        </p>
      )}
      <ErrorNotice error={save.error} />
      <div className="actions">
        <Button onClick={onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" disabled={save.pending || !editable}>
          {meeting ? 'Save changes' : 'Create meeting'}
        </Button>
      </div>
    </form>
  );
}
