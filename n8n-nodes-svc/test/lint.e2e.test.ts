import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ensureTool, INSTALL_TIMEOUT_MS, PACKAGE_DIR } from './support/n8n';

/** What the published package is made of, plus the configs `n8n-node lint` reads. */
const LINTED = ['package.json', 'tsconfig.json', 'eslint.config.mjs', 'credentials', 'nodes', 'icons'];

describe('the package passes `n8n-node lint` (@n8n/node-cli 0.48.3, strict mode, n8n Cloud rules)', () => {
  let bin: string;
  let workDir: string | undefined;

  beforeAll(async () => {
    bin = await ensureTool('node-cli');
  }, INSTALL_TIMEOUT_MS);

  afterAll(() => {
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('reports no error and no warning', async () => {
    // The lint runs `npm exec eslint` with the package's eslint.config.mjs, which imports @n8n/node-cli/eslint:
    // both resolve from a copy placed beside the cached CLI, whose node_modules the repo must not contain.
    const installDir = path.resolve(bin, '../../..');
    workDir = fs.mkdtempSync(path.join(installDir, 'lint-'));
    for (const entry of LINTED) fs.cpSync(path.join(PACKAGE_DIR, entry), path.join(workDir, entry), { recursive: true });
    fs.symlinkSync(path.join(installDir, 'node_modules'), path.join(workDir, 'node_modules'));

    const env: NodeJS.ProcessEnv = { ...process.env, npm_config_user_agent: 'npm' };
    // Under NODE_ENV=test (jest's) eslint-plugin-n8n-nodes-base checks names as in its own fixtures.
    delete env.NODE_ENV;
    const result = await new Promise<{ code: number | null; output: string }>((resolve) => {
      execFile(bin, ['lint'], { cwd: workDir, env, timeout: 120_000 }, (error, stdout, stderr) => {
        // eslint is run with FORCE_COLOR=1 whatever the caller says.
        const output = (stdout + stderr).replace(/\x1b\[[0-9;]*m/g, ''); // eslint-disable-line no-control-regex
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, output });
      });
    });

    expect(result.output).toContain('n8n-node lint');
    expect(result.output.match(/^\s*\d+:\d+\s+(error|warning)\s.*$/gm) ?? []).toEqual([]);
    expect(result.code).toBe(0);
  }, 150_000);
});
