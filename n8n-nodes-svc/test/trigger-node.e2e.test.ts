import { startReceiver, type TestReceiver } from '@svc/service/testing';
import fs from 'node:fs';
import { svcSignature } from '@svc/connectors';
import { call, type ServiceProcess, startService, tempDataDir, unlimitedKey } from '../../test/support/service-process';
import { createN8nHome, ensureTool, INSTALL_TIMEOUT_MS, waitFor, type N8nHome, type N8nServer } from './support/n8n';
import { ownerSession, type N8nSession } from './support/n8n-rest';
import { forwardTo, svcCredentialExport, svcNode, workflowExport } from './support/workflows';

const API = '/api/v1/public';
const WORKFLOW_ID = 'svcTriggerE2e01';
const WEBHOOK_ID = '6f0c5b1e-2d7a-4c1b-9e3f-8a4d2b7c9e10';

describe('the svc trigger in the real n8n 2.8.4 runtime (`n8n start`, loaded through N8N_CUSTOM_EXTENSIONS)', () => {
  let dataDir: string;
  let key: string;
  let svc: ServiceProcess | undefined;
  let receiver: TestReceiver | undefined;
  let n8n: N8nHome | undefined;
  let server: N8nServer | undefined;
  let session: N8nSession;
  let webhookUrl: string;

  const api = (method: string, path: string, body?: unknown) => call(svc!.url, method, API + path, key, body);
  const endpointsFor = async (url: string) =>
    (await api('GET', '/webhook-endpoints')).body.data.filter((e: { url: string }) => e.url === url);
  const executions = async () =>
    (await session.request('GET', `/rest/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId: WORKFLOW_ID }))}`)).body.data
      .count as number;
  const triggerState = async () =>
    (await session.request('GET', `/rest/workflows/${WORKFLOW_ID}`)).body.data.staticData?.['node:Svc Trigger'] ?? {};
  const deliver = (rawBody: string, headers: Record<string, string>) =>
    fetch(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: rawBody });

  beforeAll(async () => {
    const bin = await ensureTool('n8n');
    dataDir = tempDataDir();
    key = unlimitedKey(dataDir);
    svc = await startService(dataDir, { SVC_ALLOW_INSECURE_WEBHOOKS: 'true' });
    receiver = await startReceiver(() => ({ status: 200 }));
    n8n = await createN8nHome(bin, 'custom-extensions');
    webhookUrl = `${n8n.url}/webhook/${WEBHOOK_ID}/webhook`;
    const workflow = workflowExport(
      WORKFLOW_ID,
      'svc registrations',
      [
        svcNode(n8n.typePrefix, 'svcTrigger', 'Svc Trigger', 0, { events: ['registration.created'] }, { webhookId: WEBHOOK_ID }),
        forwardTo(receiver.url),
      ],
      [['Svc Trigger', 'Forward']],
    );
    for (const args of [
      ['import:credentials', `--input=${n8n.writeJson('credentials.json', svcCredentialExport(svc.url, key))}`],
      ['import:workflow', `--input=${n8n.writeJson('workflow.json', workflow)}`],
      ['publish:workflow', `--id=${WORKFLOW_ID}`],
    ]) {
      const result = await n8n.cli(args);
      expect([args[0], result.code]).toEqual([args[0], 0]);
    }
    server = await n8n.start();
    session = await ownerSession(n8n.url);
  }, INSTALL_TIMEOUT_MS + 120_000);

  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
    await svc?.stop();
    n8n?.remove();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  }, 30_000);

  it('subscribes a webhook endpoint when the published workflow activates, and keeps its id and secret in static data', async () => {
    await waitFor(async () => (await endpointsFor(webhookUrl)).length === 1, 30_000, "the trigger's endpoint in GET /webhook-endpoints");
    const [endpoint] = await endpointsFor(webhookUrl);
    expect(endpoint).toMatchObject({ events: ['registration.created'], enabled: true, description: 'n8n workflow "svc registrations"' });
    expect(await triggerState()).toEqual({ endpointId: endpoint.id, endpointSecret: expect.stringMatching(/^whsec_/) });
  }, 40_000);

  it('runs the workflow with the event of a real signed delivery', async () => {
    expect((await api('POST', '/meetings', { title: 'Launch webinar', kind: 'webinar', slug: 'launch-trigger' })).status).toBe(201);
    const registration = await api('POST', '/webinars/launch-trigger/registrations', { email: 'grace@example.com', name: 'Grace' });
    expect(registration.status).toBe(201);

    await waitFor(() => receiver!.requests.length === 1, 15_000, "the workflow's forwarded event");
    const [event] = (await api('GET', '/triggers/registration.created?slug=launch-trigger')).body.data;
    expect(JSON.parse(receiver!.requests[0]!.rawBody.toString('utf8'))).toEqual(event);
    expect(event.data.registration).toMatchObject({ id: registration.body.id, email: 'grace@example.com' });
    const [{ id: endpointId }] = await endpointsFor(webhookUrl);
    // The workflow may forward the event before the service has recorded n8n's answer: wait for the record.
    const deliveriesNow = async () => (await api('GET', `/webhook-endpoints/${endpointId}/deliveries`)).body.data;
    await waitFor(async () => (await deliveriesNow())[0]?.status === 'succeeded', 15_000, 'the recorded delivery');
    const deliveries = await deliveriesNow();
    expect(
      deliveries.map((d: { event_id: string; status: string; attempts: { status_code: number }[] }) => [
        d.event_id,
        d.status,
        d.attempts.map((a) => a.status_code),
      ]),
    ).toEqual([[event.id, 'succeeded', [200]]]);
    expect(await executions()).toBe(1);
  }, 30_000);

  it('finds its endpoint again after an n8n restart instead of subscribing a second one', async () => {
    const [before] = await endpointsFor(webhookUrl);
    await server!.stop();
    server = await n8n!.start();
    await waitFor(() => server!.logs().includes('Activated workflow "svc registrations"'), 30_000, "the workflow's reactivation");
    expect((await endpointsFor(webhookUrl)).map((e: { id: string }) => e.id)).toEqual([before.id]);
    expect(await triggerState()).toEqual({ endpointId: before.id, endpointSecret: expect.stringMatching(/^whsec_/) });
  }, 60_000);

  it('verifies X-Svc-Signature over the raw bytes: 401 for every forged or stale delivery, 400 for a signed non-event, and no run for either', async () => {
    const { endpointSecret } = await triggerState();
    const now = Math.floor(Date.now() / 1000);
    // Not how JSON.stringify would write it: only a check over the bytes as received accepts this.
    const rawBody =
      '{ "id" : "evt_e2e_raw",\n  "type": "registration.created", "created_at": "2026-01-01T00:00:00Z", "data": { "note": "spaced" } }';
    const signed = { 'X-Svc-Timestamp': String(now), 'X-Svc-Signature': svcSignature(endpointSecret, now, rawBody) };

    const forged: [string, string, Record<string, string>, string][] = [
      ['a wrong signature', rawBody, { 'X-Svc-Timestamp': String(now), 'X-Svc-Signature': `sha256=${'0'.repeat(64)}` }, 'bad_signature'],
      ['a body changed after signing', rawBody.replace('spaced', 'forged'), signed, 'bad_signature'],
      [
        'a correct signature over a stale timestamp',
        rawBody,
        { 'X-Svc-Timestamp': String(now - 300), 'X-Svc-Signature': svcSignature(endpointSecret, now - 300, rawBody) },
        'stale_timestamp',
      ],
      ['no signature headers', rawBody, {}, 'missing_header'],
    ];
    for (const [what, body, headers, reason] of forged) {
      const res = await deliver(body, headers);
      expect([what, res.status, await res.json()]).toEqual([what, 401, { error: reason }]);
    }

    const notAnEvent = '[1, 2]';
    const unparsable = await deliver(notAnEvent, {
      'X-Svc-Timestamp': String(now),
      'X-Svc-Signature': svcSignature(endpointSecret, now, notAnEvent),
    });
    expect([unparsable.status, await unparsable.json()]).toEqual([400, { error: 'invalid_body' }]);

    const accepted = await deliver(rawBody, { ...signed, 'X-Svc-Signature': `sha256=${'1'.repeat(64)}, ${signed['X-Svc-Signature']}` });
    expect(accepted.status).toBe(200);
    await waitFor(() => receiver!.requests.length === 2, 15_000, 'the workflow run of the correctly signed delivery');
    expect(JSON.parse(receiver!.requests[1]!.rawBody.toString('utf8'))).toEqual(JSON.parse(rawBody));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect([receiver!.requests.length, await executions()]).toEqual([2, 2]);
  }, 40_000);

  it('tests the credential the way the editor does: GET /me with the key', async () => {
    const test = (data: Record<string, string>) =>
      session.request('POST', '/rest/credentials/test', { credentials: { id: 'svcCredentialE2e', name: 'svc e2e', type: 'svcApi', data } });
    expect((await test({ baseUrl: `${svc!.url}/`, apiKey: key })).body.data).toEqual({ status: 'OK', message: 'Connection successful!' });
    expect((await test({ baseUrl: svc!.url, apiKey: 'svc_sk_not_a_key' })).body.data).toMatchObject({ status: 'Error' });
  }, 20_000);

  it('removes the endpoint when the workflow is deactivated', async () => {
    expect((await session.request('POST', `/rest/workflows/${WORKFLOW_ID}/deactivate`, {})).status).toBe(200);
    expect(await endpointsFor(webhookUrl)).toEqual([]);
    expect(await triggerState()).toEqual({});
    expect((await deliver('{}', {})).status).toBe(404);
  }, 20_000);
});
