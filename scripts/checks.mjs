// `npm test`'s checks before jest: the commands of the `typecheck` and `lint` scripts (each split at ` && `), run
// side by side, as many at once as there are cores (at most 4), longest first. Each command's output is printed when
// it ends; exits 1 if any failed (all run to the end).
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const scripts = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts;
// Longest first (CPU seconds measured alone, each uses one core: prettier 28, tsc -p tsconfig.json 27, eslint 23, tsc
// -p tsconfig.dom.json 11; on 2 idle cores about 50 s instead of 90 one after the other).
const weight = (command) =>
  command.startsWith('prettier') ? 4 : command.includes('tsconfig.json') ? 3 : command.startsWith('eslint') ? 2 : 1;
const commands = ['typecheck', 'lint']
  .flatMap((name) => scripts[name].split(' && ').map((c) => c.trim()))
  .sort((a, b) => weight(b) - weight(a));
const env = { ...process.env, PATH: `${path.join(root, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH}` };
const lanes = Math.max(1, Math.min(4, os.availableParallelism?.() ?? os.cpus().length));

/** Runs one command through the shell, its stdout and stderr kept together; resolves with its exit code. */
function run(command) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(command, { cwd: root, env, shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    child.on('close', (code, signal) => {
      const status = code ?? 1;
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(`\n> ${command}  (${status === 0 ? 'ok' : `failed: ${signal ?? code}`}, ${seconds} s)\n`);
      process.stdout.write(Buffer.concat(chunks));
      resolve(status);
    });
  });
}

const queue = [...commands];
const failed = [];
await Promise.all(
  Array.from({ length: lanes }, async () => {
    for (let command = queue.shift(); command; command = queue.shift()) {
      if ((await run(command)) !== 0) failed.push(command);
    }
  }),
);
if (failed.length > 0) {
  process.stderr.write(`checks failed: ${failed.join('; ')}\n`);
  process.exit(1);
}
