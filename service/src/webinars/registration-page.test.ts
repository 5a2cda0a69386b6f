import { startTestServer, type TestResponse, type TestServer } from '../testing/harness';

/** The shape of a JSON value: objects keep their keys (sorted), every leaf becomes its type. */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shapeOf);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, shapeOf((value as Record<string, unknown>)[k])]),
    );
  return value === null ? 'null' : typeof value;
}

/** A registration.created event as the feed lists it. */
interface RegistrationEvent {
  type: string;
  data: { registration: { email: string; name: string; join_url: string }; webinar: unknown; meeting: unknown };
}

describe('the public registration page /w/<slug>', () => {
  let t: TestServer;
  let key: string;
  beforeAll(async () => {
    t = await startTestServer();
    key = t.key();
  });
  afterAll(() => t.close());

  const createWebinar = async (slug: string, extra: Record<string, unknown> = {}) => {
    const res = await t.request('POST', '/api/v1/public/meetings', {
      key,
      body: { title: 'Q4 launch <live>', kind: 'webinar', slug, scheduled_at: '2031-03-01T10:30:00+09:00', duration_minutes: 45, ...extra },
    });
    expect(res.status).toBe(201);
    return res.body as { id: string; code: string; slug: string };
  };
  /** Posts the form as a browser on the page's own origin would (URL-encoded, Origin and Sec-Fetch-Site same-origin). */
  const postForm = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<TestResponse> => {
    // Spread the posts over the clock so the whole file stays under the per-address budget (20 a minute).
    t.clock.advance(3_100);
    return t.request('POST', path, {
      raw: new URLSearchParams(fields).toString(),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: new URL(t.url).origin,
        'sec-fetch-site': 'same-origin',
        ...headers,
      },
    });
  };
  const registrationCount = (meetingId: string) =>
    (t.services.db.prepare('SELECT COUNT(*) AS n FROM registrations WHERE meeting_id = ?').get(meetingId) as { n: number }).n;
  const registrationEvents = async () =>
    ((await t.request('GET', '/api/v1/public/events?limit=100', { key })).body.data as RegistrationEvent[]).filter(
      (e) => e.type === 'registration.created',
    );
  const joinLinkIn = (html: string) => /id="join-link" readonly value="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');

  it('shows the title, the start as an ISO time for the viewer and in the webinar’s own offset, and the form; strict headers', async () => {
    await createWebinar('page-show');
    const res = await t.request('GET', '/w/page-show');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = res.body as string;
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('<h1>Q4 launch &lt;live&gt;</h1>');
    expect(html).not.toContain('<live>');
    expect(html).toContain('<time data-local datetime="2031-03-01T01:30:00.000Z">');
    expect(html).toContain('Saturday, March 1, 2031 at 10:30 AM in the webinar’s time zone (UTC+09:00)');
    expect(html).toContain('45 minutes');
    expect(html).toMatch(/<form method="post" action="\/w\/page-show"/);
    expect(html).toMatch(/<input type="text" id="name" name="name"/);
    expect(html).toMatch(/<input type="email" id="email" name="email"/);
    expect(html).toMatch(/name="website" tabindex="-1"/);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self'");
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('shows the start in the webinar’s IANA time zone when it has one, and names it in the .ics', async () => {
    await createWebinar('page-zone', { scheduled_at: '2031-07-01T09:00:00-04:00', time_zone: 'America/New_York' });
    const html = (await t.request('GET', '/w/page-zone')).body as string;
    expect(html).toContain('Tuesday, July 1, 2031 at 9:00 AM in the webinar’s time zone (America/New_York)');
    expect(html).toContain('<time data-local datetime="2031-07-01T13:00:00.000Z">');
    const res = await postForm('/w/page-zone', { name: 'Ann', email: 'ann@example.com', website: '' });
    const calendarPath = /href="(\/w\/page-zone\/calendar\.ics\?[^"]+)" download/.exec(res.body as string)![1]!.replace(/&amp;/g, '&');
    const ics = (await t.request('GET', calendarPath)).body as string;
    expect(ics).toContain('DTSTART:20310701T130000Z\r\n');
    expect(ics).toContain('X-WR-TIMEZONE:America/New_York\r\n');
  });

  it('speaks German or French from Accept-Language, and ?lang= wins over it', async () => {
    await createWebinar('page-lang');
    const de = (await t.request('GET', '/w/page-lang', { headers: { 'accept-language': 'fr;q=0.5, de-AT, en;q=0.8' } })).body as string;
    expect(de).toContain('<html lang="de">');
    expect(de).toContain('>Anmelden</button>');
    expect(de).toContain('Samstag, 1. März 2031 um 10:30 in der Zeitzone des Webinars (UTC+09:00)');
    const fr = (await t.request('GET', '/w/page-lang?lang=fr', { headers: { 'accept-language': 'de' } })).body as string;
    expect(fr).toContain('<html lang="fr">');
    expect(fr).toContain('>S’inscrire</button>');
    expect(fr).toMatch(/action="\/w\/page-lang\?lang=fr"/);
    const unknown = (await t.request('GET', '/w/page-lang?lang=xx', { headers: { 'accept-language': 'de' } })).body as string;
    expect(unknown).toContain('<html lang="en">');
  });

  it('answers an unknown slug with a friendly HTML 404, not JSON', async () => {
    const res = await t.request('GET', '/w/no-such-webinar?lang=de');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.body).toContain('Unter dieser Adresse gibt es keine Webinar-Anmeldung');
    expect((await t.request('GET', '/w/not-a-webinar/calendar.ics?invite=x')).status).toBe(404);
  });

  it('registers through the form with the same registration.created as the API, and shows the personal link and an .ics', async () => {
    const webinar = await createWebinar('page-register');
    const api = await t.request('POST', '/api/v1/public/webinars/page-register/registrations', {
      key,
      body: { email: 'api@example.com', name: 'Api Person' },
    });
    expect(api.status).toBe(201);

    const res = await postForm('/w/page-register', { name: ' Page Person ', email: 'Page@Example.com', website: '' });
    expect(res.status).toBe(201);
    const html = res.body as string;
    expect(html).toContain('You’re registered, Page Person');
    const joinUrl = joinLinkIn(html)!;
    expect(joinUrl).toMatch(new RegExp(`/m/${webinar.code}\\?invite=`));
    expect(registrationCount(webinar.id)).toBe(2);

    const events = await registrationEvents();
    const fromApi = events.find((e) => e.data.registration.email === 'api@example.com')!;
    const fromPage = events.find((e) => e.data.registration.email === 'Page@Example.com')!;
    expect(shapeOf(fromPage)).toEqual(shapeOf(fromApi));
    expect(fromPage.data.registration).toMatchObject({ name: 'Page Person', join_url: joinUrl });
    expect(fromPage.data.webinar).toEqual(fromApi.data.webinar);
    expect(fromPage.data.meeting).toEqual(fromApi.data.meeting);
    // The API reads back the page's registration.
    const found = await t.request('GET', '/api/v1/public/webinars/page-register/registrations?email=page@example.com', { key });
    expect(found.body.data[0]).toMatchObject({ name: 'Page Person', join_url: joinUrl });

    const calendarPath = /href="(\/w\/page-register\/calendar\.ics\?[^"]+)" download/.exec(html)![1]!.replace(/&amp;/g, '&');
    const ics = await t.request('GET', calendarPath);
    expect(ics.status).toBe(200);
    expect(ics.headers.get('content-type')).toMatch(/^text\/calendar/);
    expect(ics.headers.get('content-disposition')).toBe('attachment; filename="page-register.ics"');
    const text = ics.body as string;
    expect(text.endsWith('\r\n')).toBe(true);
    const lines = text.replace(/\r\n /g, '').split('\r\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        'BEGIN:VCALENDAR',
        'BEGIN:VEVENT',
        `UID:${found.body.data[0].id}@${new URL(joinUrl).host}`,
        'DTSTART:20310301T013000Z',
        'DTEND:20310301T021500Z',
        'SUMMARY:Q4 launch <live>',
        `URL:${joinUrl}`,
        'END:VEVENT',
      ]),
    );
    expect(lines.some((l) => /^DTSTAMP:\d{8}T\d{6}Z$/.test(l))).toBe(true);
  });

  it('shows each bad field’s error beside it, keeps the values, and stores and emits nothing', async () => {
    const webinar = await createWebinar('page-invalid');
    const before = (await registrationEvents()).length;
    const res = await postForm('/w/page-invalid?lang=fr', { name: '   ', email: 'not-an-email', website: '' });
    expect(res.status).toBe(400);
    const html = res.body as string;
    expect(html).toMatch(
      /id="name"[^>]*aria-invalid="true" aria-describedby="name-error"><p class="field-error" id="name-error">Saisissez votre nom/,
    );
    expect(html).toMatch(
      /id="email"[^>]*value="not-an-email" aria-invalid="true"[^>]*><p class="field-error" id="email-error">Saisissez une adresse e-mail valide/,
    );
    const onlyEmail = await postForm('/w/page-invalid', { name: 'Ann', email: 'bad', website: '' });
    expect(onlyEmail.body).toContain('value="Ann">');
    expect(onlyEmail.body).not.toContain('name-error');
    expect(registrationCount(webinar.id)).toBe(0);
    expect((await registrationEvents()).length).toBe(before);
  });

  it('answers a filled honeypot as if registered, but stores nothing and emits nothing', async () => {
    const webinar = await createWebinar('page-honeypot');
    const before = (await registrationEvents()).length;
    const res = await postForm('/w/page-honeypot', { name: 'Bot', email: 'bot@example.com', website: 'https://spam.example' });
    expect(res.status).toBe(200);
    expect(res.body).toContain('You’re registered, Bot');
    expect(registrationCount(webinar.id)).toBe(0);
    expect((await registrationEvents()).length).toBe(before);
  });

  it('refuses a form sent from another site (Origin or Sec-Fetch-Site), changing nothing', async () => {
    const webinar = await createWebinar('page-csrf');
    const fields = { name: 'Eve', email: 'eve@example.com', website: '' };
    const foreign = await postForm('/w/page-csrf', fields, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toContain('The form was sent from another site');
    const crossSite = await postForm('/w/page-csrf', fields, { 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    const nullOrigin = await postForm('/w/page-csrf', fields, { origin: 'null' });
    expect(nullOrigin.status).toBe(403);
    expect(registrationCount(webinar.id)).toBe(0);
  });

  it('does not hand a known email’s personal link to whoever types it again, and emits no second event', async () => {
    const webinar = await createWebinar('page-again');
    const first = await postForm('/w/page-again', { name: 'Ann', email: 'ann@example.com', website: '' });
    const link = joinLinkIn(first.body as string)!;
    const before = (await registrationEvents()).length;
    const again = await postForm('/w/page-again', { name: 'Mallory', email: 'ANN@example.com', website: '' });
    expect(again.status).toBe(200);
    expect(again.body).toContain('This email address is already registered');
    expect(again.body).not.toContain(new URL(link).searchParams.get('invite')!);
    expect(registrationCount(webinar.id)).toBe(1);
    expect((await registrationEvents()).length).toBe(before);
  });

  it('serves a calendar only for a personal link of this webinar', async () => {
    await createWebinar('page-ics-a');
    await createWebinar('page-ics-b');
    const res = await postForm('/w/page-ics-a', { name: 'Ann', email: 'ann@example.com', website: '' });
    const invite = new URL(joinLinkIn(res.body as string)!).searchParams.get('invite')!;
    expect((await t.request('GET', `/w/page-ics-a/calendar.ics?invite=${invite}`)).status).toBe(200);
    expect((await t.request('GET', `/w/page-ics-b/calendar.ics?invite=${invite}`)).status).toBe(404);
    expect((await t.request('GET', `/w/page-ics-a/calendar.ics?invite=${invite.slice(0, -2)}xx`)).status).toBe(404);
  });

  it('says registration is closed for an ended or cancelled webinar, and the form then registers nobody', async () => {
    const webinar = await createWebinar('page-cancelled');
    await t.request('DELETE', `/api/v1/public/meetings/${webinar.id}`, { key });
    const page = await t.request('GET', '/w/page-cancelled');
    expect(page.status).toBe(200);
    expect(page.body).toContain('This webinar was cancelled. Registration is closed.');
    expect(page.body).not.toContain('<form');
    const post = await postForm('/w/page-cancelled', { name: 'Ann', email: 'ann@example.com', website: '' });
    expect(post.status).toBe(409);
    expect(registrationCount(webinar.id)).toBe(0);
  });

  it('needs ?org= when two organizations use the slug', async () => {
    const otherOrg = t.services.identity.createOrganization(t.owner.id, 'Other org').id;
    const otherKey = t.key(undefined, { org: otherOrg });
    await createWebinar('page-shared');
    const other = await t.request('POST', '/api/v1/public/meetings', {
      key: otherKey,
      body: { title: 'The other one', kind: 'webinar', slug: 'page-shared', scheduled_at: '2031-03-01T10:30:00Z' },
    });
    expect(other.status).toBe(201);
    expect((await t.request('GET', '/w/page-shared')).status).toBe(404);
    const picked = await t.request('GET', `/w/page-shared?org=${otherOrg}`);
    expect(picked.status).toBe(200);
    expect(picked.body).toContain('<h1>The other one</h1>');
    expect(picked.body).toContain(`action="/w/page-shared?org=${otherOrg}"`);
    const registered = await postForm(`/w/page-shared?org=${otherOrg}`, { name: 'Ann', email: 'ann@example.com', website: '' });
    expect(registered.status).toBe(201);
    expect(registrationCount(other.body.id)).toBe(1);
  });

  it('limits registrations per client address with a 429 page and Retry-After', async () => {
    const webinar = await createWebinar('page-limited');
    const send = (n: number) =>
      t.request('POST', '/w/page-limited', {
        raw: new URLSearchParams({ name: `P${n}`, email: `p${n}@example.com`, website: '' }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    t.clock.advance(61_000);
    const answers = [];
    for (let n = 0; n < 6; n++) answers.push(await send(n));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201, 429]);
    expect(answers[5]!.headers.get('retry-after')).toBe('1');
    expect(answers[5]!.headers.get('content-type')).toMatch(/^text\/html/);
    expect(answers[5]!.body).toContain('Too many registrations came from your network');
    expect(registrationCount(webinar.id)).toBe(5);
  });
});
