// `npm run build`: builds every workspace (`npm run build --workspaces --if-present`), unless nothing changed since
// the last full build of this checkout. `npm install` builds (postinstall) and `npm test` builds again first; with
// no change in between, the second build is skipped (it took 67 s on 2 cores, 63 s of it CPU).
// "Nothing changed": the same content of every file git sees (tracked, and untracked but not ignored), the same
// installed packages (node_modules/.package-lock.json), the same node, and the build's outputs (each workspace's
// dist/, the dashboard's generated API types) exactly as that build left them (paths, sizes, mtimes), so a
// workspace built on its own since, or a deleted dist/, means a full build. Outside a git checkout it always builds.
// SVC_BUILD_FORCE=1 always builds. The record is node_modules/.cache/svc/build-stamp.json.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const stampFile = path.join(root, 'node_modules', '.cache', 'svc', 'build-stamp.json');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

/** The build's outputs: dist/ of each workspace with a build script, and files a build writes outside dist/. */
function outputPaths() {
  const built = manifest.workspaces.filter((ws) => {
    const file = path.join(root, ws, 'package.json');
    return fs.existsSync(file) && JSON.parse(fs.readFileSync(file, 'utf8')).scripts?.build;
  });
  return [...built.map((ws) => path.join(ws, 'dist')), 'web/dashboard/generated'];
}

/** Hash of the content of every file git sees, the installed package tree and the node version; null outside git. */
function inputsHash() {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, maxBuffer: 64 << 20 });
  if (listed.status !== 0) return null;
  const hash = createHash('sha256').update(process.version);
  const files = [...new Set(listed.stdout.toString('utf8').split('\0').filter(Boolean))].sort();
  for (const file of [...files, 'node_modules/.package-lock.json']) {
    const full = path.join(root, file);
    if (!fs.existsSync(full) || !fs.statSync(full).isFile()) continue; // deleted but still in the index
    hash.update(`${file}\0`).update(fs.readFileSync(full)).update('\0');
  }
  return hash.digest('hex');
}

/** Paths, sizes and mtimes of every output file; null when an output is missing or empty. */
function outputsFingerprint() {
  const hash = createHash('sha256');
  const walk = (dir) => {
    const entries = fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    let count = 0;
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) count += walk(full);
      else {
        const stat = fs.statSync(full);
        hash.update(`${path.relative(root, full)}\0${stat.size}\0${stat.mtimeMs}\n`);
        count += 1;
      }
    }
    return count;
  };
  for (const output of outputPaths()) {
    const full = path.join(root, output);
    if (!fs.existsSync(full) || walk(full) === 0) return null;
  }
  return hash.digest('hex');
}

function readStamp() {
  try {
    return JSON.parse(fs.readFileSync(stampFile, 'utf8'));
  } catch {
    return null;
  }
}

const before = inputsHash();
const stamp = process.env.SVC_BUILD_FORCE === '1' ? null : readStamp();
if (before && stamp && stamp.inputs === before && stamp.outputs === outputsFingerprint()) {
  process.stdout.write('build: up to date (no change since the last full build; SVC_BUILD_FORCE=1 builds anyway)\n');
  process.exit(0);
}

fs.rmSync(stampFile, { force: true });
const npm = process.env.npm_execpath
  ? { cmd: process.execPath, args: [process.env.npm_execpath] }
  : { cmd: process.platform === 'win32' ? 'npm.cmd' : 'npm', args: [] };
const run = spawnSync(npm.cmd, [...npm.args, 'run', 'build', '--workspaces', '--if-present'], { cwd: root, stdio: 'inherit' });
if (run.status !== 0) {
  // npm could not be started (run.error) or was killed: say which, instead of exiting 1 with nothing on stderr.
  if (run.error) process.stderr.write(`build: could not run npm: ${run.error.message}\n`);
  else if (run.signal) process.stderr.write(`build: npm was stopped by ${run.signal}\n`);
  process.exit(run.status ?? 1);
}

// Recorded only when no file changed during the build (else the outputs may be of older sources).
const inputs = inputsHash();
const outputs = outputsFingerprint();
if (inputs && inputs === before && outputs) {
  fs.mkdirSync(path.dirname(stampFile), { recursive: true });
  fs.writeFileSync(stampFile, `${JSON.stringify({ inputs, outputs, at: new Date().toISOString() })}\n`);
}
