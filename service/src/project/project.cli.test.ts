import fs from 'node:fs';
import path from 'node:path';
import { startTestProject, type TestProject } from '@svc/service/testing';
import { ProjectDatabase } from './project.database';
import { runProjectCli } from './project.cli';
import { verifyJwt } from './project.keys';
import { serveLocalSql } from './project.socket';

describe('svc project', () => {
  let p: TestProject;
  let out: string[];
  let err: string[];
  const io = { out: (t: string) => out.push(t), err: (t: string) => err.push(t) };
  const secret = 'cli-test-secret-0123456789-0123456789';
  const run = (...argv: string[]) => runProjectCli(argv, p.project, p.dataDir, io);

  beforeAll(async () => {
    p = await startTestProject('pglite', { secret });
  }, 180_000);
  afterAll(async () => {
    await p?.close();
  }, 60_000);
  beforeEach(() => {
    out = [];
    err = [];
  });

  it('keys prints the project URL and the anon and service_role JWTs', async () => {
    expect(await run('keys', '--json')).toBe(0);
    const keys = JSON.parse(out.join('')) as { url: string; anon_key: string; service_role_key: string };
    expect(keys.url).toBe('http://127.0.0.1/project');
    expect(verifyJwt(keys.anon_key, secret, Date.now() / 1000).role).toBe('anon');
    expect(verifyJwt(keys.service_role_key, secret, Date.now() / 1000).role).toBe('service_role');
  });

  it('token mints a user JWT with sub, role and expiry', async () => {
    const sub = '33333333-3333-4333-8333-333333333333';
    expect(await runProjectCli(['token', '--sub', sub, '--expires-in', '2h'], p.project, p.dataDir, io, 1_700_000_000_000)).toBe(0);
    const claims = verifyJwt(out.join('').trim(), secret, 1_700_000_000);
    expect(claims).toMatchObject({ sub, role: 'authenticated', iat: 1_700_000_000, exp: 1_700_007_200 });
    expect(await run('token', '--sub', 'nope')).toBe(2);
    expect(await run('token', '--sub', sub, '--role', 'postgres')).toBe(2);
  });

  it('sql runs SQL as the owner, from an argument or a file, and reports errors', async () => {
    expect(await run('sql', 'create table cli_t(id int primary key, v text); insert into cli_t values (1, $$a$$)')).toBe(0);
    const file = path.join(p.dataDir, 'q.sql');
    fs.writeFileSync(file, 'select id, v from cli_t;');
    expect(await run('sql', '-f', file)).toBe(0);
    expect(JSON.parse(out.join(''))).toEqual([{ id: 1, v: 'a' }]);
    expect(await run('sql', 'select * from nowhere')).toBe(1);
    expect(err.join('')).toMatch(/relation "nowhere" does not exist/);
    expect(await run('sql')).toBe(2);
  });

  it('sql warns on stderr, in one line, about public tables whose row-level security is off', async () => {
    expect(
      await run(
        'sql',
        'create table cli_open(id int); create table cli_guarded(id int); alter table cli_guarded enable row level security',
      ),
    ).toBe(0);
    const warnings = err
      .join('')
      .split('\n')
      .filter((l) => l.startsWith('svc: warning:'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/row-level security off, so anyone with the anon key reads and writes them: .*public\.cli_open/);
    expect(warnings[0]).not.toContain('cli_guarded');
    err = [];
    expect(await run('sql', 'alter table cli_open enable row level security; alter table cli_t enable row level security')).toBe(0);
    expect(err.join('')).not.toContain('warning');
    err = [];
    expect(await run('sql', 'select 1 as one')).toBe(0);
    expect(err.join('')).toBe('');
  });

  it('sends SQL to a running service through its socket instead of opening the database a second time', async () => {
    const server = await serveLocalSql(p.project, p.dataDir);
    try {
      const other = new ProjectDatabase({
        dataDir: p.dataDir,
        baseUrl: 'http://x',
        databaseUrl: undefined,
        jwtSecret: secret,
        statementTimeoutMs: 1000,
      });
      const start = jest.spyOn(other, 'start');
      expect(await runProjectCli(['sql', 'select count(*)::int as n from cli_t'], other, p.dataDir, io)).toBe(0);
      expect(JSON.parse(out.join(''))).toEqual([{ n: 1 }]);
      expect(start).not.toHaveBeenCalled();
      expect(fs.statSync(path.join(p.dataDir, 'project.sock')).mode & 0o077).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('refuses to open an embedded database another process holds', async () => {
    const other = new ProjectDatabase({
      dataDir: p.dataDir,
      baseUrl: 'http://x',
      databaseUrl: undefined,
      jwtSecret: secret,
      statementTimeoutMs: 1000,
    });
    await expect(
      (async () => {
        const lock = path.join(ProjectDatabase.dataDirOf(p.dataDir), 'svc.lock');
        const mine = fs.readFileSync(lock, 'utf8');
        fs.writeFileSync(lock, String(process.ppid));
        try {
          await other.start();
        } finally {
          fs.writeFileSync(lock, mine);
        }
      })(),
    ).rejects.toThrow(/in use by process/);
  });
});
