import { runCli } from '../cli';
import { startTestCore } from '../testing/core';
import { INVITE_TTL_MS } from './team.service';

describe('svc users: invite, list, set-role, remove', () => {
  const core = startTestCore();
  const { services, clock } = core;
  afterAll(() => core.dispose());

  function run(...argv: string[]) {
    let out = '';
    let err = '';
    const code = runCli(argv, services, { out: (s) => (out += s), err: (s) => (err += s) });
    return { code, out, err };
  }

  it('invite prints only the one-time link, at the base URL; accepting it makes a teammate with the role', () => {
    const invited = run('users', 'invite', 'dev@example.com', '--role', 'admin');
    expect(invited.code).toBe(0);
    expect(invited.out).toMatch(/^http:\/\/localhost:0\/invite#token=svc_inv_\S+\n$/);
    expect(invited.err).toMatch(/invited dev@example.com as admin to My organization/);
    expect(run('users', 'list').out).toMatch(/inv_\S+ {2}dev@example.com {2}admin {2}invited, until /);
    const token = invited.out.trim().split('#token=')[1]!;
    const user = services.team.accept(token, { name: 'Dev', password: 'long enough password' }, 'cli-test');
    expect(user).toMatchObject({ email: 'dev@example.com', role: 'admin' });
    expect(() => services.team.accept(token, { name: 'Again', password: 'long enough password' }, 'cli-test')).toThrow(/already used/);
    expect(run('users', 'list').out).toMatch(/usr_\S+ {2}dev@example.com {2}admin {2}Dev {2}\[My organization\]\n/);
  });

  it('invite defaults to member; refuses a bad role, a missing email and someone already on the team', () => {
    const member = run('users', 'invite', 'guest@example.com');
    expect(member.err).toMatch(/as member/);
    expect(run('users', 'invite', 'x@example.com', '--role', 'king')).toMatchObject({
      code: 1,
      err: expect.stringMatching(/--role must be one of owner, admin, member/),
    });
    expect(run('users', 'invite').code).toBe(1);
    expect(run('users', 'invite', 'not an email')).toMatchObject({ code: 1, err: expect.stringMatching(/email must be an email address/) });
    expect(run('users', 'invite', 'owner@localhost').err).toMatch(/already on the team/);
    clock.advance(INVITE_TTL_MS);
    expect(run('users', 'list').out).not.toContain('guest@example.com');
  });

  it('set-role and remove keep the last owner; remove ends the user’s sessions', () => {
    expect(run('users', 'set-role', 'owner@localhost', '--role', 'member')).toMatchObject({
      code: 1,
      err: expect.stringMatching(/last owner/),
    });
    expect(run('users', 'remove', 'owner@localhost')).toMatchObject({ code: 1, err: expect.stringMatching(/last owner/) });
    const invited = run('users', 'invite', 'leaver@example.com').out.trim();
    const leaver = services.team.accept(invited.split('#token=')[1]!, { name: 'Leaver', password: 'long enough password' }, 'cli-test');
    const session = services.dashboard.open(leaver, 'password');
    expect(services.dashboard.authenticate(session.token)).toBeDefined();
    expect(run('users', 'set-role', 'leaver@example.com', '--role', 'admin').err).toMatch(/is now admin/);
    expect(run('users', 'remove', 'leaver@example.com')).toMatchObject({ code: 0, err: 'removed leaver@example.com\n' });
    expect(services.dashboard.authenticate(session.token)).toBeUndefined();
    expect(run('users', 'list').out).not.toContain('leaver@example.com');
    expect(run('users', 'remove', 'leaver@example.com').err).toMatch(/not found/);
  });
});
