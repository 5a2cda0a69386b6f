// Builds the package as n8n loads it, as `n8n-node build` does: tsc (nodes, credentials and their codex .node.json files) into dist/, then the icons.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const dist = path.join(root, 'dist');
const assets = /\.(svg|png)$/;

fs.rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.json')], { stdio: 'inherit' });
for (const dir of ['icons', 'nodes', 'credentials']) {
  for (const file of fs.readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })) {
    if (!assets.test(file)) continue;
    fs.mkdirSync(path.dirname(path.join(dist, dir, file)), { recursive: true });
    fs.copyFileSync(path.join(root, dir, file), path.join(dist, dir, file));
  }
}
