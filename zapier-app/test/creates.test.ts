import type { TestServer } from '@svc/service/testing';
import App from '../src';
import { cancelMeeting } from '../src/creates/cancel_meeting';
import { createMeeting } from '../src/creates/create_meeting';
import { endMeeting } from '../src/creates/end_meeting';
import { updateMeeting } from '../src/creates/update_meeting';
import { registerParticipant, type RegistrationResult } from '../src/creates/register_participant';
import { reopenMeeting } from '../src/creates/reopen_meeting';
import { appTester, authDataFor, callApi, createWebinar, expectFieldsCover, expectSameShape, startService } from './support';

const countMeetings = (t: TestServer) => t.services.db.prepare('SELECT count(*) FROM meetings').pluck().get() as number;

describe('actions', () => {
  let t: TestServer;
  let key: string;
  let auth: { base_url: string; api_key: string };
  let api: ReturnType<typeof callApi>;
  beforeAll(async () => {
    t = await startService();
    key = t.key();
    auth = authDataFor(t, key);
    api = callApi(t, key);
  });
  afterAll(() => t.close());

  describe('create_meeting', () => {
    it('creates a scheduled meeting with every input, as the API then reads it', async () => {
      const inputData = {
        title: 'Quarterly planning',
        scheduled_at: '2030-03-04T09:30:00+01:00',
        duration_minutes: 45,
        time_zone: 'europe/berlin',
        waiting_room: true,
        transcription_auto: false,
        join_before_start_minutes: 30,
        recording_layout: 'grid',
        captions: true,
      };
      const meeting = await appTester(createMeeting, { authData: auth, inputData });
      expect(meeting.id).toMatch(/^mtg_/);
      const stored = (await api('GET', `/meetings/${meeting.id}`)).body;
      expect(stored).toEqual(meeting);
      expect(stored).toMatchObject({
        title: 'Quarterly planning',
        scheduled_at: '2030-03-04T09:30:00+01:00',
        duration_minutes: 45,
        time_zone: 'Europe/Berlin',
        settings: {
          waiting_room: true,
          transcription_auto: false,
          join_before_start_minutes: 30,
          recording_layout: 'grid',
          captions: true,
        },
        status: 'scheduled',
        join_url: `${t.config.baseUrl}/m/${meeting.code}`,
      });
    });

    it('reads numbers and yes/no values mapped from earlier steps as text', async () => {
      const inputData = { title: '  Standup  ', duration_minutes: '15', waiting_room: 'no', transcription_auto: 'True', scheduled_at: '' };
      const meeting = await appTester(createMeeting, { authData: auth, inputData });
      expect((await api('GET', `/meetings/${meeting.id}`)).body).toMatchObject({
        title: 'Standup',
        duration_minutes: 15,
        settings: { waiting_room: false, transcription_auto: true },
      });
    });

    it('leaves empty inputs to svc’s defaults: an instant 60-minute meeting starting now', async () => {
      const meeting = await appTester(createMeeting, { authData: auth, inputData: { title: 'Right now' } });
      const stored = (await api('GET', `/meetings/${meeting.id}`)).body;
      expect(stored).toMatchObject({
        duration_minutes: 60,
        time_zone: null,
        settings: {
          waiting_room: false,
          transcription_auto: false,
          join_before_start_minutes: 10,
          recording_layout: 'active_speaker',
          captions: false,
        },
      });
      expect(Date.parse(stored.scheduled_at)).toBe(t.clock.now());
    });

    it.each([
      [{ title: 'Bad', duration_minutes: '1.5' }, /duration_minutes must be a whole number/],
      [{ title: 'Bad', waiting_room: 'maybe' }, /waiting_room must be true or false/],
      [{ title: 'Bad', duration_minutes: 5000 }, /duration_minutes must be <= 1440/],
      [{ title: 'Bad', scheduled_at: '2030-03-04T09:30:00' }, /scheduled_at/],
      [{ title: 'Bad', time_zone: 'Mars/Olympus' }, /time_zone/],
      [{ title: 'Bad', join_before_start_minutes: '10080.5' }, /join_before_start_minutes must be a whole number/],
      [{ title: 'Bad', join_before_start_minutes: 10081 }, /join_before_start_minutes must be <= 10080/],
      [{ title: 'Bad', recording_layout: 'speaker' }, /recording_layout must be active_speaker or grid/],
      [{ title: 'Bad', captions: 'sometimes' }, /captions must be true or false/],
    ])('refuses %j with a message that names the input, and creates nothing', async (inputData, message) => {
      const before = (await api('GET', '/meetings?limit=100')).body.data.length;
      await expect(appTester(createMeeting, { authData: auth, inputData })).rejects.toThrow(message);
      expect((await api('GET', '/meetings?limit=100')).body.data.length).toBe(before);
    });

    it('shows svc’s detail when the key lacks meetings:write', async () => {
      const readOnly = authDataFor(t, t.key(['meetings:read']));
      await expect(appTester(createMeeting, { authData: readOnly, inputData: { title: 'Nope' } })).rejects.toThrow(
        /lacks the meetings:write scope/,
      );
    });

    it('creates a webinar with its slug, which then takes registrations', async () => {
      const inputData = { title: 'Launch webinar', kind: 'webinar', slug: 'zap-made-webinar', scheduled_at: '2030-05-01T16:00:00Z' };
      const webinar = await appTester(createMeeting, { authData: auth, inputData });
      expect(webinar).toMatchObject({ kind: 'webinar', slug: 'zap-made-webinar', status: 'scheduled' });
      const registration = await api('POST', '/webinars/zap-made-webinar/registrations', { email: 'w@example.com', name: 'W' });
      expect(registration.body.webinar.meeting_id).toBe(webinar.id);
      await expect(appTester(createMeeting, { authData: auth, inputData: { title: 'No slug', kind: 'webinar' } })).rejects.toThrow(
        /slug is required for a webinar/,
      );
    });

    it('sends an Idempotency-Key from the Deduplication ID, so a replayed Zap run returns the first meeting', async () => {
      const bundle = { authData: auth, inputData: { title: 'Intake call', dedupe_id: 'form-entry-981' }, meta: { zap: { id: '4242' } } };
      const before = countMeetings(t);
      const first = await appTester(createMeeting, bundle as never);
      const replay = await appTester(createMeeting, bundle as never);
      expect(replay).toEqual(first);
      expect(countMeetings(t)).toBe(before + 1);
      const otherRecord = await appTester(createMeeting, {
        ...bundle,
        inputData: { ...bundle.inputData, dedupe_id: 'form-entry-982' },
      } as never);
      const otherZap = await appTester(createMeeting, { ...bundle, meta: { zap: { id: '4343' } } } as never);
      expect(new Set([first.id, otherRecord.id, otherZap.id]).size).toBe(3);
    });

    it('keys a scheduled meeting by its inputs, and sends no key for an instant meeting without a Deduplication ID', async () => {
      const scheduled = { authData: auth, inputData: { title: 'Board meeting', scheduled_at: '2030-06-01T09:00:00Z' } };
      const first = await appTester(createMeeting, scheduled);
      expect((await appTester(createMeeting, scheduled)).id).toBe(first.id);
      const instant = { authData: auth, inputData: { title: 'Quick call' } };
      const a = await appTester(createMeeting, instant);
      const b = await appTester(createMeeting, instant);
      expect(a.id).not.toBe(b.id);
    });

    it('has a sample and output fields that match a real meeting', async () => {
      const meeting = await appTester(createMeeting, {
        authData: auth,
        inputData: { title: 'Shape check', scheduled_at: '2030-01-01T10:00:00Z' },
      });
      expectSameShape(App.creates.create_meeting.operation.sample, meeting);
      expectFieldsCover(App.creates.create_meeting.operation.outputFields as { key: string }[], meeting);
    });
  });

  describe('register_participant', () => {
    beforeAll(async () => {
      await createWebinar(t, key, 'zap-onboarding', 'Onboarding webinar');
    });

    it('registers someone, as the API and the registration feed then show', async () => {
      const inputData = { slug: 'zap-onboarding', email: 'grace@example.com', name: 'Grace Hopper' };
      const registration = await appTester(registerParticipant, { authData: auth, inputData });
      expect(registration).toMatchObject({
        id: expect.stringMatching(/^reg_/),
        email: 'grace@example.com',
        name: 'Grace Hopper',
        webinar: { slug: 'zap-onboarding', title: 'Onboarding webinar' },
        already_registered: false,
      });
      const again = await api('POST', '/webinars/zap-onboarding/registrations', { email: 'grace@example.com', name: 'Grace Hopper' });
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ ...registration, already_registered: undefined });
      const event = (await api('GET', '/triggers/registration.created?slug=zap-onboarding&limit=1')).body.data[0];
      expect(event.data.registration.id).toBe(registration.id);
    });

    it('returns the existing registration for an email registered before, marked as such', async () => {
      const first = await appTester(registerParticipant, {
        authData: auth,
        inputData: { slug: 'zap-onboarding', email: 'alan@example.com', name: 'Alan' },
      });
      const second: RegistrationResult = await appTester(registerParticipant, {
        authData: auth,
        inputData: { slug: 'zap-onboarding', email: 'ALAN@example.com', name: 'Alan T.' },
      });
      expect(second).toEqual({ ...first, already_registered: true });
    });

    it('shows svc’s detail for an unknown webinar and for a bad email', async () => {
      await expect(
        appTester(registerParticipant, { authData: auth, inputData: { slug: 'no-such-webinar', email: 'x@example.com', name: 'X' } }),
      ).rejects.toThrow(/no-such-webinar not found/);
      await expect(
        appTester(registerParticipant, { authData: auth, inputData: { slug: 'zap-onboarding', email: 'not an email', name: 'X' } }),
      ).rejects.toThrow(/email must be an email address/);
    });

    it('registers once when Zapier replays the step: with a Deduplication ID the replay answers as the first run did', async () => {
      const inputData = { slug: 'zap-onboarding', email: 'replay@example.com', name: 'Replay', dedupe_id: 'row-7' };
      const first = await appTester(registerParticipant, { authData: auth, inputData });
      const replay = await appTester(registerParticipant, { authData: auth, inputData });
      expect(first.already_registered).toBe(false);
      // svc replays its first answer (201) for the same Idempotency-Key, so the replay reads as the first registration.
      expect(replay).toEqual(first);
      const count = t.services.db.prepare("SELECT count(*) FROM registrations WHERE email = 'replay@example.com'").pluck().get();
      expect(count).toBe(1);
    });

    it('has a sample and output fields that match a real registration', async () => {
      const registration = await appTester(registerParticipant, {
        authData: auth,
        inputData: { slug: 'zap-onboarding', email: 'shape@example.com', name: 'Shape' },
      });
      expectSameShape(App.creates.register_participant.operation.sample, registration);
      expectFieldsCover(App.creates.register_participant.operation.outputFields as { key: string }[], registration);
    });
  });

  describe('update_meeting, end_meeting, cancel_meeting and reopen_meeting', () => {
    it('updates only the inputs given, settings merged, by id or code', async () => {
      const meeting = await appTester(createMeeting, {
        authData: auth,
        inputData: { title: 'Draft', scheduled_at: '2030-07-01T10:00:00Z', waiting_room: true },
      });
      const updated = await appTester(updateMeeting, {
        authData: auth,
        inputData: {
          meeting: meeting.code,
          title: 'Final',
          duration_minutes: '30',
          transcription_auto: 'yes',
          time_zone: 'Asia/Tokyo',
          join_before_start_minutes: '0',
          recording_layout: 'grid',
          captions: 'yes',
        },
      });
      expect(updated).toMatchObject({
        id: meeting.id,
        title: 'Final',
        duration_minutes: 30,
        scheduled_at: '2030-07-01T10:00:00Z',
        time_zone: 'Asia/Tokyo',
        settings: { waiting_room: true, transcription_auto: true, join_before_start_minutes: 0, recording_layout: 'grid', captions: true },
      });
      expect((await api('GET', `/meetings/${meeting.id}`)).body).toEqual(updated);
      await expect(appTester(updateMeeting, { authData: auth, inputData: { meeting: meeting.id } })).rejects.toThrow(/at least one field/);
    });

    it('ends a live meeting, and shows svc’s conflict for one that is not live', async () => {
      const meeting = await appTester(createMeeting, { authData: auth, inputData: { title: 'Live one' } });
      await expect(appTester(endMeeting, { authData: auth, inputData: { meeting: meeting.id } })).rejects.toThrow(/scheduled/);
      t.services.meetings.start(t.services.meetings.findAnywhere(meeting.id));
      const ended = await appTester(endMeeting, { authData: auth, inputData: { meeting: meeting.id } });
      expect(ended).toMatchObject({ id: meeting.id, status: 'ended' });
      expect((await api('GET', `/meetings/${meeting.id}`)).body.status).toBe('ended');
      expectSameShape(App.creates.end_meeting.operation.sample, ended);
    });

    it('cancels a scheduled meeting, which stays readable, and refuses an unknown one', async () => {
      const meeting = await appTester(createMeeting, {
        authData: auth,
        inputData: { title: 'To cancel', scheduled_at: '2030-08-01T10:00:00Z' },
      });
      const cancelled = await appTester(cancelMeeting, { authData: auth, inputData: { meeting: meeting.join_url } });
      expect(cancelled).toMatchObject({ id: meeting.id, status: 'cancelled' });
      expect((await api('GET', `/meetings/${meeting.id}`)).body.status).toBe('cancelled');
      await expect(appTester(cancelMeeting, { authData: auth, inputData: { meeting: 'zzz-zzzz-zzz' } })).rejects.toThrow(/not found/);
    });

    it('reopens a cancelled meeting and an ended one with the same join link, and leaves a scheduled one as it is', async () => {
      const meeting = await appTester(createMeeting, {
        authData: auth,
        inputData: { title: 'Back again', scheduled_at: '2030-09-01T10:00:00Z' },
      });
      await appTester(cancelMeeting, { authData: auth, inputData: { meeting: meeting.id } });
      const reopened = await appTester(reopenMeeting, { authData: auth, inputData: { meeting: meeting.join_url } });
      expect(reopened).toMatchObject({ id: meeting.id, join_url: meeting.join_url, status: 'scheduled', ended_at: null });
      expect((await api('GET', `/meetings/${meeting.id}`)).body).toEqual(reopened);
      expect(await appTester(reopenMeeting, { authData: auth, inputData: { meeting: meeting.code } })).toEqual(reopened);

      t.services.meetings.start(t.services.meetings.findAnywhere(meeting.id));
      await appTester(endMeeting, { authData: auth, inputData: { meeting: meeting.id } });
      const again = await appTester(reopenMeeting, { authData: auth, inputData: { meeting: meeting.id } });
      expect(again).toMatchObject({ id: meeting.id, status: 'scheduled', started_at: null, ended_at: null });
      expectSameShape(App.creates.reopen_meeting.operation.sample, again);
      expectFieldsCover(App.creates.reopen_meeting.operation.outputFields as { key: string }[], again);
      await expect(appTester(reopenMeeting, { authData: auth, inputData: { meeting: 'zzz-zzzz-zzz' } })).rejects.toThrow(/not found/);
    });

    it('shows svc’s detail when the key may not reopen meetings', async () => {
      const meeting = await appTester(createMeeting, {
        authData: auth,
        inputData: { title: 'Read only', scheduled_at: '2030-09-02T10:00:00Z' },
      });
      await appTester(cancelMeeting, { authData: auth, inputData: { meeting: meeting.id } });
      const readOnly = authDataFor(t, t.key(['meetings:read']));
      await expect(appTester(reopenMeeting, { authData: readOnly, inputData: { meeting: meeting.id } })).rejects.toThrow(
        /lacks the meetings:write scope/,
      );
      expect((await api('GET', `/meetings/${meeting.id}`)).body.status).toBe('cancelled');
    });
  });
});
