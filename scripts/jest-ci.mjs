// `npm test`'s jest: the `unit` project first with two workers (jest's default on 2 cores is one), then the
// `connectors`, `e2e` and `bench` projects with jest's default (cores - 1; on 2 cores one file at a time, as the browser
// and media tests need). Both runs always run; exits 1 if either failed. With arguments (`npm test -- <args>`) it is
// one plain `jest <args>`, as before.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const jest = path.join(root, 'node_modules', 'jest', 'bin', 'jest.js');
const args = process.argv.slice(2);
const cores = os.availableParallelism?.() ?? os.cpus().length;

/** Runs jest with `jestArgs` in the repository root; returns its exit code. */
function run(jestArgs) {
  const result = spawnSync(process.execPath, [jest, ...jestArgs], { cwd: root, stdio: 'inherit' });
  if (result.error) process.stderr.write(`jest-ci: could not run jest: ${result.error.message}\n`);
  return result.status ?? 1;
}

if (args.length > 0) process.exit(run(args));
const unit = run(['--selectProjects', 'unit', ...(cores >= 2 ? ['--maxWorkers=2'] : [])]);
const rest = run(['--selectProjects', 'connectors', 'e2e', 'bench']);
process.exit(unit !== 0 || rest !== 0 ? 1 : 0);
