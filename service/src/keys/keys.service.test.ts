import { startTestCore } from '../testing/core';

describe('KeysService', () => {
  const core = startTestCore();
  const { services, clock } = core;
  const db = services.db;
  const { owner } = services.identity.ensureOwner();
  afterAll(() => core.dispose());
  const verify = (key: string) => services.identity.authenticate(key)?.key;

  it('issues svc_sk_ keys and stores only a hash and a lookup prefix', () => {
    const { key, row } = services.keys.create({ userId: owner.id, name: 'ci', scopes: ['meetings:read'] });
    expect(key).toMatch(/^svc_sk_[0-9a-z]{52}$/);
    const stored = JSON.stringify(db.prepare('SELECT * FROM api_keys WHERE id = ?').get(row.id));
    expect(stored).not.toContain(key.slice(7));
    expect(stored).not.toContain(key.slice(-20));
    expect(verify(key)?.id).toBe(row.id);
  });

  it('rejects a key that differs in one character, or is truncated', () => {
    const { key } = services.keys.create({ userId: owner.id, name: 'ci', scopes: [] });
    const last = key.at(-1) === 'a' ? 'b' : 'a';
    expect(verify(key.slice(0, -1) + last)).toBeUndefined();
    expect(verify(key.slice(0, -1))).toBeUndefined();
    expect(verify('')).toBeUndefined();
  });

  it('stops accepting a key at its expiry', () => {
    const { key } = services.keys.create({
      userId: owner.id,
      name: 'short',
      scopes: [],
      expiresAt: new Date(clock.now() + 60_000).toISOString(),
    });
    clock.advance(59_999);
    expect(verify(key)).toBeDefined();
    clock.advance(1);
    expect(verify(key)).toBeUndefined();
  });

  it('revokes with immediate effect, once', () => {
    const { key, row } = services.keys.create({ userId: owner.id, name: 'gone', scopes: [] });
    expect(services.keys.revoke(row.id).revoked_at).not.toBeNull();
    expect(verify(key)).toBeUndefined();
    expect(() => services.keys.revoke(row.id)).toThrow(/already revoked/);
    expect(() => services.keys.revoke('key_nope')).toThrow(/not found/);
  });
});
