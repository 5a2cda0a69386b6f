import { joinRoom, principalIn, roomCredential, seedMeeting, startTestServer, type TestServer } from '@svc/service/testing';
import { embedOriginAllowed, frameAncestors, normalizeEmbedOrigin } from './embed-origins';
import type { EmbedPageConfig } from './embed-page.protocol';

describe('embed origin entries', () => {
  it('normalizes exact and wildcard origins and refuses anything else with a reason', () => {
    expect(normalizeEmbedOrigin('HTTPS://App.Example.com')).toEqual({ origin: 'https://app.example.com' });
    expect(normalizeEmbedOrigin('https://app.example.com:443')).toEqual({ origin: 'https://app.example.com' });
    expect(normalizeEmbedOrigin('https://app.example.com:8443')).toEqual({ origin: 'https://app.example.com:8443' });
    expect(normalizeEmbedOrigin('https://*.example.com')).toEqual({ origin: 'https://*.example.com' });
    expect(normalizeEmbedOrigin('http://localhost:5173')).toEqual({ origin: 'http://localhost:5173' });
    expect(normalizeEmbedOrigin('http://*.localhost:5173')).toEqual({ origin: 'http://*.localhost:5173' });
    expect(normalizeEmbedOrigin('http://127.0.0.1:8080')).toEqual({ origin: 'http://127.0.0.1:8080' });
    for (const bad of [
      'http://example.com',
      'https://example.com/',
      'https://example.com/path',
      'https://example.com?x=1',
      'ftp://example.com',
      'example.com',
      'https://*.com',
      'https://*',
      'https://exa mple.com',
      'https://-bad-.example.com',
      'https://app.example.com:99999',
      'https://*.127.0.0.1',
      '*',
      "'self'",
      'https://example.com; script-src *',
    ]) {
      expect(normalizeEmbedOrigin(bad)).toEqual({ error: expect.any(String) });
    }
  });

  it('refuses a wildcard over a public suffix (github.io included) and ignores one stored before the rule; allows one below it', () => {
    for (const suffix of [
      'https://*.co.uk',
      'https://*.github.io',
      'https://*.com.au',
      'https://*.s3.amazonaws.com',
      'https://*.CO.UK:8443',
    ]) {
      expect([suffix, normalizeEmbedOrigin(suffix)]).toEqual([suffix, { error: expect.stringMatching(/public suffix/) }]);
    }
    expect(normalizeEmbedOrigin('https://*.example.co.uk')).toEqual({ origin: 'https://*.example.co.uk' });
    expect(normalizeEmbedOrigin('https://*.octocat.github.io')).toEqual({ origin: 'https://*.octocat.github.io' });
    expect(normalizeEmbedOrigin('https://co.uk')).toEqual({ origin: 'https://co.uk' });
    const storedBeforeTheRule = ['https://*.github.io', 'https://*.example.co.uk'];
    expect(embedOriginAllowed('https://attacker.github.io', storedBeforeTheRule)).toBe(false);
    expect(embedOriginAllowed('https://app.example.co.uk', storedBeforeTheRule)).toBe(true);
    expect(frameAncestors(storedBeforeTheRule)).toBe('https://*.example.co.uk');
    expect(frameAncestors(['https://*.github.io'])).toBe("'none'");
    expect(normalizeEmbedOrigin('http://*.localhost:5173')).toEqual({ origin: 'http://*.localhost:5173' });
  });

  it('admits subdomains with a wildcard but never the apex, and needs the same scheme and port', () => {
    const list = ['https://*.example.com', 'http://localhost:3000'];
    expect(embedOriginAllowed('https://app.example.com', list)).toBe(true);
    expect(embedOriginAllowed('https://a.b.example.com', list)).toBe(true);
    expect(embedOriginAllowed('https://example.com', list)).toBe(false);
    expect(embedOriginAllowed('https://evilexample.com', list)).toBe(false);
    expect(embedOriginAllowed('http://app.example.com', list)).toBe(false);
    expect(embedOriginAllowed('https://app.example.com:8443', list)).toBe(false);
    expect(embedOriginAllowed('http://localhost:3000', list)).toBe(true);
    expect(embedOriginAllowed('http://localhost:3001', list)).toBe(false);
    expect(embedOriginAllowed('http://localhost:3000/', list)).toBe(false);
    expect(embedOriginAllowed('null', list)).toBe(false);
    expect(frameAncestors([])).toBe("'none'");
    expect(frameAncestors(list)).toBe('https://*.example.com http://localhost:3000');
  });
});

describe('embedding through the API and the embed page', () => {
  let t: TestServer;
  let key: string;
  beforeAll(async () => {
    t = await startTestServer({ SVC_BASE_URL: 'http://127.0.0.1:4000', SVC_ROOM_RATE_LIMIT_PER_SECOND: '100000' }, { media: true });
    key = t.key();
  });
  afterAll(() => t.close());

  const putOrigins = (meeting: string, origins: unknown, k = key) =>
    t.request('PUT', `/api/v1/public/meetings/${meeting}/embed-origins`, { key: k, body: { origins } });
  const mint = (body: Record<string, unknown>, k = key) => t.request('POST', '/api/v1/public/embed/tokens', { key: k, body });
  const configOf = (html: string): EmbedPageConfig => {
    const content = /<meta name="svc-embed" content="([^"]*)"/.exec(html)![1]!;
    return JSON.parse(
      content
        .replace(/&quot;/g, '"')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&amp;/g, '&'),
    );
  };
  const tokenOf = (embedUrl: string) => embedUrl.split('/embed/')[1]!;
  const frameAncestorsOf = (headers: Headers) => /frame-ancestors ([^;]+)/.exec(headers.get('content-security-policy') ?? '')![1];

  it('replaces and reads back the allowed origins, normalized; one bad entry changes nothing', async () => {
    const m = seedMeeting(t);
    expect((await t.request('GET', `/api/v1/public/meetings/${m.code}/embed-origins`, { key })).body).toEqual({ origins: [] });
    const put = await putOrigins(m.code, ['https://App.example.com', 'https://*.example.org', 'https://app.example.com:443']);
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ origins: ['https://app.example.com', 'https://*.example.org'] });
    const bad = await putOrigins(m.id, ['https://ok.example.com', 'http://insecure.example.com', 'https://x.example.com/path']);
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { param: string }) => e.param)).toEqual(['origins[1]', 'origins[2]']);
    const suffix = await putOrigins(m.id, ['https://*.ok.example.com', 'https://*.github.io']);
    expect([suffix.status, suffix.body.errors]).toEqual([400, [{ param: 'origins[1]', message: expect.stringMatching(/public suffix/) }]]);
    expect((await putOrigins(m.id, 'https://a.example.com')).status).toBe(400);
    expect(
      (
        await putOrigins(
          m.id,
          Array.from({ length: 51 }, (_, i) => `https://a${i}.example.com`),
        )
      ).status,
    ).toBe(400);
    expect((await t.request('GET', `/api/v1/public/meetings/${m.id}/embed-origins`, { key })).body).toEqual({
      origins: ['https://app.example.com', 'https://*.example.org'],
    });
    expect((await putOrigins(m.id, [])).body).toEqual({ origins: [] });
  });

  it('checks scopes and organizations for the list and for tokens', async () => {
    const m = seedMeeting(t);
    const readOnly = t.key(['meetings:read']);
    expect((await t.request('GET', `/api/v1/public/meetings/${m.id}/embed-origins`, { key: readOnly })).status).toBe(200);
    expect((await putOrigins(m.id, [], readOnly)).status).toBe(403);
    expect((await mint({ meeting: m.code, name: 'Ann' }, readOnly)).status).toBe(403);
    const other = t.services.identity.createOrganization(t.owner.id, 'Elsewhere');
    const elsewhere = seedMeeting(t, {}, other.id);
    const orgKey = t.key(['meetings:read', 'meetings:write'], { org: t.org.id });
    expect((await putOrigins(elsewhere.id, [], orgKey)).status).toBe(404);
    expect((await mint({ meeting: elsewhere.code, name: 'Ann' }, orgKey)).status).toBe(404);
  });

  it('mints signed, expiring tokens with the embed URL, embeddable only once an origin is allowed', async () => {
    const m = seedMeeting(t);
    const first = await mint({ meeting: m.code, name: 'Ann Guest', locale: 'de' });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      token: expect.stringMatching(/^svc_et_[\w-]+\.[\w-]+$/),
      expires_at: new Date(Math.floor(t.clock.now() / 1000) * 1000 + 900_000).toISOString(),
      embed_url: `http://127.0.0.1:4000/de/embed/${first.body.token}`,
      embeddable: false,
    });
    await putOrigins(m.code, ['http://localhost:3000']);
    const second = await mint({ meeting: m.id, name: 'Ann', ttl_seconds: 60, features: { chat: false } });
    expect(second.body).toMatchObject({ embeddable: true, embed_url: expect.stringContaining('/en/embed/svc_et_') });
    expect(Date.parse(second.body.expires_at) - Math.floor(t.clock.now() / 1000) * 1000).toBe(60_000);
  });

  it('enforces the bounds of ttl, name and features, and refuses meetings that are over', async () => {
    const m = seedMeeting(t);
    const refusals: [Record<string, unknown>, string][] = [
      [{ meeting: m.code, name: 'A', ttl_seconds: 59 }, 'ttl_seconds'],
      [{ meeting: m.code, name: 'A', ttl_seconds: 86_401 }, 'ttl_seconds'],
      [{ meeting: m.code, name: 'A', ttl_seconds: 1.5 }, 'ttl_seconds'],
      [{ meeting: m.code, name: '' }, 'name'],
      [{ meeting: m.code, name: 'x'.repeat(81) }, 'name'],
      [{ meeting: m.code, name: 'two\nlines' }, 'name'],
      [{ meeting: m.code }, 'name'],
      [{ meeting: m.code, name: 'A', features: { chat: 'no' } }, 'features.chat'],
      [{ meeting: m.code, name: 'A', features: { recording: true } }, 'features.recording'],
      [{ meeting: m.code, name: 'A', locale: 'english' }, 'locale'],
      [{ name: 'A' }, 'meeting'],
    ];
    for (const [body, param] of refusals) {
      const res = await mint(body);
      expect([res.status, res.body.errors?.[0]?.param ?? res.body.param]).toEqual([400, param]);
    }
    expect((await mint({ meeting: m.code, name: 'x'.repeat(80), ttl_seconds: 86_400 })).status).toBe(201);
    expect((await mint({ meeting: 'zzz-zzzz-zzz', name: 'A' })).status).toBe(404);
    const cancelled = seedMeeting(t, { scheduled_at: '2031-01-01T10:00:00Z' });
    t.services.meetings.cancel(principalIn(t, t.org.id), cancelled.id);
    const refused = await mint({ meeting: cancelled.code, name: 'A' });
    expect([refused.status, refused.body.code, refused.body.reason]).toEqual([409, 'meeting_unavailable', 'cancelled']);
  });

  it("serves the embed page framable only by the meeting's origins, with the token's name and features", async () => {
    const m = seedMeeting(t, { title: 'Embedded' });
    const minted = await mint({ meeting: m.code, name: 'Ann', features: { participants: false } });
    const token = tokenOf(minted.body.embed_url);
    const closed = await t.request('GET', `/en/embed/${token}?origin=${encodeURIComponent('http://localhost:3000')}`);
    expect(frameAncestorsOf(closed.headers)).toBe("'none'");
    expect(configOf(closed.body).error).toBe('origin_not_allowed');

    await putOrigins(m.code, ['http://localhost:3000', 'http://*.localhost:3000']);
    const page = await t.request('GET', `/fr/embed/${token}?origin=${encodeURIComponent('http://app.localhost:3000')}`);
    expect(page.status).toBe(200);
    expect(frameAncestorsOf(page.headers)).toBe('http://localhost:3000 http://*.localhost:3000');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(configOf(page.body)).toEqual({
      code: m.code,
      token,
      name: 'Ann',
      nameFixed: true,
      features: { chat: true, participants: false, screenshare: true },
      parentOrigin: 'http://app.localhost:3000',
      error: null,
    });
    // Without ?origin= the Referer's origin is the declared parent; an origin off the list gets nothing posted.
    const referred = await t.request('GET', `/en/embed/${token}`, { headers: { referer: 'http://localhost:3000/page?x=1' } });
    expect(configOf(referred.body).parentOrigin).toBe('http://localhost:3000');
    const apex = await t.request('GET', `/en/embed/${token}?origin=${encodeURIComponent('http://localhost:3001')}`);
    expect(configOf(apex.body)).toMatchObject({ parentOrigin: null, error: 'origin_not_allowed' });
    expect((await t.request('GET', `/not-a-locale/embed/${token}`)).status).toBe(404);
  });

  it('refuses tampered and foreign tokens with a page nobody can frame, and says when one expired', async () => {
    const m = seedMeeting(t);
    await putOrigins(m.code, ['http://localhost:3000']);
    const token = tokenOf((await mint({ meeting: m.code, name: 'Ann', ttl_seconds: 60 })).body.embed_url);
    const [payload, signature] = token.slice('svc_et_'.length).split('.');
    const forgedPayload = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), n: 'Mallory' }),
    ).toString('base64url');
    for (const bad of [`svc_et_${forgedPayload}.${signature}`, `${token}x`, token.replace('svc_et_', 'svc_xx_'), 'svc_et_abc']) {
      const page = await t.request('GET', `/en/embed/${bad}?origin=http%3A%2F%2Flocalhost%3A3000`);
      expect([page.status, frameAncestorsOf(page.headers), configOf(page.body).error]).toEqual([401, "'none'", 'token_invalid']);
      expect((await t.request('POST', `/rooms/v1/${m.code}/credentials`, { body: { embed: bad } })).status).toBe(401);
    }
    t.clock.advance(60_000);
    const expired = await t.request('GET', `/en/embed/${token}?origin=http%3A%2F%2Flocalhost%3A3000`);
    expect([expired.status, frameAncestorsOf(expired.headers), configOf(expired.body).error]).toEqual([
      401,
      'http://localhost:3000',
      'token_expired',
    ]);
    expect((await t.request('POST', `/rooms/v1/${m.code}/credentials`, { body: { embed: token } })).status).toBe(401);
  });

  it('tells any page (CORS) whether its own origin may frame a meeting, by the Origin header before ?origin=', async () => {
    const m = seedMeeting(t);
    await putOrigins(m.code, ['http://localhost:3000', 'http://*.localhost:3000']);
    const check = (query: string, origin?: string) =>
      t.request('GET', `/embed/frame-check?${query}`, { headers: origin ? { origin } : {} });
    const allowed = await check(`code=${m.code}`, 'http://localhost:3000');
    expect(allowed.status).toBe(200);
    expect(allowed.body).toEqual({ framable: true, reason: null });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('*');
    expect(allowed.headers.get('cache-control')).toBe('no-store');
    expect((await check(`code=${m.code}`, 'http://app.localhost:3000')).body).toEqual({ framable: true, reason: null });
    for (const origin of ['http://localhost:3001', 'https://localhost:3000', 'null']) {
      expect([origin, (await check(`code=${m.code}`, origin)).body]).toEqual([origin, { framable: false, reason: 'origin_not_allowed' }]);
    }
    // The header a browser sets wins over what the query claims; without a header the query is used.
    expect((await check(`code=${m.code}&origin=http%3A%2F%2Flocalhost%3A3000`, 'http://evil.localhost.example')).body.framable).toBe(false);
    expect((await check(`code=${m.code}&origin=http%3A%2F%2Flocalhost%3A3000`)).body.framable).toBe(true);

    const token = tokenOf((await mint({ meeting: m.code, name: 'Ann' })).body.embed_url);
    expect((await check(`token=${token}`, 'http://localhost:3000')).body).toEqual({ framable: true, reason: null });
    expect((await check(`token=${token}`, 'http://localhost:3001')).body).toEqual({ framable: false, reason: 'origin_not_allowed' });
    expect((await check(`token=${token}x`, 'http://localhost:3000')).body).toEqual({ framable: false, reason: 'token_invalid' });
    // Nothing to protect behind an unknown code: its page (which says so) may be framed by anyone.
    expect((await check('code=zzz-zzzz-zzz', 'http://localhost:3001')).body).toEqual({ framable: true, reason: null });
    const empty = seedMeeting(t);
    expect((await check(`code=${empty.code}`, 'http://localhost:3000')).body).toEqual({ framable: false, reason: 'origin_not_allowed' });

    for (const query of ['', `code=${m.code}&token=${token}`]) {
      const bad = await check(query, 'http://localhost:3000');
      expect([bad.status, bad.body.code]).toEqual([400, 'validation_failed']);
    }
  });

  it('serves bare-code embeds with the name and switched-off features of the URL, and says why a meeting is unavailable', async () => {
    const m = seedMeeting(t);
    await putOrigins(m.code, ['http://localhost:3000']);
    const page = await t.request('GET', `/en/embed/m/${m.code}?origin=http%3A%2F%2Flocalhost%3A3000&name=Bea&chat=0&screenshare=false`);
    expect(configOf(page.body)).toEqual({
      code: m.code,
      token: null,
      name: 'Bea',
      nameFixed: false,
      features: { chat: false, participants: true, screenshare: false },
      parentOrigin: 'http://localhost:3000',
      error: null,
    });
    const unknown = await t.request('GET', '/en/embed/m/zzz-zzzz-zzz?origin=http%3A%2F%2Flocalhost%3A3000');
    expect([unknown.status, frameAncestorsOf(unknown.headers), configOf(unknown.body).error]).toEqual([404, '*', 'not_found']);
    expect(configOf(unknown.body).parentOrigin).toBe('http://localhost:3000');
    const cancelled = seedMeeting(t, { scheduled_at: '2031-01-01T10:00:00Z' });
    await putOrigins(cancelled.code, ['http://localhost:3000']);
    t.services.meetings.cancel(principalIn(t, t.org.id), cancelled.id);
    const gone = await t.request('GET', `/en/embed/m/${cancelled.code}?origin=http%3A%2F%2Flocalhost%3A3000`);
    expect(configOf(gone.body)).toMatchObject({ error: 'cancelled', parentOrigin: 'http://localhost:3000' });
  });

  it("joins with the token's name whatever the page sends, only in the token's meeting, and holds its features in the room", async () => {
    const m = seedMeeting(t);
    const other = seedMeeting(t);
    const minted = await mint({ meeting: m.code, name: 'Ann from Acme', ttl_seconds: 120, features: { chat: false, screenshare: false } });
    const token = minted.body.token as string;
    expect((await t.request('POST', `/rooms/v1/${other.code}/credentials`, { body: { embed: token } })).status).toBe(401);
    const credential = await roomCredential(t, m.code, { embed: token, name: 'Mallory' });
    expect(credential).toMatchObject({ name: 'Ann from Acme', role: 'guest', identity: expect.stringMatching(/^embed-/) });
    // The socket credential never outlives the embed token.
    expect(Date.parse(credential.expires_at)).toBeLessThanOrEqual(Date.parse(minted.body.expires_at));
    const { client, state } = await joinRoom(credential);
    expect(state.self.name).toBe('Ann from Acme');
    expect(await client.call('sendChat', { text: 'hello' })).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    const send = await client.ok('createTransport', { direction: 'send' });
    // Parameters the SFU accepts: the camera is sent with them, the screen is refused for the feature alone.
    const vp8 = {
      codecs: [{ mimeType: 'video/VP8', payloadType: 96, clockRate: 90_000, parameters: {}, rtcpFeedback: [] }],
      encodings: [{ ssrc: 22_222_222 }],
      rtcp: { cname: 'embed-test' },
    };
    const screen = await client.call('produce', { transportId: send.id, kind: 'video', rtpParameters: vp8, source: 'screen' });
    expect(screen).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(await client.call('produce', { transportId: send.id, kind: 'video', rtpParameters: vp8, source: 'camera' })).toMatchObject({
      ok: true,
    });
    client.close();
  });
});
