import type { TestServer } from '@svc/service/testing';
import { connectionLabel, testConnection } from '../src/authentication';
import { appTester, authDataFor, startService } from './support';

describe('authentication: base URL and API key', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startService();
  });
  afterAll(() => t.close());

  it('tests the connection against /me and labels it with the owner and the key', async () => {
    const key = t.key(['meetings:read']);
    const me = await appTester(testConnection, { authData: authDataFor(t, key) });
    expect(me).toMatchObject({ user: { id: t.owner.id, email: t.owner.email }, key: { name: 'test key', scopes: ['meetings:read'] } });
    expect(await appTester(connectionLabel, { authData: authDataFor(t, key), inputData: me })).toBe(`${t.owner.email} · test key`);
  });

  it.each(['/', '/api/v1/public', '/api/v1/public/'])(
    'accepts the base URL with %s after it, and a key pasted with a line break',
    async (suffix) => {
      const me = await appTester(testConnection, { authData: { base_url: ` ${t.url}${suffix}`, api_key: `${t.key()}\n` } });
      expect(me.user.id).toBe(t.owner.id);
    },
  );

  it.each([
    ['an unknown key', () => 'svc_sk_thisisnotakey'],
    [
      'a revoked key',
      () => {
        const created = t.services.keys.create({ userId: t.owner.id, name: 'revoked', scopes: ['meetings:read'], organizationId: null });
        t.services.keys.revoke(created.row.id);
        return created.key;
      },
    ],
    ['an expired key', () => t.key(['meetings:read'], { expiresAt: new Date(t.clock.now() - 1000).toISOString() })],
    ['no key', () => ''],
  ])('fails with an auth error that shows svc’s detail for %s', async (_label, makeKey) => {
    const failure = appTester(testConnection, { authData: authDataFor(t, makeKey()) });
    await expect(failure).rejects.toMatchObject({ name: 'ExpiredAuthError' });
    await expect(failure).rejects.toThrow(/did not accept the API key .*Missing or invalid API key/);
  });

  it('refuses a base URL without http(s)://, saying what it expects', async () => {
    await expect(appTester(testConnection, { authData: { base_url: 'meet.example.com', api_key: t.key() } })).rejects.toThrow(
      /must start with https:\/\/ or http:\/\//,
    );
  });
});
