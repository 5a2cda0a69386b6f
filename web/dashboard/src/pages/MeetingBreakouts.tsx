import './meeting-polls.css';
import { useEffect, useState } from 'react';
import { api } from '../api';
import type { BreakoutRoom, Recording, Transcript } from '../api-types';
import { Badge, Button, ErrorNotice, Section, useLoad, type Loaded } from '../ui';
import { RecordingItem } from './MeetingLists';
import { TranscriptText } from './MeetingProcessing';

const TONE = { draft: 'muted', open: 'ok', closing: 'warn', closed: 'muted' } as const;
const TRANSCRIPT_LABEL = { processing: 'in progress', ready: 'ready', failed: 'failed' } as const;
const TRANSCRIPT_TONE = { processing: 'info', ready: 'ok', failed: 'bad' } as const;

/**
 * The breakout rooms hosts opened in the meeting, with who was assigned to each and each room's recordings (of
 * `recordings`, the meeting's, which the page loads once) and transcript, followed every 3 s while one is in progress.
 */
export function MeetingBreakouts({ meetingId, live, recordings }: { meetingId: string; live: boolean; recordings: Loaded<Recording[]> }) {
  // As the meeting's own transcript: polled while being made, until it is ready or failed (or the page is left); a
  // failed poll keeps the rooms shown, so polling goes on.
  const list = useLoad(
    () => api<{ data: BreakoutRoom[] }>('GET', `/v1/meetings/${encodeURIComponent(meetingId)}/breakout-rooms`),
    [meetingId],
    { ms: 3_000, active: (d) => Boolean(d?.data.some((room) => room.transcript?.status === 'processing')) },
  );
  const rooms = list.data?.data ?? [];
  // A room's recording made since the page loaded the meeting's recordings: they load again (once per such change).
  const loaded = recordings.data;
  const unseen = loaded !== undefined && rooms.some((room) => room.recording_ids.some((id) => !loaded.some((r) => r.id === id)));
  const reloadRecordings = recordings.reload;
  useEffect(() => {
    if (unseen) reloadRecordings();
  }, [unseen, reloadRecordings]);
  if (!list.error && rooms.length === 0 && !live) return null;
  const refresh = () => {
    list.reload();
    recordings.reload();
  };
  return (
    <Section title="Breakout rooms" id="breakouts" actions={<Button onClick={refresh}>Refresh</Button>}>
      {/* The recordings' own load error shows once, in the Recordings section. */}
      <ErrorNotice error={list.error} />
      {list.data && rooms.length === 0 && (
        <p className="empty">No breakout rooms yet. Hosts open them from the room’s Breakout rooms button.</p>
      )}
      <ul className="breakout-list">
        {rooms.map((room) => (
          <li key={room.id} className="breakout" data-testid="dashboard-breakout">
            <div className="poll-head">
              <strong>{room.name}</strong>
              <Badge tone={TONE[room.status]}>{room.status}</Badge>
            </div>
            {room.participants.length === 0 ? (
              <p className="muted">Nobody was assigned.</p>
            ) : (
              <ul>
                {room.participants.map((p) => (
                  <li key={p.participant_id}>{p.name}</li>
                ))}
              </ul>
            )}
            {room.recording_ids.length > 0 && (
              <ul className="endpoint-list breakout-outputs" aria-label={`Recordings of ${room.name}`}>
                {(recordings.data ?? [])
                  .filter((r) => room.recording_ids.includes(r.id))
                  .map((r) => (
                    <RecordingItem key={r.id} recording={r} />
                  ))}
              </ul>
            )}
            {room.transcript && <BreakoutTranscript meetingId={meetingId} room={room} status={room.transcript.status} />}
          </li>
        ))}
      </ul>
    </Section>
  );
}

/**
 * A breakout room's transcript: where it stands and, once ready, its text shown on demand. The text shows only while
 * ready and loads again whenever the status changes (a re-run replaces it), so an old text never stays.
 */
function BreakoutTranscript({
  meetingId,
  room,
  status,
}: {
  meetingId: string;
  room: BreakoutRoom;
  status: NonNullable<BreakoutRoom['transcript']>['status'];
}) {
  const [open, setOpen] = useState(false);
  const path = `/v1/meetings/${encodeURIComponent(meetingId)}/breakout-rooms/${encodeURIComponent(room.id)}/transcript`;
  const shown = open && status === 'ready';
  const text = useLoad(async () => (shown ? api<Transcript>('GET', path) : null), [path, open, status]);
  const textId = `breakout-transcript-${room.id}`;
  return (
    <div className="breakout-transcript">
      <p>
        Transcript: <Badge tone={TRANSCRIPT_TONE[status]}>{TRANSCRIPT_LABEL[status]}</Badge>{' '}
        {status === 'ready' && (
          <Button aria-expanded={open} aria-controls={open ? textId : undefined} onClick={() => setOpen(!open)}>
            {open ? 'Hide transcript' : 'Show transcript'}
          </Button>
        )}
      </p>
      {status === 'failed' && (
        <p className="muted">
          Transcribing this room’s recording failed; <code>npx svc jobs list</code> on the server says why.
        </p>
      )}
      <ErrorNotice error={text.error} />
      {shown && text.data && <TranscriptText transcript={text.data} id={textId} />}
    </div>
  );
}
