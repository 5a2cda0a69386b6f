import { api, ApiError } from '../api';
import type { Summary, Transcript } from '../api-types';
import { Badge, Button, ErrorNotice, formatDuration, Section, useAction, useLoad, when } from '../ui';

/** Where a meeting's transcript or summary stands, as /meetings/{id}/processing says. */
export interface ProcessingState {
  status: 'none' | 'pending' | 'running' | 'failed' | 'ready';
  failure_reason: string | null;
  attempt_count: number;
  next_attempt_at: string | null;
  updated_at: string | null;
  can_retry: boolean;
}

/** The transcript's and the summary's processing state. */
export interface Processing {
  transcript: ProcessingState;
  summary: ProcessingState;
}

const PROCESSING_LABEL = { none: 'not started', pending: 'queued', running: 'in progress', failed: 'failed', ready: 'ready' } as const;
const PROCESSING_TONE = { none: 'muted', pending: 'info', running: 'info', failed: 'bad', ready: 'ok' } as const;

/** A value that may not exist yet: undefined while the API answers 404. */
async function optional<T>(load: Promise<T>): Promise<T | null> {
  try {
    return await load;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
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

/** The meeting's transcript, with its processing state. */
export function TranscriptView({
  meetingId,
  state,
  onRetried,
}: {
  meetingId: string;
  state: ProcessingState | undefined;
  onRetried: () => void;
}) {
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

/** The meeting's summary, with its processing state. */
export function SummaryView({
  meetingId,
  state,
  onRetried,
}: {
  meetingId: string;
  state: ProcessingState | undefined;
  onRetried: () => void;
}) {
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
