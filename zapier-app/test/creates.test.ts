import type { TestServer } from '@svc/service/testing';
import App from '../src';
import { createMeeting } from '../src/creates/create_meeting';
import { registerParticipant, type RegistrationResult } from '../src/creates/register_participant';
import { appTester, authDataFor, callApi, createWebinar, expectFieldsCover, expectSameShape, startService } from './support';

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
        waiting_room: true,
        transcription_auto: false,
      };
      const meeting = await appTester(createMeeting, { authData: auth, inputData });
      expect(meeting.id).toMatch(/^mtg_/);
      const stored = (await api('GET', `/meetings/${meeting.id}`)).body;
      expect(stored).toEqual(meeting);
      expect(stored).toMatchObject({
        title: 'Quarterly planning',
        scheduled_at: '2030-03-04T09:30:00+01:00',
        duration_minutes: 45,
        settings: { waiting_room: true, transcription_auto: false },
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
      expect(stored).toMatchObject({ duration_minutes: 60, settings: { waiting_room: false, transcription_auto: false } });
      expect(Date.parse(stored.scheduled_at)).toBe(t.clock.now());
    });

    it.each([
      [{ title: 'Bad', duration_minutes: '1.5' }, /duration_minutes must be a whole number/],
      [{ title: 'Bad', waiting_room: 'maybe' }, /waiting_room must be true or false/],
      [{ title: 'Bad', duration_minutes: 5000 }, /duration_minutes must be <= 1440/],
      [{ title: 'Bad', scheduled_at: '2030-03-04T09:30:00' }, /scheduled_at/],
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

    it('has a sample and output fields that match a real registration', async () => {
      const registration = await appTester(registerParticipant, {
        authData: auth,
        inputData: { slug: 'zap-onboarding', email: 'shape@example.com', name: 'Shape' },
      });
      expectSameShape(App.creates.register_participant.operation.sample, registration);
      expectFieldsCover(App.creates.register_participant.operation.outputFields as { key: string }[], registration);
    });
  });
});
