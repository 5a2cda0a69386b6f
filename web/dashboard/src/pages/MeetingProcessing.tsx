import { api, ApiError } from '../api';
import type { ReactNode } from 'react';
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

/** What a meeting's transcript or summary view shows beside its own content. */
interface OutputViewProps {
  meetingId: string;
  state: ProcessingState | undefined;
  onRetried: () => void;
}

/** A meeting's transcript or summary: its processing state, the output once it exists, or why there is none. */
function ProcessedOutput<T>({
  meetingId,
  state,
  onRetried,
  output,
  title,
  missing,
  render,
}: OutputViewProps & { output: 'transcript' | 'summary'; title: string; missing: string; render: (data: T) => ReactNode }) {
  const loaded = useLoad(() => optional(api<T>('GET', `/v1/meetings/${meetingId}/${output}`)), [meetingId, state?.status]);
  return (
    <Section title={title} id={output}>
      <ProcessingStatus meetingId={meetingId} output={output} state={state} onRetried={onRetried} />
      <ErrorNotice error={loaded.error} />
      {loaded.data === null && state?.status === 'none' && <p className="empty">{missing}</p>}
      {loaded.data && render(loaded.data)}
    </Section>
  );
}

/** The meeting's transcript, with its processing state. */
export function TranscriptView(props: OutputViewProps) {
  return (
    <ProcessedOutput<Transcript>
      {...props}
      output="transcript"
      title="Transcript"
      missing="No transcript: this meeting has no transcribed recording."
      render={(t) => <TranscriptText transcript={t} />}
    />
  );
}

/** A transcript's text: each segment with when it was said (m:ss) and who said it, or the plain text without segments. */
export function TranscriptText({ transcript: t, id }: { transcript: Transcript; id?: string }) {
  return (
    <div className="transcript" id={id}>
      {t.segments.length > 0
        ? t.segments.map((s, i) => (
            <p key={i}>
              <span className="muted">{formatDuration(s.start)}</span> {s.speaker && <strong>{s.speaker}: </strong>}
              {s.text}
            </p>
          ))
        : t.text}
    </div>
  );
}

/** The meeting's summary, with its processing state. */
export function SummaryView(props: OutputViewProps) {
  return (
    <ProcessedOutput<Summary>
      {...props}
      output="summary"
      title="Summary"
      missing="No summary: it is made from the transcript."
      render={(s) => (
        <>
          <p>{s.tldr}</p>
          {s.decisions.length > 0 && (
            <>
              <h3>Decisions</h3>
              <ul>
                {s.decisions.map((d, i) => (
                  <li key={i}>
                    <SaidAt seconds={d.start_seconds} /> {d.text}
                  </li>
                ))}
              </ul>
            </>
          )}
          {s.action_items.length > 0 && (
            <>
              <h3>Action items</h3>
              <ul>
                {s.action_items.map((a, i) => (
                  <li key={i}>
                    <SaidAt seconds={a.start_seconds} /> {a.text}
                    {(a.owner || a.due) && (
                      <span className="muted"> ({[a.owner, a.due && `due ${dueDay(a.due)}`].filter(Boolean).join(', ')})</span>
                    )}
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
    />
  );
}

/** When a summary item was said in the recording (m:ss), or nothing for summaries made before items carried a time. */
function SaidAt({ seconds }: { seconds: number | null }) {
  if (seconds === null) return null;
  return (
    <span className="muted" aria-label="said at">
      {formatDuration(seconds)}
    </span>
  );
}

/** A due day (YYYY-MM-DD) with its weekday, read as a calendar day (no time zone shift). */
function dueDay(day: string): string {
  const date = new Date(`${day}T12:00:00Z`);
  return Number.isNaN(date.getTime())
    ? day
    : date.toLocaleDateString(undefined, { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
}
