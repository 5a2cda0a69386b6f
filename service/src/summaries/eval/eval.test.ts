import { withSpeakers } from '../summarize.job';
import { evaluateRuns, totalsOf, type EvaluatedRun } from './evaluate';
import { EVAL_MEETINGS } from './meetings';

/**
 * The regression floor of bench/summaries on real speech-to-text output (flite -> pocketsphinx -> summary), on a
 * subset of the evaluation set to keep CI short: four meetings spoken as run-ons (the meeting, and three
 * with items pocketsphinx mishears), one with pauses. The bench runs all twelve both ways (figures in its README).
 */
const RUN_ON = ['release planning', 'hiring', 'mobile app', 'security review'];
const WITH_PAUSES = ['landing page design'];
const FLOOR = 0.75;

describe('summaries of real speech-to-text output', () => {
  let runs: EvaluatedRun[];
  beforeAll(async () => {
    const named = (names: string[], pauseSeconds: number) =>
      EVAL_MEETINGS.filter((m) => names.includes(m.name)).map((meeting) => ({ meeting, pauseSeconds }));
    runs = await evaluateRuns([...named(RUN_ON, 0), ...named(WITH_PAUSES, 1)], 2);
  }, 600_000);

  it('finds the run-on meeting’s decision and its action item with owner and due day, each cited to its segment, time and speaker', () => {
    const run = runs.find((r) => r.meeting === 'release planning' && r.pauseSeconds === 0)!;
    const { decisions, action_items } = run.summary;
    // The clause, not the 10-second run-on it was said in.
    expect(decisions).toContainEqual(expect.objectContaining({ text: 'We decided to launch the billing service on friday.' }));
    expect(action_items).toContainEqual(
      expect.objectContaining({ text: 'Grace will write the release notes by thursday.', owner: 'Grace Hill', due: '2026-11-26' }),
    );
    expect(run.score.decisions.matched).toBe(1);
    expect(run.score.actions.matched).toBe(1);
    // Both were said in Robert's run-on of some 17 s: each is timed by its clause, not by the segment's start.
    const cited = withSpeakers(run.summary, run.segments);
    const grace = cited.action_items.find((a) => a.owner === 'Grace Hill')!;
    const decision = cited.decisions.find((d) => /billing service/.test(d.text))!;
    const runOn = run.segments[decision.cite[0]!]!;
    expect(runOn.end - runOn.start).toBeGreaterThan(10);
    expect(grace.cite).toEqual(decision.cite);
    for (const item of [decision, grace]) {
      expect(item.speakers).toEqual(['Robert Brown']);
      expect(runOn.text).toContain(item.text.toLowerCase().replace(/[.]$/, ''));
      expect(item.start_seconds).toBeGreaterThan(runOn.start + 5);
      expect(item.start_seconds).toBeLessThan(runOn.end);
    }
    expect(grace.start_seconds).toBeGreaterThan(decision.start_seconds!);
  });

  it('keeps every TL;DR to at most three sentences and well short of the transcript', () => {
    for (const run of runs) {
      expect(run.tldrSentences).toBeLessThanOrEqual(3);
      expect(run.tldrWords).toBeLessThan(run.transcriptWords * 0.75);
    }
  });

  it(`holds precision and recall of decisions and action items at ${FLOOR} or more`, () => {
    const totals = totalsOf(runs);
    const report = runs.flatMap((r) => r.score.misses.map((m) => `${r.meeting}/${r.pauseSeconds}: ${m}`));
    expect({ precision: totals.precision >= FLOOR, recall: totals.recall >= FLOOR, report }).toEqual({
      precision: true,
      recall: true,
      report: expect.any(Array),
    });
  });
});
