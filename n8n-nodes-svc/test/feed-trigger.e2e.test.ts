import { RoomClient, startReceiver, type JoinCredential, type TestReceiver } from '@svc/service/testing';
import fs from 'node:fs';
import { call, type ServiceProcess, startService, tempDataDir, unlimitedKey } from '../../test/support/service-process';
import { createN8nHome, ensureTool, INSTALL_TIMEOUT_MS, waitFor, type N8nHome, type N8nServer } from './support/n8n';
import { ownerSession, type N8nSession } from './support/n8n-rest';
import { forwardTo, locator, SVC_CREDENTIAL, svcCredentialExport, svcNode, workflowExport } from './support/workflows';

const API = '/api/v1/public';
const WORKFLOW_ID = 'svcFeedTriggerE2e1';
const TRIGGER = 'Svc Feed Trigger';
const FROM_BEGINNING_ID = 'svcFeedTriggerE2e2';

describe('the svc Feed Trigger in the real n8n 2.8.4 runtime (`n8n start`, a published polling workflow)', () => {
  let dataDir: string;
  let key: string;
  let svc: ServiceProcess | undefined;
  let receiver: TestReceiver | undefined;
  let fromBeginning: TestReceiver | undefined;
  const history: string[] = [];
  let n8n: N8nHome | undefined;
  let server: N8nServer | undefined;
  let session: N8nSession;
  let wanted: { id: string; code: string };
  const rooms: RoomClient[] = [];

  const api = (method: string, path: string, body?: unknown) => call(svc!.url, method, API + path, key, body);
  const forwarded = () => receiver!.requests.map((r) => JSON.parse(r.rawBody.toString('utf8')) as { id: string; type: string; data: any }); // eslint-disable-line @typescript-eslint/no-explicit-any
  const newestEventId = async () => (await api('GET', '/events?limit=1')).body.next_cursor as string;
  const workflowNow = async () => (await session.request('GET', `/rest/workflows/${WORKFLOW_ID}`)).body.data;
  const cursor = async () => (await workflowNow()).staticData?.[`node:${TRIGGER}`]?.cursor as string | undefined;
  const register = async (slug: string, n: number) => {
    const res = await api('POST', `/webinars/${slug}/registrations`, { email: `p${n}@example.com`, name: `Person ${n}` });
    expect(res.status).toBe(201);
    return res.body as { id: string };
  };
  const goLive = async (code: string) => {
    const credential = (await call(svc!.url, 'POST', `/rooms/v1/${code}/credentials`, undefined, { name: 'Host' })).body as JoinCredential;
    const { client, answer } = await RoomClient.join(credential);
    expect(answer.ok).toBe(true);
    rooms.push(client);
  };

  beforeAll(async () => {
    const bin = await ensureTool('n8n');
    dataDir = tempDataDir();
    key = unlimitedKey(dataDir);
    svc = await startService(dataDir);
    receiver = await startReceiver(() => ({ status: 200 }));
    fromBeginning = await startReceiver(() => ({ status: 200 }));
    n8n = await createN8nHome(bin, 'community-package');

    // History from before the workflow is published: the first poll must not deliver it.
    wanted = (await api('POST', '/meetings', { title: 'Feed webinar', kind: 'webinar', slug: 'feed-wanted' })).body;
    expect((await api('POST', '/meetings', { title: 'Other webinar', kind: 'webinar', slug: 'feed-other' })).status).toBe(201);
    for (let n = 0; n < 3; n++) history.push((await register('feed-wanted', n)).id);

    const workflow = workflowExport(
      WORKFLOW_ID,
      'svc feed',
      [
        svcNode(n8n.typePrefix, 'svcFeedTrigger', TRIGGER, 0, {
          pollTimes: { item: [{ mode: 'everyHour' }] },
          events: ['registration.created', 'meeting.started'],
          webinar: locator('slug', 'feed-wanted'),
        }),
        forwardTo(receiver.url),
      ],
      [[TRIGGER, 'Forward']],
    );
    const everything = workflowExport(
      FROM_BEGINNING_ID,
      'svc feed from the oldest event',
      [
        svcNode(n8n.typePrefix, 'svcFeedTrigger', TRIGGER, 0, { pollTimes: { item: [{ mode: 'everyHour' }] }, startFrom: 'beginning' }),
        forwardTo(fromBeginning.url),
      ],
      [[TRIGGER, 'Forward']],
    );
    for (const args of [
      ['import:credentials', `--input=${n8n.writeJson('credentials.json', svcCredentialExport(svc.url, key))}`],
      // Both workflows in one import: every n8n command boots n8n, which takes seconds.
      ['import:workflow', `--input=${n8n.writeJson('workflows.json', [workflow, everything])}`],
      ['publish:workflow', `--id=${WORKFLOW_ID}`],
      ['publish:workflow', `--id=${FROM_BEGINNING_ID}`],
    ]) {
      const result = await n8n.cli(args);
      expect([args[0], result.code]).toEqual([args[0], 0]);
    }
    server = await n8n.start();
    session = await ownerSession(n8n.url);
  }, INSTALL_TIMEOUT_MS + 120_000);

  afterAll(async () => {
    for (const room of rooms) room.close();
    await server?.stop();
    await receiver?.close();
    await fromBeginning?.close();
    await svc?.stop();
    n8n?.remove();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  }, 30_000);

  it('starts from "now" on activation: the cursor is the newest event and no history is delivered', async () => {
    const newest = await newestEventId();
    await waitFor(async () => (await cursor()) !== undefined, 30_000, "the first poll's cursor in static data");
    expect(await cursor()).toBe(newest);
    expect(receiver!.requests).toHaveLength(0);
  }, 40_000);

  it('delivers the stored history on the first poll when told to start from the oldest stored event', async () => {
    await waitFor(() => fromBeginning!.requests.length === 3, 30_000, 'the three stored registrations');
    const events = fromBeginning!.requests.map((r) => JSON.parse(r.rawBody.toString('utf8')));
    expect(events.map((e) => [e.type, e.data.registration.id])).toEqual(history.map((id) => ['registration.created', id]));
  }, 40_000);

  it('drains several feed pages in one poll, passing on only the chosen event types of the chosen webinar, oldest first, and keeps the new cursor', async () => {
    const registrations: string[] = [];
    for (let n = 100; n < 250; n++) registrations.push((await register('feed-wanted', n)).id);
    for (let n = 300; n < 330; n++) await register('feed-other', n);
    const plain = (await api('POST', '/meetings', { title: 'Not a webinar' })).body;
    await goLive(plain.code);
    await goLive(wanted.code);
    expect((await api('PATCH', `/meetings/${wanted.id}`, { status: 'ended' })).status).toBe(200);
    const newest = await newestEventId();

    // Publishing again activates the workflow, and n8n polls at once on activation.
    expect((await session.request('POST', `/rest/workflows/${WORKFLOW_ID}/deactivate`, {})).status).toBe(200);
    expect(
      (await session.request('POST', `/rest/workflows/${WORKFLOW_ID}/activate`, { versionId: (await workflowNow()).versionId })).status,
    ).toBe(200);

    await waitFor(() => receiver!.requests.length >= 151, 90_000, 'the 151 forwarded events');
    await waitFor(async () => (await cursor()) === newest, 10_000, 'the cursor after the poll');
    const events = forwarded();
    expect(events).toHaveLength(151);
    expect(events.slice(0, 150).map((e) => [e.type, e.data.registration.id])).toEqual(
      registrations.map((id) => ['registration.created', id]),
    );
    expect([events[150]!.type, events[150]!.data.meeting.id]).toEqual(['meeting.started', wanted.id]);
    expect(events.map((e) => e.id)).toEqual([...events.map((e) => e.id)].sort());
  }, 180_000);

  it('fetches the newest matching event in the editor ("Fetch Test Event", manual mode) without moving the cursor', async () => {
    const before = await cursor();
    const workflowData = await workflowNow();
    const run = await session.request('POST', `/rest/workflows/${WORKFLOW_ID}/run`, {
      workflowData,
      triggerToStartFrom: { name: TRIGGER },
    });
    expect(run.status).toBe(200);
    expect(run.body.data.executionId).toEqual(expect.any(String));
    await waitFor(() => receiver!.requests.length === 152, 30_000, 'the test event forwarded by the manual run');
    const [startedEvent] = (await api('GET', '/triggers/meeting.started')).body.data.filter(
      (e: { data: { meeting: { title: string } } }) => e.data.meeting.title === 'Feed webinar',
    );
    expect(forwarded()[151]).toEqual(startedEvent);
    expect(await cursor()).toBe(before);
  }, 60_000);

  it("lists webinars and meetings for the editor's resource locators, filtered by the search text", async () => {
    const search = (nodeType: string, methodName: string, path: string, filter?: string) =>
      session.request('POST', '/rest/dynamic-node-parameters/resource-locator-results', {
        nodeTypeAndVersion: { name: `${n8n!.typePrefix}.${nodeType}`, version: 1 },
        methodName,
        path,
        currentNodeParameters: {},
        credentials: { svcApi: SVC_CREDENTIAL },
        ...(filter === undefined ? {} : { filter }),
      });
    const webinars = await search('svcFeedTrigger', 'searchWebinars', 'webinar', 'other');
    expect(webinars.status).toBe(200);
    expect(webinars.body.data.results).toEqual([
      { name: 'Other webinar (feed-other)', value: 'feed-other', url: expect.stringContaining('/m/') },
    ]);
    const allWebinars = (await search('svcFeedTrigger', 'searchWebinars', 'webinar')).body.data.results.map(
      (r: { value: string }) => r.value,
    );
    expect(allWebinars.sort()).toEqual(['feed-other', 'feed-wanted']);
    const meetings = await search('svc', 'searchMeetings', 'meetingId', 'not a web');
    expect(meetings.body.data.results).toEqual([
      {
        name: expect.stringMatching(/^Not a webinar \([a-z]{3}-[a-z]{4}-[a-z]{3}\)$/),
        value: expect.stringMatching(/^mtg_/),
        url: expect.any(String),
      },
    ]);
  }, 30_000);
});
