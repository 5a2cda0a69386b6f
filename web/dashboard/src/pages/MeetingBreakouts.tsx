import './meeting-polls.css';
import { api } from '../api';
import type { BreakoutRoom } from '../api-types';
import { Badge, Button, ErrorNotice, Section, useLoad } from '../ui';

const TONE = { draft: 'muted', open: 'ok', closing: 'warn', closed: 'muted' } as const;

/** The breakout rooms hosts opened in the meeting, with who was assigned to each. */
export function MeetingBreakouts({ meetingId, live }: { meetingId: string; live: boolean }) {
  const list = useLoad(
    () => api<{ data: BreakoutRoom[] }>('GET', `/v1/meetings/${encodeURIComponent(meetingId)}/breakout-rooms`),
    [meetingId],
  );
  const rooms = list.data?.data ?? [];
  if (!list.error && rooms.length === 0 && !live) return null;
  return (
    <Section title="Breakout rooms" id="breakouts" actions={<Button onClick={list.reload}>Refresh</Button>}>
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
          </li>
        ))}
      </ul>
    </Section>
  );
}
