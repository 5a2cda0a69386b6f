/* eslint-disable @typescript-eslint/no-explicit-any -- the tests walk arbitrary JSON answers */
import { seedMeeting, startTestServer, type TestServer } from '@svc/service/testing';

describe('project integration: events into public.svc_events', () => {
  let t: TestServer;
  let keys: { anon: string; serviceRole: string };
  const events = async (apikey = keys.serviceRole) => {
    const r = await t.request('POST', '/project/graphql/v1', {
      headers: { apikey },
      body: { query: '{ svc_eventsCollection(first: 30) { edges { node { id type data } } } }' },
    });
    return r.body.data.svc_eventsCollection.edges.map((e: any) => ({ ...e.node, data: JSON.parse(e.node.data) }));
  };

  beforeAll(async () => {
    t = await startTestServer();
    await t.project.start();
    keys = t.project.keys();
  }, 180_000);
  afterAll(async () => {
    await t?.close();
  }, 60_000);

  it('is created through the integrations API and inserts each subscribed event once, even when redelivered after a crash', async () => {
    const created = await t.request('POST', '/api/v1/public/integrations', {
      key: t.key(),
      body: { kind: 'project', events: ['meeting.started'] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ kind: 'project', channel: null, secret_hint: 'public.svc_events', status: 'ok' });

    const meetings = [seedMeeting(t, { title: 'one' }), seedMeeting(t, { title: 'two' })];
    for (const m of meetings) t.services.meetings.start(m);
    const worker = t.deliveryWorker();
    expect(await worker.runOnce()).toBe(2);

    const rows = await events();
    expect(rows).toHaveLength(2);
    expect(rows.map((r: any) => r.type)).toEqual(['meeting.started', 'meeting.started']);
    expect(rows.map((r: any) => r.data.meeting.title).sort()).toEqual(['one', 'two']);
    const ids = t.services.db.prepare(`SELECT id FROM events WHERE type = 'meeting.started' ORDER BY id`).pluck().all();
    expect(rows.map((r: any) => r.id).sort()).toEqual(ids);

    // A crash after the row committed but before the attempt was recorded: the delivery is due again.
    t.services.db
      .prepare(`UPDATE deliveries SET status = 'pending', completed_at = NULL, next_attempt_at = 0 WHERE destination_kind = 'project'`)
      .run();
    expect(await worker.runOnce()).toBe(2);
    expect(await events()).toHaveLength(2);
    const states = t.services.db.prepare(`SELECT status FROM deliveries WHERE destination_kind = 'project'`).pluck().all();
    expect(states).toEqual(['succeeded', 'succeeded']);

    // RLS is on and no policy exists: the anon key sees the table but none of its rows.
    expect(await events(keys.anon)).toEqual([]);
  });

  it('refuses chat settings on a project integration', async () => {
    const bad = await t.request('POST', '/api/v1/public/integrations', {
      key: t.key(),
      body: { kind: 'project', events: ['meeting.ended'], webhook_url: 'https://example.com/x' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toEqual({ param: 'webhook_url', message: 'is not used by project integrations' });
  });
});
