import { seedMeeting, type TestServer } from '@svc/service/testing';
import App from '../src';
import { findMeeting } from '../src/searches/find_meeting';
import { findRegistration } from '../src/searches/find_registration';
import { getSummary } from '../src/searches/get_summary';
import { getTranscript } from '../src/searches/get_transcript';
import {
  appTester,
  authDataFor,
  callApi,
  createWebinar,
  expectFieldsCover,
  expectSameShape,
  finishMedia,
  runMeeting,
  startService,
} from './support';

type Perform = (z: never, bundle: never) => Promise<unknown>;

describe('searches', () => {
  let t: TestServer;
  let key: string;
  let auth: { base_url: string; api_key: string };
  beforeAll(async () => {
    t = await startService();
    key = t.key();
    auth = authDataFor(t, key);
  });
  afterAll(() => t.close());
  const search = <T>(perform: Perform, inputData: Record<string, unknown>, authData = auth) =>
    appTester(perform as never, { authData, inputData }) as Promise<T[]>;

  describe('find_meeting', () => {
    it('finds a meeting by id, by code and by join URL, as the API reads it', async () => {
      const meeting = seedMeeting(t, { title: 'Find me' });
      const stored = (await callApi(t, key)('GET', `/meetings/${meeting.id}`)).body;
      for (const ref of [meeting.id, meeting.code, ` ${stored.join_url} `]) {
        expect(await search(findMeeting, { meeting: ref })).toEqual([stored]);
      }
      expectSameShape(App.searches.find_meeting.operation.sample, stored);
      expectFieldsCover(App.searches.find_meeting.operation.outputFields as { key: string }[], stored);
    });

    it('finds nothing for an unknown meeting, and shows svc’s detail for a missing scope', async () => {
      expect(await search(findMeeting, { meeting: 'zzz-zzzz-zzz' })).toEqual([]);
      const noScope = authDataFor(t, t.key(['webinars:write']));
      await expect(search(findMeeting, { meeting: 'zzz-zzzz-zzz' }, noScope)).rejects.toThrow(/lacks the meetings:read scope/);
    });
  });

  describe('get_transcript and get_summary', () => {
    it('return nothing before the media pipeline is done, then the text, segments and summary as line items', async () => {
      const meetingId = await runMeeting(t, key, 'Release sync');
      expect(await search(getTranscript, { meeting: meetingId })).toEqual([]);
      expect(await search(getSummary, { meeting: meetingId })).toEqual([]);
      finishMedia(t, meetingId);
      t.services.summaries.save(meetingId, {
        tldr: 'Release on Friday.',
        decisions: [{ text: 'We ship on Friday.', cite: [0] }],
        action_items: [{ text: 'Write the release notes', owner: 'Ada', due: '2030-01-17', cite: [1] }],
        generator: 'extractive',
      });
      const [transcript] = await search<Record<string, unknown>>(getTranscript, { meeting: meetingId });
      expect(transcript).toMatchObject({
        id: meetingId,
        meeting_id: meetingId,
        language: 'en',
        text: expect.stringContaining('We ship on Friday.'),
        segments: [
          { start: 0, end: 2.5, speaker: 'Bob', text: 'We ship on Friday.' },
          { start: 2.5, end: 5.1, speaker: 'Ada', text: 'I write the release notes.' },
        ],
      });
      expectSameShape(App.searches.get_transcript.operation.sample, transcript);
      const [summary] = await search<Record<string, unknown>>(getSummary, { meeting: meetingId });
      expect(summary).toEqual({
        id: meetingId,
        meeting_id: meetingId,
        tldr: 'Release on Friday.',
        decisions: [{ text: 'We ship on Friday.' }],
        action_items: [{ text: 'Write the release notes', owner: 'Ada', due: '2030-01-17' }],
        decisions_text: '- We ship on Friday.',
        action_items_text: '- Write the release notes (Ada, due 2030-01-17)',
        generator: 'extractive',
        created_at: expect.any(String),
      });
      expectSameShape(App.searches.get_summary.operation.sample, summary);
    });

    it('needs transcripts:read', async () => {
      const meetingId = await runMeeting(t, key, 'Scoped');
      const noScope = authDataFor(t, t.key(['meetings:read']));
      await expect(search(getTranscript, { meeting: meetingId }, noScope)).rejects.toThrow(/lacks the transcripts:read scope/);
    });
  });

  describe('find_registration and its search-or-create pairing', () => {
    beforeAll(async () => {
      await createWebinar(t, key, 'zap-find', 'Findable webinar');
    });

    it('finds a registration by email whatever its case, and nothing for an unknown email', async () => {
      const created = (
        await callApi(t, key)('POST', '/webinars/zap-find/registrations', { email: 'Grace@Example.com', name: 'Grace Hopper' })
      ).body;
      const found = await search<Record<string, unknown>>(findRegistration, { slug: 'zap-find', email: 'grace@EXAMPLE.com' });
      expect(found).toEqual([{ ...created, already_registered: true }]);
      expectSameShape(App.searches.find_registration.operation.sample, found[0]);
      expect(await search(findRegistration, { slug: 'zap-find', email: 'nobody@example.com' })).toEqual([]);
      await expect(search(findRegistration, { slug: 'no-such-webinar', email: 'a@example.com' })).rejects.toThrow(
        /no-such-webinar not found/,
      );
    });

    it('pairs the search with Register Participant, and the pairing’s inputs are the search’s', () => {
      const pairing = App.searchOrCreates!.find_registration!;
      expect(pairing).toMatchObject({ search: 'find_registration', create: 'register_participant' });
      const searchKeys = (App.searches.find_registration.operation.inputFields as { key: string }[]).map((f) => f.key);
      const createKeys = (App.creates.register_participant.operation.inputFields as { key: string }[]).map((f) => f.key);
      expect(searchKeys.every((k) => createKeys.includes(k))).toBe(true);
    });
  });
});
