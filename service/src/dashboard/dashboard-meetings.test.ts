import { withoutPaths } from '../jobs/processing-state';
import { dashboardClient, seedMeeting, seedRecording, seedTranscript, startTestServer, type TestServer } from '../testing';

describe('withoutPaths', () => {
  it('keeps file names and drops the directories of absolute paths, leaving URLs alone', () => {
    expect(withoutPaths("ffprobe failed: /tmp/svc-1/recordings/rec_1.webm: Invalid data ('/srv/a/b.wav')")).toBe(
      "ffprobe failed: rec_1.webm: Invalid data ('b.wav')",
    );
    expect(withoutPaths('POST https://stt.example.com/v1/audio failed: 503')).toBe('POST https://stt.example.com/v1/audio failed: 503');
    expect(withoutPaths(null)).toBeNull();
  });
});

describe('dashboard meeting endpoints: join as host, calendar invitation, transcript and summary jobs with Retry', () => {
  let t: TestServer;
  let c: ReturnType<typeof dashboardClient>;
  beforeAll(async () => {
    t = await startTestServer();
    c = dashboardClient(t);
    expect((await c.signInAsOwner()).status).toBe(204);
  });
  afterAll(() => t.close());

  it('mints a host link with the signed-in user name filled in, only with the CSRF token, and not for a cancelled meeting', async () => {
    const meeting = seedMeeting(t, { title: 'Start now' });
    expect((await c.call('POST', `/meetings/${meeting.id}/join-as-host`, undefined, { 'x-csrf-token': '' })).status).toBe(403);
    const res = await c.call('POST', `/meetings/${meeting.id}/join-as-host`);
    expect(res.status).toBe(201);
    const url = new URL(res.body.url);
    expect(url.origin + url.pathname).toBe(`${t.config.baseUrl}/m/${meeting.code}`);
    expect(url.searchParams.get('name')).toBe('Owner');
    const grant = t.services.roomLinks.grantOf(url.searchParams.get('host')!);
    expect(grant).toMatchObject({ meetingId: meeting.id, role: 'host' });

    t.services.meetings.cancel(t.services.identity.authenticate(t.key())!, meeting.id);
    expect((await c.call('POST', `/meetings/${meeting.id}/join-as-host`)).status).toBe(409);
    expect((await c.call('POST', '/meetings/mtg_unknown/join-as-host')).status).toBe(404);
  });

  it('serves an .ics invitation: UTC times, the guest join link, escaped title, CRLF lines', async () => {
    const key = t.key();
    const created = await t.request('POST', '/api/v1/public/meetings', {
      key,
      body: { title: 'Plan; Q1, again', scheduled_at: '2027-01-15T10:30:00+09:00', duration_minutes: 45, time_zone: 'Asia/Tokyo' },
    });
    expect(created.status).toBe(201);
    const res = await c.call('GET', `/meetings/${created.body.id}/calendar.ics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename=${created.body.code}.ics`);
    const text = res.body as string;
    expect(text.split('\r\n').slice(0, 2)).toEqual(['BEGIN:VCALENDAR', 'VERSION:2.0']);
    expect(text.replace(/\r\n/g, '')).not.toMatch(/\n/);
    const lines = text.replace(/\r\n /g, '').split('\r\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        `UID:${created.body.id}@localhost`,
        'DTSTART:20270115T013000Z',
        'DTEND:20270115T021500Z',
        'SUMMARY:Plan\\; Q1\\, again',
        `URL:${created.body.join_url}`,
        'X-WR-TIMEZONE:Asia/Tokyo',
      ]),
    );
    expect(lines.find((l) => l.startsWith('DTSTAMP:'))).toMatch(/^DTSTAMP:\d{8}T\d{6}Z$/);
    expect((await c.call('GET', '/meetings/mtg_unknown/calendar.ics')).status).toBe(404);
    expect((await t.request('GET', `/dashboard/api/meetings/${created.body.id}/calendar.ics`)).status).toBe(401);
  });

  it('shows a failed transcription with its reason and retries only a failed one, through the session and its CSRF token', async () => {
    const meeting = seedMeeting(t, { title: 'Broken recording', settings: { transcription_auto: true } });
    const worker = t.jobWorker();
    const state = async () => (await c.call('GET', `/meetings/${meeting.id}/processing`)).body;
    expect(await state()).toMatchObject({ transcript: { status: 'none', can_retry: false }, summary: { status: 'none' } });

    seedRecording(t, meeting.id, 'not a media file');
    expect((await state()).transcript).toMatchObject({ status: 'pending', can_retry: false });
    const early = await c.call('POST', `/meetings/${meeting.id}/transcript/retry`);
    expect(early.status).toBe(409);
    expect(early.body.detail).toMatch(/only a failed one can be retried/);

    expect(await worker.runOnce()).toBe(1);
    const failed = (await state()).transcript;
    expect(failed).toMatchObject({ status: 'failed', can_retry: true, attempt_count: 1 });
    expect(failed.failure_reason).toMatch(/cannot be decoded/);
    expect(failed.failure_reason).not.toContain(t.dataDir);
    expect(failed.failure_reason).toMatch(/rec_\w+\.webm/);

    expect((await c.call('POST', `/meetings/${meeting.id}/transcript/retry`, undefined, { 'x-csrf-token': '' })).status).toBe(403);
    expect((await state()).transcript.status).toBe('failed');
    const retried = await c.call('POST', `/meetings/${meeting.id}/transcript/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body.transcript).toMatchObject({ status: 'pending', attempt_count: 0, can_retry: false });
    expect(t.services.jobs.list({ status: 'pending' }).filter((j) => j.kind === 'transcribe')).toHaveLength(1);
    expect(await worker.runOnce()).toBe(1);
    expect((await state()).transcript).toMatchObject({ status: 'failed', can_retry: true });

    const noSummaryJob = await c.call('POST', `/meetings/${meeting.id}/summary/retry`);
    expect(noSummaryJob.status).toBe(409);
    expect(noSummaryJob.body.detail).toMatch(/no summary job/);
    expect((await c.call('POST', '/meetings/mtg_unknown/transcript/retry')).status).toBe(404);
  });

  it('shows a stored transcript as ready, and a failed summary job with Retry', async () => {
    const meeting = seedMeeting(t, { title: 'Summary fails' });
    t.services.jobs.enqueue('summarize', { meeting_id: meeting.id });
    await t.jobWorker().runOnce();
    const failed = (await c.call('GET', `/meetings/${meeting.id}/processing`)).body;
    expect(failed.summary).toMatchObject({ status: 'failed', can_retry: true });
    expect(failed.summary.failure_reason).toMatch(/has no transcript to summarize/);

    seedTranscript(t.services, meeting.id);
    const retried = await c.call('POST', `/meetings/${meeting.id}/summary/retry`);
    expect(retried.body).toMatchObject({ transcript: { status: 'ready' }, summary: { status: 'pending' } });
    await t.jobWorker().runOnce();
    const done = (await c.call('GET', `/meetings/${meeting.id}/processing`)).body;
    expect(done.summary).toMatchObject({ status: 'ready', failure_reason: null, can_retry: false });
    expect((await c.call('POST', `/meetings/${meeting.id}/summary/retry`)).status).toBe(409);
  });
});
