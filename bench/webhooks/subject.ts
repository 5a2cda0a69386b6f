/** What main.ts and each subject of the webhooks benchmark exchange: the correctness checks and a report part. */
import { progress } from '../support';

/** Correctness failures of a run: each is reported at once and makes the exit code 1 (missed targets do not). */
export class Checks {
  private readonly failed: string[] = [];

  /** Records a correctness failure unless `ok`. */
  check(ok: boolean, message: string): void {
    if (!ok) {
      this.failed.push(message);
      progress(`FAILED: ${message}`);
    }
  }

  /** The failures recorded so far. */
  get failures(): readonly string[] {
    return this.failed;
  }
}

/** What a subject adds to the report: its section (title and table) and its target line. */
export interface SubjectReport {
  section: string;
  target: string;
}

/** One subject of the benchmark, run by main.ts under its name. */
export interface Subject {
  name: string;
  run(checks: Checks): Promise<SubjectReport>;
}
