import { COMMANDS, runCli } from './cli';
import { startTestCore } from './testing/core';

describe('svc CLI', () => {
  const core = startTestCore();
  const { services, clock } = core;
  const db = services.db;
  afterAll(() => core.dispose());

  function run(...argv: string[]) {
    return runWithStdin('', ...argv);
  }

  function runWithStdin(stdin: string, ...argv: string[]) {
    let out = '';
    let err = '';
    const code = runCli(argv, services, { out: (s) => (out += s), err: (s) => (err += s) }, stdin);
    return { code, out, err };
  }

  it('dashboard-link prints a one-time sign-in link that opens one session', () => {
    const { code, out } = run('dashboard-link');
    expect(code).toBe(0);
    expect(out).toMatch(/^http:\/\/localhost:0\/sign-in#token=\S+\n$/);
    const token = out.trim().split('#token=')[1]!;
    expect(services.dashboard.signInWithLink(token, 'cli-test').token).toMatch(/^svc_ds_/);
    expect(() => services.dashboard.signInWithLink(token, 'cli-test')).toThrow(/already used/);
    expect(run('dashboard-link', 'extra').code).toBe(2);
  });

  it('svc help, svc --help and svc help COMMAND list every command of the table the dispatcher uses, with its options', () => {
    const all = run('help');
    expect(all).toMatchObject({ code: 0, err: '' });
    expect(run('--help').out).toBe(all.out);
    for (const c of COMMANDS) expect(all.out).toMatch(new RegExp(`\\n  ${c.name} +${c.summary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n`));
    const one = run('help', 'keys', 'create');
    expect(one.code).toBe(0);
    expect(one.out).toContain('svc keys create --name NAME --scopes SCOPE[,SCOPE...] [--org ORG_ID] [--expires-in 30d]');
    expect(one.out).toMatch(/--rate-limit-per-minute N +This key’s own limit per minute/);
    expect(one.out).not.toContain('orgs list');
    expect(run('keys', 'create', '--help').out).toBe(one.out);
    const group = run('help', 'integrations').out;
    expect(group).toContain('svc integrations add-slack --token xoxb-... --channel C0123ABC --events TYPE[,TYPE...] [--org ORG_ID]');
    expect(group).toContain('svc integrations remove INTEGRATION_ID');
    expect(group).not.toContain('keys create');
    expect(run('help', 'project', 'sql').out).toContain('-f, --file FILE');
    expect(run('help', 'nope')).toMatchObject({ code: 2, out: '', err: expect.stringContaining('unknown command: nope') });
  });

  it('every command in the table runs: a usage error names the command and shows its own help', () => {
    for (const c of COMMANDS.filter((c) => c.run && c.options)) {
      const { code, err } = run(...c.name.split(' '), '--no-such-option');
      expect({ name: c.name, code }).toEqual({ name: c.name, code: 2 });
      expect(err).toContain(`svc ${c.name}`);
    }
  });

  it('users set-password reads the password from stdin; users list shows the owner', () => {
    expect(run('users', 'list').out).toMatch(/^usr_\S+ {2}owner@localhost {2}owner {2}Owner {2}\[My organization\]\n$/);
    const set = runWithStdin('a long enough password\n', 'users', 'set-password', 'owner@localhost');
    expect(set).toMatchObject({ code: 0, out: '' });
    expect(set.err).toContain('password set for owner@localhost');
    expect(services.dashboard.signInWithPassword('owner@localhost', 'a long enough password', 'cli-test').token).toMatch(/^svc_ds_/);
    expect(runWithStdin('short\n', 'users', 'set-password', 'owner@localhost')).toMatchObject({ code: 1 });
    expect(runWithStdin('', 'users', 'set-password', 'owner@localhost').code).toBe(2);
    expect(runWithStdin('a long enough password', 'users', 'set-password', 'nobody@example.com').err).toMatch(/not found/);
  });

  it('keys create prints only the key, with the scopes, organization, expiry and limits asked for', () => {
    const org = run('orgs', 'create', '--name', 'Acme').out.trim();
    expect(org).toMatch(/^org_/);
    const { code, out, err } = run(
      'keys',
      'create',
      '--name',
      'zapier',
      '--scopes',
      'meetings:read,webinars:write',
      '--org',
      org,
      '--expires-in',
      '30d',
      '--rate-limit-per-minute',
      '600',
    );
    expect(code).toBe(0);
    expect(err).toBe('');
    expect(out).toMatch(/^svc_sk_[0-9a-z]{52}\n$/);
    const row = services.identity.authenticate(out.trim())!.key;
    expect(row).toMatchObject({
      name: 'zapier',
      scopes: ['meetings:read', 'webinars:write'],
      organization_id: org,
      expires_at: new Date(clock.now() + 30 * 86_400_000).toISOString(),
      rate_limit_per_minute: 600,
      rate_limit_per_second: null,
    });
  });

  it('keys list shows keys without secrets; keys revoke takes effect at once', () => {
    const key = run('keys', 'create', '--name', 'temp', '--scopes', 'all').out.trim();
    const row = services.identity.authenticate(key)!.key;
    const listed = run('keys', 'list', '--json');
    expect(listed.out).not.toContain(key);
    expect(JSON.parse(listed.out)).toContainEqual(
      expect.objectContaining({ id: row.id, name: 'temp', key: `svc_sk_${row.lookup}…`, revoked_at: null }),
    );
    expect(run('keys', 'list').out).toContain(`${row.id}  svc_sk_${row.lookup}…  temp`);
    expect(run('keys', 'revoke', row.id).code).toBe(0);
    expect(services.identity.authenticate(key)?.key).toBeUndefined();
    expect(run('keys', 'revoke', row.id)).toMatchObject({ code: 1, err: expect.stringContaining('already revoked') });
  });

  it('integrations add-slack / add-teams / list / remove, with the token stored encrypted and never printed', () => {
    const token = 'xoxb-1234567890-abcdefghijklmnop';
    const slack = run(
      'integrations',
      'add-slack',
      '--token',
      token,
      '--channel',
      'C0MEETINGS',
      '--events',
      'meeting.ended,recording.ready',
    );
    expect(slack).toMatchObject({ code: 0, err: '' });
    expect(slack.out).toMatch(/^int_[0-9a-z]{26}\n$/);
    const teams = run(
      'integrations',
      'add-teams',
      '--url',
      'https://prod-1.westeurope.logic.azure.com/workflows/x?sig=s3cret',
      '--events',
      'all',
    );
    expect(teams.code).toBe(0);
    const listed = run('integrations', 'list');
    expect(listed.out).toContain(`${slack.out.trim()}  slack  C0MEETINGS (xoxb-…mnop)`);
    expect(listed.out).toContain('teams  prod-1.westeurope.logic.azure.com');
    const json = run('integrations', 'list', '--json').out;
    expect(json).not.toContain(token);
    expect(json).not.toContain('s3cret');
    expect(JSON.stringify(db.prepare('SELECT * FROM integrations').all())).not.toContain(token.slice(5));
    expect(run('integrations', 'remove', slack.out.trim()).code).toBe(0);
    expect(services.integrations.listAll().map((i) => i.kind)).toEqual(['teams']);
    expect(run('integrations', 'add-teams', '--url', 'https://10.0.0.1/x', '--events', 'all')).toMatchObject({
      code: 1,
      err: expect.stringContaining('webhook_url must point at a public host'),
    });
    expect(run('integrations', 'add-slack', '--token', token, '--channel', 'C1', '--events', 'meeting.exploded')).toMatchObject({
      code: 2,
      err: expect.stringContaining('unknown event type(s): meeting.exploded'),
    });
  });

  it.each([
    [['keys', 'create', '--scopes', 'all'], '--name is required'],
    [['keys', 'create', '--name', 'x'], '--scopes is required'],
    [['keys', 'create', '--name', 'x', '--scopes', 'meetings:admin'], 'unknown scope(s): meetings:admin'],
    [['keys', 'create', '--name', 'x', '--scopes', 'all', '--expires-in', '3 weeks'], '--expires-in must look like'],
    [['keys', 'create', '--name', 'x', '--scopes', 'all', '--org', 'org_nope'], 'no organization org_nope'],
    [['keys', 'create', '--name', 'x', '--scopes', 'all', '--bogus'], "Unknown option '--bogus'"],
    [['keys', 'revoke'], 'name the key id'],
    [['nothing'], 'unknown command'],
    [[], 'no command given'],
  ])('%j fails with usage (exit 2) and creates nothing', (argv, message) => {
    const before = services.keys.list().length;
    const { code, out, err } = run(...argv);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toContain(message);
    expect(err).toContain('Usage:');
    expect(services.keys.list()).toHaveLength(before);
  });

  it.each([
    ['an expiry too far away to be a date', ['--expires-in', '999999999999d'], /--expires-in/],
    ['an expiry past the longest allowed', ['--expires-in', '3651d'], /--expires-in/],
    ['a huge per-minute limit', ['--rate-limit-per-minute', '1' + '0'.repeat(30)], /--rate-limit-per-minute/],
    ['a per-minute limit past 2^53', ['--rate-limit-per-minute', '9007199254740993'], /--rate-limit-per-minute/],
    ['a huge per-second limit', ['--rate-limit-per-second', '99999999999'], /--rate-limit-per-second/],
    ['a hexadecimal number', ['--rate-limit-per-minute', '0x10'], /--rate-limit-per-minute/],
    ['an exponent', ['--rate-limit-per-second', '1e3'], /--rate-limit-per-second/],
    ['a fraction', ['--rate-limit-per-second', '2.0'], /--rate-limit-per-second/],
    ['padding', ['--rate-limit-per-second', ' 20'], /--rate-limit-per-second/],
  ])('keys create refuses %s with a usage error and no stack trace', (_what, flags, flag) => {
    const before = services.keys.list().length;
    const { code, out, err } = run('keys', 'create', '--name', 'bad', '--scopes', 'all', ...flags);
    expect({ code, out }).toEqual({ code: 2, out: '' });
    expect(err).toMatch(flag);
    expect(err).toContain('Usage:');
    expect(err).not.toMatch(/\n\s+at /);
    expect(services.keys.list()).toHaveLength(before);
  });

  it('keys create accepts the largest allowed values (the control)', () => {
    const { code } = run(
      'keys',
      'create',
      '--name',
      'edge',
      '--scopes',
      'all',
      '--expires-in',
      '3650d',
      '--rate-limit-per-minute',
      '1000000',
    );
    expect(code).toBe(0);
  });
});
