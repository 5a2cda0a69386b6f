/**
 * Precision and recall of the extractive summary's decisions and action items on real speech-to-text output: each
 * meeting of the evaluation set (service/src/summaries/eval/meetings.ts: twelve scripted meetings, two or three
 * flite voices) is spoken without pauses (run-on turns) and with a 1 s pause after each sentence, one 16 kHz track
 * per speaker, transcribed by pocketsphinx as the transcribe job does, summarized and scored: a decision matches
 * when it holds most of the expected words, an action item when it also names the expected owner and due day.
 * Target (issue 25): precision and recall at least 0.8 each. See bench/README.md.
 */
import { evaluateMeetings, totalsOf, type EvaluatedRun } from '../../service/src/summaries/eval/evaluate';
import { EVAL_MEETINGS } from '../../service/src/summaries/eval/meetings';
import { precisionRecall } from '../../service/src/summaries/eval/score';
import { cleanUpOnExit, machine, markdownTable, progress, runMain, smokeOr, verdict } from '../support';

/** The smoke speaks the first meeting once, without pauses. */
const MEETINGS = smokeOr(EVAL_MEETINGS, EVAL_MEETINGS.slice(0, 1));
const PAUSES = smokeOr([0, 1], [0]);
const CONCURRENCY = Number(process.env.BENCH_SUMMARIES_CONCURRENCY ?? 2);
const TARGET = 0.8;

const fixed = (n: number) => n.toFixed(2);

function row(label: string, runs: EvaluatedRun[]): (string | number)[] {
  const t = totalsOf(runs);
  const d = precisionRecall(t.decisions);
  const a = precisionRecall(t.actions);
  const tldr = runs.map((r) => r.tldrWords / Math.max(1, r.transcriptWords));
  return [
    label,
    runs.length,
    `${t.decisions.matched}/${t.decisions.found}/${t.decisions.expected}`,
    fixed(d.precision),
    fixed(d.recall),
    `${t.actions.matched}/${t.actions.found}/${t.actions.expected}`,
    fixed(a.precision),
    fixed(a.recall),
    fixed(t.precision),
    fixed(t.recall),
    Math.max(...runs.map((r) => r.tldrSentences)),
    `${Math.round(Math.max(...tldr) * 100)} %`,
  ];
}

async function main(): Promise<void> {
  cleanUpOnExit();
  const started = Date.now();
  progress(`${MEETINGS.length} meetings x ${PAUSES.length} ways: flite -> pocketsphinx -> extractive summary, ${CONCURRENCY} at a time`);
  const runs = await evaluateMeetings(MEETINGS, PAUSES, CONCURRENCY);
  const label = (p: number) => (p === 0 ? 'run-on (no pauses)' : `${p} s pause after each sentence`);
  const rows = PAUSES.map((p) =>
    row(
      label(p),
      runs.filter((r) => r.pauseSeconds === p),
    ),
  );
  if (PAUSES.length > 1) rows.push(row('all', runs));
  const total = totalsOf(runs);
  const misses = runs.flatMap((r) => r.score.misses.map((m) => `- ${r.meeting} (${label(r.pauseSeconds)}): ${m}`));
  process.stdout.write(
    `\nDecisions and action items of the extractive summary on pocketsphinx transcripts of flite speech; ${machine()}; ` +
      `${((Date.now() - started) / 1000).toFixed(0)} s\n\n` +
      markdownTable(
        [
          'speech',
          'meetings',
          'decisions matched/found/expected',
          'P',
          'R',
          'action items matched/found/expected',
          'P',
          'R',
          'precision',
          'recall',
          'TL;DR sentences (max)',
          'TL;DR / transcript words (max)',
        ],
        rows,
        [1, 3, 4, 6, 7, 8, 9, 10, 11],
      ) +
      `\n\nWhat was missed, wrong or extra:\n${misses.length ? misses.join('\n') : '- nothing'}\n` +
      `\nPrecision and recall at least ${TARGET} each: ${verdict(total.precision >= TARGET && total.recall >= TARGET)}\n`,
  );
}

runMain(main);
