import type { TranscriptSegment } from '../../transcripts/transcripts.repo';
import { summarizeExtractive, type SummaryDraft } from '../extractive';
import { EVAL_MEETING_DATE, type ScriptedMeeting } from './meetings';
import { addTallies, precisionRecall, scoreSummary, type MeetingScore, type Tally } from './score';
import { transcribeScriptedMeeting } from './spoken';

/** One meeting spoken one way, transcribed, summarized and scored. */
export interface EvaluatedRun {
  meeting: string;
  pauseSeconds: number;
  segments: TranscriptSegment[];
  summary: SummaryDraft;
  score: MeetingScore;
  /** Words in the transcript and in the TL;DR. */
  transcriptWords: number;
  tldrWords: number;
  tldrSentences: number;
}

/** Precision and recall over a set of runs, for decisions, action items and both. */
export interface EvaluationTotals {
  decisions: Tally;
  actions: Tally;
  all: Tally;
  precision: number;
  recall: number;
}

/**
 * Speaks each meeting with each of `pauses` (seconds after each sentence; 0 is run-on speech) through flite and
 * pocketsphinx, summarizes the transcript extractively and scores it; `concurrency` meetings at a time.
 */
export function evaluateMeetings(meetings: ScriptedMeeting[], pauses: number[], concurrency: number): Promise<EvaluatedRun[]> {
  return evaluateRuns(
    meetings.flatMap((meeting) => pauses.map((pauseSeconds) => ({ meeting, pauseSeconds }))),
    concurrency,
  );
}

/** Like `evaluateMeetings`, for a list of meetings each with its own pause. */
export async function evaluateRuns(
  work: { meeting: ScriptedMeeting; pauseSeconds: number }[],
  concurrency: number,
): Promise<EvaluatedRun[]> {
  const runs: EvaluatedRun[] = new Array(work.length);
  let next = 0;
  const lane = async () => {
    while (next < work.length) {
      const at = next++;
      const { meeting, pauseSeconds } = work[at]!;
      const segments = await transcribeScriptedMeeting(meeting, pauseSeconds);
      const summary = summarizeExtractive({ segments, participants: Object.keys(meeting.voices), meetingDate: EVAL_MEETING_DATE });
      runs[at] = {
        meeting: meeting.name,
        pauseSeconds,
        segments,
        summary,
        score: scoreSummary(meeting, summary),
        transcriptWords: segments.reduce((n, s) => n + s.text.split(/\s+/).filter(Boolean).length, 0),
        tldrWords: summary.tldr.split(/\s+/).filter(Boolean).length,
        tldrSentences: summary.tldr.split(/(?<=[.!?…])\s+/).filter(Boolean).length,
      };
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, lane));
  return runs;
}

/** Totals over runs. */
export function totalsOf(runs: EvaluatedRun[]): EvaluationTotals {
  const decisions = addTallies(runs.map((r) => r.score.decisions));
  const actions = addTallies(runs.map((r) => r.score.actions));
  const all = addTallies([decisions, actions]);
  return { decisions, actions, all, ...precisionRecall(all) };
}
