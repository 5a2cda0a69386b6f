// `npm test`'s jest: the `unit` project first with two workers (jest's default on 2 cores is one), then every other
// project with jest's default (cores - 1; on 2 cores one file at a time, as the browser and media tests need). Both runs
// always run; exits 1 if either failed; ends with one summary line for both ("jest: N passed, N failed, N skipped",
// test/support/summary-reporter.js). With arguments (`npm test -- <args>`) it is one plain `jest <args>`, as before.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const jest = path.join(root, 'node_modules', 'jest', 'bin', 'jest.js');
const args = process.argv.slice(2);
const cores = os.availableParallelism?.() ?? os.cpus().length;
const summaryFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-jest-')), 'summary.jsonl');

/** Runs jest with `jestArgs` in the repository root; returns its exit code. */
function run(jestArgs, env = process.env) {
  const result = spawnSync(process.execPath, [jest, ...jestArgs], { cwd: root, stdio: 'inherit', env });
  if (result.error) process.stderr.write(`jest-ci: could not run jest: ${result.error.message}\n`);
  return result.status ?? 1;
}

if (args.length > 0) process.exit(run(args));
const env = { ...process.env, SVC_JEST_SUMMARY_FILE: summaryFile };
const unit = run(['--selectProjects', 'unit', ...(cores >= 2 ? ['--maxWorkers=2'] : [])], env);
const rest = run(['--ignoreProjects', 'unit'], env);
const runs = fs.existsSync(summaryFile)
  ? fs
      .readFileSync(summaryFile, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
  : [];
const total = (key) => runs.reduce((sum, counts) => sum + counts[key], 0);
process.stderr.write(`jest: ${total('passed')} passed, ${total('failed')} failed, ${total('skipped')} skipped\n`);
fs.rmSync(path.dirname(summaryFile), { recursive: true, force: true });
process.exit(unit !== 0 || rest !== 0 || runs.length < 2 ? 1 : 0);
