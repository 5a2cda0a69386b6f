import { api, type Page } from '../api';
import type { Participant, Recording, Registration } from '../api-types';
import { Badge, ErrorNotice, formatDuration, Section, Table, useLoad, when, type Loaded } from '../ui';

/** Who joined the meeting, with when they joined and left. */
export function Participants({ meetingId }: { meetingId: string }) {
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

/** How each kind of recording is named: the composite MP4 plays anywhere, the per-track source is for download. */
const KIND_LABELS: Record<Recording['kind'], string> = {
  video: 'Video recording',
  tracks: 'Per-track source (every microphone, camera and screen share)',
  audio: 'Audio recording',
};

/** The meeting's main-room recordings (of `list`, all of the meeting's), each playable and downloadable once ready (breakout rooms list their own). */
export function Recordings({ list }: { list: Loaded<Recording[]> }) {
  const main = list.data?.filter((r) => r.breakout_room_id === null);
  const inBreakouts = (list.data?.length ?? 0) - (main?.length ?? 0);
  return (
    <Section title="Recordings" id="recordings">
      <ErrorNotice error={list.error} />
      {main?.length === 0 && <p className="empty">No recordings.</p>}
      <ul className="endpoint-list">
        {main?.map((r) => (
          <RecordingItem key={r.id} recording={r} />
        ))}
      </ul>
      {inBreakouts > 0 && (
        <p className="muted">
          {inBreakouts === 1 ? 'One more recording was' : `${inBreakouts} more recordings were`} made in breakout rooms:{' '}
          <a href="#breakouts-title">see Breakout rooms</a>.
        </p>
      )}
    </Section>
  );
}

/** One recording: its kind, when, how long and big, its status, and once ready a player and a download link. */
export function RecordingItem({ recording: r }: { recording: Recording }) {
  const file = `/dashboard/api/v1/recordings/${r.id}/download`;
  return (
    <li className="endpoint">
      <div className="endpoint-head">
        <span>
          {KIND_LABELS[r.kind]}, {when(r.created_at)}
          {r.duration_seconds !== null && (
            <>
              , <span aria-label="duration">{formatDuration(r.duration_seconds)}</span>
            </>
          )}
          {typeof r.size_bytes === 'number' && `, ${sizeText(r.size_bytes)}`}
        </span>
        <Badge tone={r.status === 'ready' ? 'ok' : r.status === 'failed' ? 'bad' : 'info'}>{r.status}</Badge>
      </div>
      {r.failure_reason && <p className="muted">Failed: {r.failure_reason}</p>}
      {r.status === 'ready' && (
        <>
          {r.kind === 'video' && <video controls preload="none" src={file} aria-label="Play the recording" />}
          {r.kind === 'audio' && <audio controls preload="none" src={file} aria-label="Play the recording" />}
          <a href={file} download>
            Download
          </a>
        </>
      )}
    </li>
  );
}

/** A webinar's registrations. */
export function Registrations({ meetingId }: { meetingId: string }) {
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

/** A file size as people read it: KB below a megabyte (a short test recording is not "0.0 MB"), else MB. */
function sizeText(bytes: number): string {
  return bytes < 1_048_576 ? `${Math.max(1, Math.round(bytes / 1024))} KB` : `${(bytes / 1_048_576).toFixed(1)} MB`;
}
