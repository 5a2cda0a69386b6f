/**
 * Webhooks and the event feed, measured with the real service code in-process on loopback, started
 * through the service's own bootstrap: (a) throughput.ts, (b) latency.ts and (c) feed.ts, in that
 * order, or only the subjects named on the command line. See bench/README.md.
 */
import { cleanUpOnExit, machine, runMain } from '../support';
import { feed } from './feed';
import { workerSettings } from './instance';
import { latency } from './latency';
import { Checks, type Subject } from './subject';
import { throughput } from './throughput';

/** Every subject, in the order a full run measures them. */
const SUBJECTS: readonly Subject[] = [throughput, latency, feed];
/** The whole run is stopped (exit 1) if it takes longer than this. */
const RUN_DEADLINE_MS = 6 * 60_000;

/** The subjects named in `names` (all of them when none is named), in their run order. */
function selectSubjects(names: string[]): Subject[] {
  const unknown = names.filter((name) => !SUBJECTS.some((subject) => subject.name === name));
  if (unknown.length > 0) {
    throw new Error(`unknown subject(s) ${unknown.join(', ')}; choose from ${SUBJECTS.map((subject) => subject.name).join(', ')}`);
  }
  return names.length === 0 ? [...SUBJECTS] : SUBJECTS.filter((subject) => names.includes(subject.name));
}

/** Runs the selected subjects one after the other and prints the report; exits 1 on a correctness failure. */
async function main(): Promise<void> {
  cleanUpOnExit(RUN_DEADLINE_MS);
  const started = performance.now();
  const subjects = selectSubjects(process.argv.slice(2));
  const checks = new Checks();
  const reports = [];
  for (const subject of subjects) reports.push(await subject.run(checks));
  const settings = workerSettings();
  process.stdout.write(
    `\n${machine()}; worker settings (defaults): concurrency ${settings.concurrency}, ` +
      `${settings.perEndpointConcurrency} per endpoint, timeout ${settings.timeoutMs} ms; http webhook URLs allowed (loopback)\n\n` +
      reports.map((report) => `${report.section}\n\n`).join('') +
      `Targets:\n${reports.map((report) => report.target).join('\n')}\n\n` +
      `The run took ${Math.round((performance.now() - started) / 1000)} s.\n`,
  );
  if (checks.failures.length > 0) {
    process.stderr.write(`\nFAILED (correctness):\n${checks.failures.map((f) => `- ${f}`).join('\n')}\n`);
    process.exitCode = 1;
  }
}

runMain(main);
