import { RoomClient, startReceiver, type JoinCredential, type TestReceiver } from '@svc/service/testing';
import fs from 'node:fs';
import { call, type ServiceProcess, startService, tempDataDir, unlimitedKey } from '../../test/support/service-process';
import { createN8nHome, ensureTool, INSTALL_TIMEOUT_MS, waitFor, type N8nHome, type N8nServer } from './support/n8n';
import { ownerSession, type N8nSession } from './support/n8n-rest';
import { forwardTo, locator, svcCredentialExport, svcNode, workflowExport } from './support/workflows';

const API = '/api/v1/public';
const FILTERED_ID = 'svcTriggerFilterE2e';
const FILTERED_WEBHOOK = '0d7e2c4a-6b1f-4e8d-a3c5-9f2b7e1d4c60';
const LISTEN_ID = 'svcTriggerListenE2e';
const LISTEN_WEBHOOK = '4a9b3c2d-1e0f-4a7b-8c6d-5e4f3a2b1c0d';

describe('the svc Trigger (webhooks) in the real n8n 2.8.4 runtime: the webinar filter, and "Listen for test event" in the editor', () => {
  let dataDir: string;
  let key: string;
  let svc: ServiceProcess | undefined;
  let published: TestReceiver | undefined;
  let listened: TestReceiver | undefined;
  let n8n: N8nHome | undefined;
  let server: N8nServer | undefined;
  let session: N8nSession;
  const rooms: RoomClient[] = [];

  const api = (method: string, path: string, body?: unknown) => call(svc!.url, method, API + path, key, body);
  const endpointsFor = async (url: string) =>
    (await api('GET', '/webhook-endpoints')).body.data.filter((e: { url: string }) => e.url === url) as { id: string; events: string[] }[];
  const bodiesOf = (receiver: TestReceiver) => receiver.requests.map((r) => JSON.parse(r.rawBody.toString('utf8')));
  const executionCount = async (workflowId: string) =>
    (await session.request('GET', `/rest/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId }))}`)).body.data
      .count as number;

  beforeAll(async () => {
    const bin = await ensureTool('n8n');
    dataDir = tempDataDir();
    key = unlimitedKey(dataDir);
    svc = await startService(dataDir, { SVC_ALLOW_INSECURE_WEBHOOKS: 'true' });
    published = await startReceiver(() => ({ status: 200 }));
    listened = await startReceiver(() => ({ status: 200 }));
    n8n = await createN8nHome(bin, 'custom-extensions');
    const filtered = workflowExport(
      FILTERED_ID,
      'svc one webinar',
      [
        svcNode(
          n8n.typePrefix,
          'svcTrigger',
          'Svc Trigger',
          0,
          { events: ['registration.created', 'meeting.started'], webinar: locator('slug', 'hook-wanted') },
          { webhookId: FILTERED_WEBHOOK },
        ),
        forwardTo(published.url),
      ],
      [['Svc Trigger', 'Forward']],
    );
    const listening = workflowExport(
      LISTEN_ID,
      'svc listen',
      [
        svcNode(n8n.typePrefix, 'svcTrigger', 'Svc Trigger', 0, { events: ['registration.created'] }, { webhookId: LISTEN_WEBHOOK }),
        forwardTo(listened.url),
      ],
      [['Svc Trigger', 'Forward']],
    );
    for (const args of [
      ['import:credentials', `--input=${n8n.writeJson('credentials.json', svcCredentialExport(svc.url, key))}`],
      // Both workflows in one import: every n8n command boots n8n, which takes seconds.
      ['import:workflow', `--input=${n8n.writeJson('workflows.json', [filtered, listening])}`],
      ['publish:workflow', `--id=${FILTERED_ID}`],
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
    await published?.close();
    await listened?.close();
    await svc?.stop();
    n8n?.remove();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  }, 30_000);

  it("runs only on the chosen webinar's events, and acknowledges the others so svc does not retry them", async () => {
    const url = `${n8n!.url}/webhook/${FILTERED_WEBHOOK}/webhook`;
    await waitFor(async () => (await endpointsFor(url)).length === 1, 30_000, "the published trigger's endpoint");
    const [endpoint] = await endpointsFor(url);
    const wanted = (await api('POST', '/meetings', { title: 'Wanted', kind: 'webinar', slug: 'hook-wanted' })).body;
    const other = (await api('POST', '/meetings', { title: 'Other', kind: 'webinar', slug: 'hook-other' })).body;

    for (const [n, slug] of ['hook-other', 'hook-wanted', 'hook-other'].entries()) {
      expect((await api('POST', `/webinars/${slug}/registrations`, { email: `person${n}@example.com`, name: `Person ${n}` })).status).toBe(
        201,
      );
    }
    for (const meeting of [other, wanted]) {
      const credential = (await call(svc!.url, 'POST', `/rooms/v1/${meeting.code}/credentials`, undefined, { name: 'Host' }))
        .body as JoinCredential;
      const { client, answer } = await RoomClient.join(credential);
      expect(answer.ok).toBe(true);
      rooms.push(client);
    }

    const deliveries = async () =>
      (await api('GET', `/webhook-endpoints/${endpoint!.id}/deliveries`)).body.data as {
        status: string;
        attempts: { status_code: number }[];
      }[];
    await waitFor(
      async () => (await deliveries()).length === 5 && (await deliveries()).every((d) => d.status === 'succeeded'),
      30_000,
      'five deliveries, all acknowledged',
    );
    await waitFor(() => published!.requests.length === 2, 15_000, 'the two forwarded events of the wanted webinar');
    // Deliveries to one endpoint may overlap, so the order of the two runs is not fixed.
    expect(
      bodiesOf(published!)
        .map((e) => [e.type, e.data.webinar?.slug ?? e.data.meeting.id])
        .sort(),
    ).toEqual([
      ['meeting.started', wanted.id],
      ['registration.created', 'hook-wanted'],
    ]);
    expect((await deliveries()).flatMap((d) => d.attempts.map((a) => a.status_code))).toEqual([200, 200, 200, 200, 200]);
    // An execution is saved after it has forwarded its event.
    await waitFor(async () => (await executionCount(FILTERED_ID)) >= 2, 15_000, 'the two saved executions');
    expect(await executionCount(FILTERED_ID)).toBe(2);
  }, 60_000);

  it('"Listen for test event" subscribes the test URL, runs the editor\'s execution with the delivered event, then unsubscribes', async () => {
    const testUrl = `${n8n!.url}/webhook-test/${LISTEN_WEBHOOK}/webhook`;
    const workflowData = (await session.request('GET', `/rest/workflows/${LISTEN_ID}`)).body.data;
    const listen = await session.request('POST', `/rest/workflows/${LISTEN_ID}/run`, {
      workflowData,
      triggerToStartFrom: { name: 'Svc Trigger' },
    });
    expect([listen.status, listen.body.data]).toEqual([200, { waitingForWebhook: true }]);
    const [endpoint] = await endpointsFor(testUrl);
    expect(endpoint).toMatchObject({ events: ['registration.created'] });

    const registration = await api('POST', '/webinars/hook-wanted/registrations', { email: 'listen@example.com', name: 'Listener' });
    expect(registration.status).toBe(201);
    await waitFor(() => listened!.requests.length === 1, 20_000, 'the test execution forwarding the delivered event');
    const [event] = (await api('GET', '/triggers/registration.created?limit=1')).body.data;
    expect(bodiesOf(listened!)).toEqual([event]);
    expect(event.data.registration.id).toBe(registration.body.id);

    await waitFor(async () => (await endpointsFor(testUrl)).length === 0, 15_000, "the test URL's endpoint removed after the test event");
    await waitFor(async () => (await executionCount(LISTEN_ID)) === 1, 15_000, 'the saved manual execution');
    const { results } = (
      await session.request('GET', `/rest/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId: LISTEN_ID }))}`)
    ).body.data;
    expect(results[0]).toMatchObject({ mode: 'manual', status: 'success' });
  }, 60_000);
});
