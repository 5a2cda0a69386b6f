import { useState } from 'react';
import { api, listAll, type Session } from '../api';
import type { Meeting, Recording } from '../api-types';
import { Link } from '../router';
import { Badge, Button, ConfirmButton, copyText, ErrorNotice, Section, useAction, useLoad, when } from '../ui';
import { Embedding } from './MeetingEmbedding';
import { Participants, Recordings, Registrations } from './MeetingLists';
import { MeetingPolls } from './MeetingPolls';
import { MeetingBreakouts } from './MeetingBreakouts';
import { SummaryView, TranscriptView, type Processing } from './MeetingProcessing';
import { STATUS_TONE } from './meeting-types';
import { joinAsHost, MeetingForm, StartTimes } from './Meetings';

/** A meeting's page: its facts and actions, participants, recordings, transcript, summary and registrations. */
export function MeetingPage({ id, session }: { id: string; session: Session }) {
  // A meeting goes live when someone joins and ends when the room empties: keep the status shown current.
  const meeting = useLoad(() => api<Meeting>('GET', `/v1/meetings/${encodeURIComponent(id)}`), [id], {
    ms: 10_000,
    active: (m) => m?.status === 'scheduled' || m?.status === 'live',
  });
  const processing = useLoad(() => api<Processing>('GET', `/meetings/${encodeURIComponent(id)}/processing`), [id], {
    ms: 3_000,
    active: (p) => Boolean(p && [p.transcript, p.summary].some((s) => s.status === 'pending' || s.status === 'running')),
  });
  // Every recording of the meeting, all pages, loaded once for the Recordings section and the breakout rooms.
  const recordings = useLoad(() => listAll<Recording>(`/v1/meetings/${encodeURIComponent(id)}/recordings`), [id]);
  const [editing, setEditing] = useState(false);
  const m = meeting.data;
  // A failed poll keeps the meeting shown (and polled) with the error above it; only a failed first load has nothing else to show.
  if (!m) return meeting.error ? <ErrorNotice error={meeting.error} /> : <p className="loading">Loading…</p>;
  return (
    <>
      <p>
        <Link href="/meetings">← Meetings</Link>
      </p>
      <div className="page-head">
        <h1>{m.title}</h1>
        <Badge tone={STATUS_TONE[m.status]}>{m.status}</Badge>
      </div>
      <ErrorNotice error={meeting.error} />
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
              {m.settings.transcription_auto ? 'on' : 'off'}; live captions {m.settings.captions ? 'on from the start' : 'off'}
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
      <Recordings list={recordings} />
      <div className="grid-2">
        <TranscriptView meetingId={m.id} state={processing.data?.transcript} onRetried={processing.reload} />
        <SummaryView meetingId={m.id} state={processing.data?.summary} onRetried={processing.reload} />
      </div>
      <ErrorNotice error={processing.error} />
      <MeetingPolls meetingId={m.id} live={m.status === 'live'} />
      <MeetingBreakouts meetingId={m.id} live={m.status === 'live'} recordings={recordings} />
      {m.kind === 'webinar' && <Registrations meetingId={m.id} />}
    </>
  );
}

/** Join, copy the link, edit, end, cancel or reopen, as the meeting's status allows. */
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
