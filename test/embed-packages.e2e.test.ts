/**
 * The embed packages as a customer gets them: `npm pack` each (its prepack builds dist and the .d.ts), install both
 * tarballs into a fresh project without the network, typecheck a consumer against their types (and a wrong one
 * fails), import them in Node; and the entries stay browser-safe (no Node imports in the sources or the builds).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const REPO_ROOT = path.resolve(__dirname, '..');
const PACKAGES = ['embed/sdk', 'embed/react'];
const TSC = path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc');

/** What `npm pack --json` reports for one package. */
interface PackResult {
  name: string;
  version: string;
  filename: string;
  files: { path: string }[];
}

/** Packs the package in `dir` into `destination`; npm runs its prepack (the build). */
async function pack(dir: string, destination: string): Promise<PackResult> {
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', destination], { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
  // The build's own output comes before npm's JSON.
  const json = stdout.slice(stdout.search(/^\[/m));
  return (JSON.parse(json) as PackResult[])[0]!;
}

/** Runs tsc on a project in `dir` (errors name files relative to it); resolves with its exit code and output instead of throwing. */
async function typecheck(dir: string, project: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await run(process.execPath, [TSC, '-p', project, '--pretty', 'false'], { cwd: dir });
    return { code: 0, output: stdout };
  } catch (err) {
    const failed = err as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

/**
 * Copies the packages (without dist/) into `root`, beside copies of the tsconfigs they extend and links to the repo's
 * node_modules (with `@svc/embed` pointing at the copy): packing builds there, so it never rewrites the repo's own
 * dist/ that the service and the browser tests serve meanwhile.
 */
function copyPackages(root: string): void {
  fs.mkdirSync(root, { recursive: true });
  for (const file of ['tsconfig.base.json', 'tsconfig.dom.json']) fs.copyFileSync(path.join(REPO_ROOT, file), path.join(root, file));
  for (const dir of PACKAGES) {
    const source = path.join(REPO_ROOT, dir);
    fs.cpSync(source, path.join(root, dir), {
      recursive: true,
      filter: (file) => !/^(dist|node_modules)\b/.test(path.relative(source, file)),
    });
  }
  const modules = path.join(root, 'node_modules');
  fs.mkdirSync(path.join(modules, '@svc'), { recursive: true });
  for (const entry of fs.readdirSync(path.join(REPO_ROOT, 'node_modules')))
    if (entry !== '@svc') fs.symlinkSync(path.join(REPO_ROOT, 'node_modules', entry), path.join(modules, entry), 'dir');
  fs.symlinkSync(path.join(root, 'embed/sdk'), path.join(modules, '@svc/embed'), 'dir');
}

function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
}

describe('the embed packages, packed and installed into a fresh project', () => {
  let workDir: string;
  let consumerDir: string;
  let sdkPack: PackResult;
  let reactPack: PackResult;

  beforeAll(async () => {
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-embed-packages-'));
    const buildRoot = path.join(workDir, 'build');
    copyPackages(buildRoot);
    sdkPack = await pack(path.join(buildRoot, 'embed/sdk'), workDir);
    reactPack = await pack(path.join(buildRoot, 'embed/react'), workDir);
    consumerDir = path.join(workDir, 'consumer');
    fs.mkdirSync(consumerDir);
    writeFiles(consumerDir, {
      'package.json': JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
      // Strict, and checking the packages' declarations too (skipLibCheck off).
      'tsconfig.json': JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          lib: ['es2022', 'dom'],
          jsx: 'react-jsx',
          types: [],
          noEmit: true,
          skipLibCheck: false,
        },
      }),
      'tsconfig.bundler.json': JSON.stringify({
        extends: './tsconfig.json',
        compilerOptions: { module: 'esnext', moduleResolution: 'bundler' },
      }),
      'tsconfig.good.json': JSON.stringify({ extends: './tsconfig.json', files: ['esm.ts', 'react.tsx'] }),
      'tsconfig.good-bundler.json': JSON.stringify({ extends: './tsconfig.bundler.json', files: ['esm.ts', 'react.tsx'] }),
    });
    // Offline, with an empty cache and an unreachable registry: the two tarballs must be all it takes. React is a peer
    // the customer brings; here it is linked from the monorepo (with its types) instead of downloaded.
    await run(
      'npm',
      [
        'install',
        '--offline',
        '--no-package-lock',
        '--legacy-peer-deps',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        '--cache',
        path.join(workDir, 'npm-cache'),
        '--registry',
        'http://127.0.0.1:9/',
        path.join(workDir, sdkPack.filename),
        path.join(workDir, reactPack.filename),
      ],
      { cwd: consumerDir },
    );
    fs.mkdirSync(path.join(consumerDir, 'node_modules/@types'), { recursive: true });
    for (const name of ['react', '@types/react'])
      fs.symlinkSync(path.join(REPO_ROOT, 'node_modules', name), path.join(consumerDir, 'node_modules', name), 'dir');
  }, 240_000);

  afterAll(() => {
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('@svc/embed packs its ES module, its script-tag build and its declarations, and nothing of its sources', () => {
    expect(sdkPack).toMatchObject({ name: '@svc/embed', version: '0.1.0' });
    const files = sdkPack.files.map((f) => f.path);
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'LICENSE',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/svc-embed.js',
        'dist/protocol.d.ts',
      ]),
    );
    expect(files.filter((f) => !f.startsWith('dist/') && !['package.json', 'README.md', 'LICENSE'].includes(f))).toEqual([]);
  });

  it('@svc/embed-react packs its module and declarations, and depends only on @svc/embed with react as a peer', () => {
    expect(reactPack).toMatchObject({ name: '@svc/embed-react', version: '0.1.0' });
    const files = reactPack.files.map((f) => f.path);
    expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts']));
    expect(files.filter((f) => !f.startsWith('dist/') && !['package.json', 'README.md', 'LICENSE'].includes(f))).toEqual([]);
    const manifest = JSON.parse(fs.readFileSync(path.join(consumerDir, 'node_modules/@svc/embed-react/package.json'), 'utf8'));
    expect(manifest).toMatchObject({ license: 'MIT', dependencies: { '@svc/embed': '0.1.0' }, peerDependencies: { react: '>=18' } });
    const sdkManifest = JSON.parse(fs.readFileSync(path.join(consumerDir, 'node_modules/@svc/embed/package.json'), 'utf8'));
    expect(sdkManifest).toMatchObject({ license: 'MIT' });
    expect(sdkManifest.dependencies).toBeUndefined();
  });

  it('a TypeScript consumer typechecks against the installed declarations (NodeNext and bundler resolution)', async () => {
    writeFiles(consumerDir, {
      'esm.ts': `import { SvcMeeting, EMBED_PROTOCOL_VERSION, type EmbedEvent, type SvcMeetingOptions } from '@svc/embed';

const options: SvcMeetingOptions = {
  baseUrl: 'https://meet.example.com',
  container: '#room',
  joinToken: 'svc_et_example',
  locale: 'de',
  theme: 'dark',
  features: { chat: false, participants: true, screenshare: false },
  onEvent: (event: EmbedEvent) => console.log(event.type),
};
const meeting = new SvcMeeting(options);
const stop: () => void = meeting.on('joined', (event) => console.log(event.participant.name, event.meeting.code));
meeting.on('media', (event) => console.log(event.kind === 'video', event.on));
meeting.on('error', (event) => console.log(event.reason));
meeting.mute();
meeting.mute('video');
meeting.unmute('audio');
meeting.toggleChat();
meeting.setTheme('light');
meeting.leave();
stop();
const frame: HTMLIFrameElement = meeting.iframe;
const version: 1 = EMBED_PROTOCOL_VERSION;
console.log(frame.src, version);
meeting.destroy();
`,
      'react.tsx': `import { useRef } from 'react';
import { SvcMeeting, type SvcMeetingHandle } from '@svc/embed-react';

export function MeetingPage({ token }: { token: string }) {
  const ref = useRef<SvcMeetingHandle>(null);
  return (
    <div>
      <button onClick={() => ref.current?.mute()}>Mute</button>
      <button onClick={() => ref.current?.leave()}>Leave</button>
      <SvcMeeting
        ref={ref}
        baseUrl="https://meet.example.com"
        joinToken={token}
        theme="system"
        className="meeting"
        style={{ height: 600 }}
        onEvent={(event) => {
          if (event.type === 'left') console.log(event.reason);
        }}
      />
    </div>
  );
}
`,
    });
    for (const project of ['tsconfig.good.json', 'tsconfig.good-bundler.json']) {
      const result = await typecheck(consumerDir, project);
      expect({ project, ...result }).toEqual({ project, code: 0, output: '' });
    }
  }, 120_000);

  it('wrong options fail to typecheck (the declarations are real types, not any)', async () => {
    const wrongLines = {
      'wrong.ts': [
        `import { SvcMeeting } from '@svc/embed';`,
        `const meeting = new SvcMeeting({ baseUrl: 'https://meet.example.com', container: '#room', meetingCode: 'abc-defg-hij', theme: 'blue' });`,
        `new SvcMeeting({ baseUrl: 'https://meet.example.com', container: 42, meetingCode: 'abc-defg-hij' });`,
        `new SvcMeeting({ container: '#room', meetingCode: 'abc-defg-hij' });`,
        `meeting.mute('screen');`,
        `meeting.on('joined', (event) => event.count);`,
      ],
      'wrong.tsx': [
        `import { useRef } from 'react';`,
        `import { SvcMeeting, type SvcMeetingHandle } from '@svc/embed-react';`,
        `export function Page() {`,
        `  const ref = useRef<SvcMeetingHandle>(null);`,
        `  ref.current?.mute('screen');`,
        `  return <SvcMeeting ref={ref} baseUrl="https://meet.example.com" meetingCode="abc-defg-hij" features={{ chat: 'no' }} />;`,
        `}`,
      ],
    };
    writeFiles(consumerDir, {
      'wrong.ts': wrongLines['wrong.ts'].join('\n') + '\n',
      'wrong.tsx': wrongLines['wrong.tsx'].join('\n') + '\n',
      'tsconfig.wrong.json': JSON.stringify({ extends: './tsconfig.json', files: ['wrong.ts', 'wrong.tsx'] }),
    });
    const result = await typecheck(consumerDir, 'tsconfig.wrong.json');
    expect(result.code).not.toBe(0);
    const errorLines = new Set([...result.output.matchAll(/^(wrong\.tsx?)\((\d+),\d+\): error TS\d+/gm)].map((m) => `${m[1]}:${m[2]}`));
    // The output goes along so a failure shows what tsc said.
    expect({ errorLines: [...errorLines].sort(), output: result.output }).toEqual({
      errorLines: ['wrong.ts:2', 'wrong.ts:3', 'wrong.ts:4', 'wrong.ts:5', 'wrong.ts:6', 'wrong.tsx:5', 'wrong.tsx:6'],
      output: expect.any(String),
    });
  }, 120_000);

  it('both packages load as ES modules from the installed tarballs', async () => {
    const script = `const sdk = await import('@svc/embed'); const react = await import('@svc/embed-react');
console.log(JSON.stringify({ sdk: typeof sdk.SvcMeeting, version: sdk.EMBED_PROTOCOL_VERSION, react: typeof react.SvcMeeting }));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: consumerDir });
    expect(JSON.parse(stdout)).toEqual({ sdk: 'function', version: 1, react: 'object' });
  });

  it.each<[string, string[]]>([
    ['@svc/embed/dist/index.js', []],
    ['@svc/embed/dist/svc-embed.js', []],
    ['@svc/embed-react/dist/index.js', ['@svc/embed', 'react', 'react/jsx-runtime']],
  ])('the installed %s imports only %j, never Node, and has no require()', (file, allowed) => {
    const text = fs.readFileSync(path.join(consumerDir, 'node_modules', file), 'utf8');
    expect(text).not.toMatch(/\brequire\s*\(/);
    expect(text).not.toMatch(/\bprocess\.env\b/);
    expect([...new Set(importedSpecifiers(text))].filter((specifier) => !allowed.includes(specifier))).toEqual([]);
  });

  it('the script-tag build defines the global SvcEmbed with SvcMeeting', () => {
    const text = fs.readFileSync(path.join(consumerDir, 'node_modules/@svc/embed/dist/svc-embed.js'), 'utf8');
    expect(text).toMatch(/^var SvcEmbed\s*=/);
    expect(text).toContain('SvcMeeting');
  });
});

/** The module specifiers a JavaScript or TypeScript text imports or requires. */
function importedSpecifiers(text: string): string[] {
  const patterns = [
    /\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]/g,
  ];
  return patterns.flatMap((pattern) => [...text.matchAll(pattern)].map((m) => m[1]!));
}

describe('the embed sources stay browser-safe', () => {
  const nodeModules = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);

  it('no source of the packages imports a Node module', () => {
    const sources = PACKAGES.flatMap((dir) =>
      fs.readdirSync(path.join(REPO_ROOT, dir, 'src')).map((name) => path.join(REPO_ROOT, dir, 'src', name)),
    );
    expect(sources.length).toBeGreaterThanOrEqual(4);
    const nodeImports = sources.flatMap((file) =>
      importedSpecifiers(fs.readFileSync(file, 'utf8'))
        .filter((specifier) => nodeModules.has(specifier) || specifier.startsWith('node:'))
        .map((specifier) => `${path.relative(REPO_ROOT, file)}: ${specifier}`),
    );
    expect(nodeImports).toEqual([]);
  });
});
