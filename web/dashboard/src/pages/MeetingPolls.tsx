import './meeting-polls.css';
import { api } from '../api';
import type { Poll } from '../api-types';
import { Badge, Button, ErrorNotice, Section, useLoad, when } from '../ui';

/** The polls hosts ran in the meeting's room, each with its results (votes per option, and who voted unless anonymous). */
export function MeetingPolls({ meetingId, live }: { meetingId: string; live: boolean }) {
  const list = useLoad(() => api<{ data: Poll[] }>('GET', `/v1/meetings/${encodeURIComponent(meetingId)}/polls`), [meetingId]);
  const polls = list.data?.data ?? [];
  if (!list.error && polls.length === 0 && !live) return null;
  return (
    <Section title="Polls" id="polls" actions={<Button onClick={list.reload}>Refresh</Button>}>
      <ErrorNotice error={list.error} />
      {list.data && polls.length === 0 && <p className="empty">No polls yet. Hosts open them from the room’s Polls button.</p>}
      <ul className="poll-list">
        {polls.map((poll) => (
          <PollResult key={poll.id} poll={poll} />
        ))}
      </ul>
    </Section>
  );
}

function PollResult({ poll }: { poll: Poll }) {
  const total = Math.max(1, poll.voters);
  return (
    <li className="poll" data-testid="dashboard-poll">
      <div className="poll-head">
        <strong>{poll.question}</strong>
        <Badge tone={poll.status === 'open' ? 'info' : 'muted'}>{poll.status}</Badge>
      </div>
      <p className="muted">
        {poll.multiple ? 'Several choices' : 'One choice'} · {poll.anonymous ? 'anonymous' : 'names shown'} · {poll.voters}{' '}
        {poll.voters === 1 ? 'person' : 'people'} voted · opened {when(poll.created_at)}
        {poll.closed_at && `, closed ${when(poll.closed_at)}`}
      </p>
      <ol className="poll-options">
        {poll.options.map((option) => {
          const percent = Math.round((option.votes / total) * 100);
          return (
            <li key={option.id}>
              <div className="poll-line">
                <span>{option.text}</span>
                <span className="muted">
                  {option.votes} ({percent} %)
                </span>
              </div>
              <meter min={0} max={100} value={percent} aria-label={`${option.text}: ${percent} %`} />
              {option.voters && option.voters.length > 0 && (
                <p className="muted poll-voters">{option.voters.map((v) => v.name).join(', ')}</p>
              )}
            </li>
          );
        })}
      </ol>
    </li>
  );
}
