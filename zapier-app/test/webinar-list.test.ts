import { seedMeeting, type TestServer } from '@svc/service/testing';
import App from '../src';
import type { Meeting } from '../src/api';
import { listOpenWebinars } from '../src/triggers/webinar_list';
import { appTester, authDataFor, callApi, createWebinar, expectSameShape, startService } from './support';

describe('webinar_list: the hidden trigger behind the webinar dropdowns', () => {
  let t: TestServer;
  let key: string;
  beforeAll(async () => {
    t = await startService();
    key = t.key();
  });
  afterAll(() => t.close());

  it('lists the webinars that take registrations, newest first, across pages of meetings', async () => {
    const api = callApi(t, key);
    const oldest = await createWebinar(t, key, 'zap-oldest', 'Oldest webinar');
    const cancelled = await createWebinar(t, key, 'zap-cancelled');
    expect((await api('DELETE', `/meetings/${cancelled.id}`)).status).toBe(200);
    const live = await createWebinar(t, key, 'zap-live', 'Live webinar');
    t.services.meetings.start(t.services.meetings.findAnywhere(live.id));
    const ended = await createWebinar(t, key, 'zap-ended');
    t.services.meetings.start(t.services.meetings.findAnywhere(ended.id));
    expect((await api('PATCH', `/meetings/${ended.id}`, { status: 'ended' })).status).toBe(200);
    for (let i = 0; i < 230; i++) seedMeeting(t, { title: `Filler ${i}` });
    const newest = await createWebinar(t, key, 'zap-newest', 'Newest webinar');

    const webinars = await appTester(listOpenWebinars, { authData: authDataFor(t, key), meta: { isFillingDynamicDropdown: true } });
    expect(webinars.map((w: Meeting) => [w.slug, w.title, w.status])).toEqual([
      ['zap-newest', 'Newest webinar', 'scheduled'],
      ['zap-live', 'Live webinar', 'live'],
      ['zap-oldest', 'Oldest webinar', 'scheduled'],
    ]);
    expect(webinars[0]).toEqual((await api('GET', `/meetings/${newest.id}`)).body);
    expect(webinars.at(-1)!.id).toBe(oldest.id);
    expectSameShape(App.triggers.webinar_list.operation.sample, webinars[0]);
  });
});
