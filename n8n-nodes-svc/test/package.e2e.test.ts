import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { call, startService, svcCli, tempDataDir, type ServiceProcess } from '../../test/support/service-process';
import {
  createN8nHome,
  ensureTool,
  INSTALL_TIMEOUT_MS,
  PACKAGE_DIR,
  waitFor,
  type CliResult,
  type N8nHome,
  type N8nServer,
} from './support/n8n';
import { ownerSession, type N8nSession } from './support/n8n-rest';
import { manualTrigger, svcCredentialExport, svcNode, workflowExport } from './support/workflows';

/** The package's sources as its own repository would hold them: no tests, no build output, no monorepo around them. */
const SOURCES = [
  'package.json',
  'tsconfig.json',
  'eslint.config.mjs',
  'README.md',
  'LICENSE.md',
  'credentials',
  'nodes',
  'icons',
  'scripts',
];
const REPO_ROOT = path.resolve(PACKAGE_DIR, '..');

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) => fs.statSync(path.join(dir, file)).isFile());
}

describe('the package on its own: built, linted and packed outside the monorepo, installed from the tarball as n8n installs community packages', () => {
  let work: string;
  let standalone: string;
  let cliBin: string;
  let n8nBin: string;
  let tarball: string;
  let dataDir: string | undefined;
  let svc: ServiceProcess | undefined;
  let n8n: N8nHome | undefined;
  let server: N8nServer | undefined;

  const inStandalone = (command: string, args: string[]): Promise<CliResult> => {
    const env: NodeJS.ProcessEnv = { ...process.env, npm_config_user_agent: 'npm' };
    // Under jest's NODE_ENV=test, eslint-plugin-n8n-nodes-base checks names as in its own fixtures.
    delete env.NODE_ENV;
    return new Promise((resolve) => {
      execFile(command, args, { cwd: standalone, env, timeout: 180_000, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
        const clean = (text: string) => text.replace(/\x1b\[[0-9;?]*[a-zA-Z]/g, ''); // eslint-disable-line no-control-regex
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout: clean(stdout), stderr: clean(stderr) });
      });
    });
  };

  beforeAll(async () => {
    cliBin = await ensureTool('node-cli');
    n8nBin = await ensureTool('n8n');
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-package-'));
    standalone = path.join(work, 'n8n-nodes-svc');
    for (const entry of SOURCES) fs.cpSync(path.join(PACKAGE_DIR, entry), path.join(standalone, entry), { recursive: true });
    // The package's tools (typescript, n8n-workflow, @n8n/node-cli with its eslint) come from the cached @n8n/node-cli
    // install, as `npm install` of its tools would provide them; the cache itself is only read.
    fs.symlinkSync(path.resolve(cliBin, '../..'), path.join(standalone, 'node_modules'));
  }, INSTALL_TIMEOUT_MS);

  afterAll(async () => {
    await server?.stop();
    await svc?.stop();
    n8n?.remove();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    if (work) fs.rmSync(work, { recursive: true, force: true });
  }, 30_000);

  it('is outside any npm workspace', () => {
    expect(path.relative(REPO_ROOT, standalone).startsWith('..')).toBe(true);
    expect(fs.existsSync(path.join(work, 'package.json'))).toBe(false);
    const manifest = JSON.parse(fs.readFileSync(path.join(standalone, 'package.json'), 'utf8'));
    expect(manifest.repository.directory).toBeUndefined();
    expect(manifest.scripts).toMatchObject({ lint: 'n8n-node lint', release: 'n8n-node release', prepublishOnly: 'n8n-node prerelease' });
  });

  it('has a release workflow that lints, builds and publishes the same standalone copy with npm provenance', () => {
    const workflow = fs.readFileSync(path.join(REPO_ROOT, '.github/workflows/n8n-nodes-svc-publish.yml'), 'utf8');
    expect(workflow).toMatch(/^\s+id-token: write$/m);
    expect(workflow).toMatch(/^\s+run: cp -R n8n-nodes-svc "\$RUNNER_TEMP\/n8n-nodes-svc"$/m);
    const steps = [...workflow.matchAll(/^\s+run: (npm .*)$/gm)].map((m) => m[1]!);
    expect(steps.filter((step) => !step.startsWith('npm install'))).toEqual([
      'npm run lint',
      'npm run build',
      'npm publish --provenance --access public',
    ]);
  });

  it('builds with `npm run build`, to the same files `n8n-node build` makes', async () => {
    const built = await inStandalone('npm', ['run', 'build']);
    expect([built.code, built.stderr.match(/error TS\d+.*/g) ?? []]).toEqual([0, []]);
    const ours = filesUnder(path.join(standalone, 'dist')).sort();
    expect(ours).toEqual(
      expect.arrayContaining([
        'nodes/SvcFeedTrigger/SvcFeedTrigger.node.js',
        'nodes/SvcFeedTrigger/SvcFeedTrigger.node.json',
        'icons/svc.svg',
      ]),
    );

    fs.renameSync(path.join(standalone, 'dist'), path.join(work, 'dist-npm-run-build'));
    const n8nNodeBuild = await inStandalone(cliBin, ['build']);
    expect([n8nNodeBuild.code, n8nNodeBuild.stdout]).toEqual([0, expect.stringContaining('Build successful')]);
    expect(filesUnder(path.join(standalone, 'dist')).sort()).toEqual(ours);
    fs.rmSync(path.join(standalone, 'dist'), { recursive: true });
    fs.renameSync(path.join(work, 'dist-npm-run-build'), path.join(standalone, 'dist'));
  }, 240_000);

  it('lints with `npm run lint` (n8n-node lint, strict mode, n8n Cloud rules): no error, no warning', async () => {
    const lint = await inStandalone('npm', ['run', 'lint']);
    const output = lint.stdout + lint.stderr;
    expect(output).toContain('n8n-node lint');
    expect(output.match(/^\s*\d+:\d+\s+(error|warning)\s.*$/gm) ?? []).toEqual([]);
    expect(lint.code).toBe(0);
  }, 180_000);

  it('packs with `npm pack` to a tarball of dist/, the README, the license and package.json only', async () => {
    const packed = await inStandalone('npm', ['pack', '--json', `--pack-destination=${work}`]);
    expect(packed.code).toBe(0);
    const [report] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('[')));
    const files = (report.files as { path: string }[]).map((f) => f.path);
    expect(files.filter((f) => !f.startsWith('dist/')).sort()).toEqual(['LICENSE.md', 'README.md', 'package.json']);
    expect(files).toEqual(
      expect.arrayContaining([
        'dist/nodes/Svc/Svc.node.js',
        'dist/nodes/SvcFeedTrigger/SvcFeedTrigger.node.js',
        'dist/credentials/SvcApi.credentials.js',
      ]),
    );
    tarball = path.join(work, report.filename);
    expect(fs.existsSync(tarball)).toBe(true);
  }, 60_000);

  it(
    'loads in n8n 2.8.4 from the installed tarball and runs against the real service',
    async () => {
      dataDir = tempDataDir();
      const key = svcCli(dataDir, 'keys', 'create', '--name', 'n8n', '--scopes', 'all').stdout.trim();
      svc = await startService(dataDir);
      n8n = await createN8nHome(n8nBin, { tarball });
      const installed = path.join(n8n.dir, '.n8n/nodes/node_modules/n8n-nodes-svc');
      expect(fs.existsSync(path.join(installed, 'dist/nodes/SvcFeedTrigger/SvcFeedTrigger.node.js'))).toBe(true);
      expect(JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8')).peerDependencies).toBeUndefined();

      const workflow = workflowExport(
        'svcFromTarballE2e',
        'svc from the tarball',
        [
          manualTrigger(),
          svcNode(n8n.typePrefix, 'svc', 'Create Meeting', 1, {
            resource: 'meeting',
            operation: 'create',
            title: 'From the tarball',
            additionalFields: {},
          }),
        ],
        [['Start', 'Create Meeting']],
      );
      for (const args of [
        ['import:credentials', `--input=${n8n.writeJson('credentials.json', svcCredentialExport(svc.url, key))}`],
        ['import:workflow', `--input=${n8n.writeJson('workflow.json', workflow)}`],
      ]) {
        const result = await n8n.cli(args);
        expect([args[0], result.code]).toEqual([args[0], 0]);
      }
      server = await n8n.start();
      const session: N8nSession = await ownerSession(n8n.url);

      const nodeTypes = (await session.request('GET', '/types/nodes.json')).body as {
        name: string;
        displayName: string;
        polling?: boolean;
      }[];
      const ours = nodeTypes.filter((t) => t.name.startsWith('n8n-nodes-svc.')).map((t) => [t.name, t.displayName, t.polling ?? false]);
      expect(ours.sort()).toEqual([
        ['n8n-nodes-svc.svc', 'Svc', false],
        ['n8n-nodes-svc.svcFeedTrigger', 'Svc Feed Trigger', true],
        // The svc node again, as the tool an AI agent calls (usableAsTool).
        ['n8n-nodes-svc.svcTool', 'Svc Tool', false],
        ['n8n-nodes-svc.svcTrigger', 'Svc Trigger', false],
      ]);
      const credentialTypes = (await session.request('GET', '/types/credentials.json')).body as { name: string }[];
      expect(credentialTypes.map((c) => c.name)).toContain('svcApi');

      const workflowData = (await session.request('GET', '/rest/workflows/svcFromTarballE2e')).body.data;
      const run = await session.request('POST', '/rest/workflows/svcFromTarballE2e/run', {
        workflowData,
        triggerToStartFrom: { name: 'Start' },
      });
      expect(run.body.data.executionId).toEqual(expect.any(String));
      const created = async () =>
        (await call(svc!.url, 'GET', '/api/v1/public/meetings', key)).body.data.filter(
          (m: { title: string }) => m.title === 'From the tarball',
        );
      await waitFor(async () => (await created()).length === 1, 30_000, 'the meeting created by the installed node');
    },
    INSTALL_TIMEOUT_MS + 120_000,
  );
});
