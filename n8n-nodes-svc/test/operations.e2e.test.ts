import { RoomClient, seedMediaResults, startReceiver, type JoinCredential, type TestReceiver } from '@svc/service/testing';
import fs from 'node:fs';
import { call, startService, svcCli, tempDataDir, type ServiceProcess } from '../../test/support/service-process';
import {
  createN8nHome,
  ensureTool,
  executionOf,
  freePort,
  INSTALL_TIMEOUT_MS,
  outputOf,
  type Execution,
  type N8nHome,
} from './support/n8n';
import { locator, manualTrigger, svcCredentialExport, svcNode, workflowExport, type WorkflowNode } from './support/workflows';

const API = '/api/v1/public';
const LIMITED_CREDENTIAL = { id: 'svcCredentialLimited', name: 'svc 2 per second' };
const MINUTE_CREDENTIAL = { id: 'svcCredentialMinute', name: 'svc 3 per minute' };

function keyFor(dataDir: string, name: string, perSecond: number, perMinute: number): string {
  const args = ['keys', 'create', '--name', name, '--scopes', 'all', '--rate-limit-per-second', String(perSecond)];
  return svcCli(dataDir, ...args, '--rate-limit-per-minute', String(perMinute)).stdout.trim();
}

/** An HTTP Request node that POSTs its input item's binary field `data` to `url` as the raw body. */
function uploadTo(url: string, row: number): WorkflowNode {
  return {
    id: 'node-upload',
    name: 'Upload',
    type: 'n8n-nodes-base.httpRequest',
    typeVersion: 4.2,
    position: [800, row * 120],
    parameters: { method: 'POST', url, sendBody: true, contentType: 'binaryData', inputDataFieldName: 'data', options: {} },
  };
}

/** How one `n8n execute` ended, and how long it took. */
interface WorkflowRun {
  code: number | null;
  execution: Execution;
  seconds: number;
}

describe('the new svc node operations in the real n8n 2.8.4 runtime (`n8n execute`, installed as a community package)', () => {
  let dataDir: string;
  let key: string;
  let svc: ServiceProcess | undefined;
  let n8n: N8nHome | undefined;
  let receiver: TestReceiver | undefined;
  const rooms: RoomClient[] = [];

  const api = (method: string, path: string, body?: unknown) => call(svc!.url, method, API + path, key, body);

  /** Imports the workflows with one `n8n import:workflow` (each n8n command boots n8n: seconds), then runs each with `n8n execute`. */
  async function importAndExecute<W extends Record<string, unknown>[]>(...workflows: W): Promise<{ [K in keyof W]: WorkflowRun }> {
    const file = n8n!.writeJson(`${String(workflows[0]!.id)}.json`, workflows);
    const imported = await n8n!.cli(['import:workflow', `--input=${file}`]);
    expect(imported.stdout + imported.stderr).toContain(`Successfully imported ${workflows.length} workflow`);
    const runs: WorkflowRun[] = [];
    for (const workflow of workflows) {
      const started = Date.now();
      const executed = await n8n!.cli(['execute', `--id=${String(workflow.id)}`, '--rawOutput'], 120_000);
      runs.push({ code: executed.code, execution: executionOf(executed), seconds: (Date.now() - started) / 1000 });
    }
    return runs as { [K in keyof W]: WorkflowRun };
  }

  async function join(code: string, name: string): Promise<void> {
    const credential = (await call(svc!.url, 'POST', `/rooms/v1/${code}/credentials`, undefined, { name })).body as JoinCredential;
    const { client, answer } = await RoomClient.join(credential);
    expect(answer.ok).toBe(true);
    rooms.push(client);
  }

  beforeAll(async () => {
    const bin = await ensureTool('n8n');
    dataDir = tempDataDir();
    key = keyFor(dataDir, 'n8n', 10_000, 100_000);
    const limitedKey = keyFor(dataDir, 'n8n limited', 2, 100_000);
    const minuteKey = keyFor(dataDir, 'n8n minute', 100, 3);
    // download_url is built from SVC_BASE_URL: keep it on the loopback address the service listens on.
    const port = await freePort();
    svc = await startService(dataDir, { PORT: String(port), SVC_BASE_URL: `http://127.0.0.1:${port}` });
    receiver = await startReceiver(() => ({ status: 200 }));
    n8n = await createN8nHome(bin, 'community-package');
    const credentials = [
      ...svcCredentialExport(svc.url, key),
      { ...LIMITED_CREDENTIAL, type: 'svcApi', data: { baseUrl: svc.url, apiKey: limitedKey } },
      { ...MINUTE_CREDENTIAL, type: 'svcApi', data: { baseUrl: svc.url, apiKey: minuteKey } },
    ];
    const imported = await n8n.cli(['import:credentials', `--input=${n8n.writeJson('credentials.json', credentials)}`]);
    expect(imported.stdout + imported.stderr).toContain('Successfully imported 3 credentials');
  }, INSTALL_TIMEOUT_MS + 60_000);

  afterAll(async () => {
    for (const room of rooms) room.close();
    await receiver?.close();
    await svc?.stop();
    n8n?.remove();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('lists participants, ends, cancels and reopens meetings, downloads a recording as binary data, each meeting named through a locator mode', async () => {
    const live = (await api('POST', '/meetings', { title: 'Live standup' })).body;
    await join(live.code, 'Ann');
    await join(live.code, 'Bob');
    expect((await api('GET', `/meetings/${live.id}`)).body.status).toBe('live');
    const scheduled = (await api('POST', '/meetings', { title: 'Later', scheduled_at: '2027-01-05T09:00:00+01:00' })).body;
    const recorded = (await api('POST', '/meetings', { title: 'Recorded sync' })).body;
    const media = seedMediaResults(dataDir, recorded.id);
    const webinar = (await api('POST', '/meetings', { title: 'Locator webinar', kind: 'webinar', slug: 'locator-webinar' })).body;
    const calledOff = (await api('POST', '/meetings', { title: 'Called off', scheduled_at: '2027-02-01T09:00:00Z' })).body;
    expect((await api('DELETE', `/meetings/${calledOff.id}`)).body.status).toBe('cancelled');
    const over = (await api('POST', '/meetings', { title: 'Over too soon' })).body;
    await join(over.code, 'Cy');
    expect((await api('PATCH', `/meetings/${over.id}`, { status: 'ended' })).body.status).toBe('ended');

    const p = n8n!.typePrefix;
    const nodes = [
      manualTrigger(),
      svcNode(p, 'svc', 'All Participants', 1, {
        resource: 'participant',
        operation: 'getMany',
        meetingId: locator('url', live.join_url),
        returnAll: true,
      }),
      svcNode(p, 'svc', 'One Participant', 2, {
        resource: 'participant',
        operation: 'getMany',
        meetingId: locator('code', live.code),
        returnAll: false,
        limit: 1,
      }),
      svcNode(p, 'svc', 'End Meeting', 3, { resource: 'meeting', operation: 'end', meetingId: locator('id', live.id) }),
      svcNode(p, 'svc', 'Cancel Meeting', 4, { resource: 'meeting', operation: 'cancel', meetingId: locator('code', scheduled.code) }),
      svcNode(p, 'svc', 'Register', 5, {
        resource: 'registration',
        operation: 'create',
        webinarSlug: locator('url', webinar.join_url),
        email: 'lin@example.com',
        name: 'Lin',
      }),
      svcNode(p, 'svc', 'Download Recording', 6, { resource: 'recording', operation: 'download', meetingId: locator('list', recorded.id) }),
      uploadTo(receiver!.url, 6),
      svcNode(p, 'svc', 'Reopen Cancelled', 7, { resource: 'meeting', operation: 'reopen', meetingId: locator('url', calledOff.join_url) }),
      svcNode(p, 'svc', 'Reopen Ended', 8, { resource: 'meeting', operation: 'reopen', meetingId: locator('code', over.code) }),
      svcNode(p, 'svc', 'Reopen Scheduled', 9, { resource: 'meeting', operation: 'reopen', meetingId: locator('id', webinar.id) }),
    ];
    const workflow = workflowExport('svcNewOperationsE2e', 'svc new operations', nodes, [
      ...nodes.slice(1, 7).map((node): [string, string] => ['Start', node.name]),
      ...nodes.slice(8).map((node): [string, string] => ['Start', node.name]),
      ['Download Recording', 'Upload'],
    ]);

    const [{ code, execution }] = await importAndExecute(workflow);
    expect([code, execution.status, execution.data.resultData.error]).toEqual([0, 'success', undefined]);

    const participants = outputOf(execution, 'All Participants');
    expect(participants.map((x) => x.name).sort()).toEqual(['Ann', 'Bob']);
    for (const x of participants) expect(x).toMatchObject({ meeting_id: live.id, joined_at: expect.any(String) });
    expect(outputOf(execution, 'One Participant')).toHaveLength(1);
    expect(outputOf(execution, 'End Meeting')).toEqual([expect.objectContaining({ id: live.id, status: 'ended' })]);
    expect(outputOf(execution, 'Cancel Meeting')).toEqual([expect.objectContaining({ id: scheduled.id, status: 'cancelled' })]);
    expect(outputOf(execution, 'Register')).toEqual([
      expect.objectContaining({ email: 'lin@example.com', webinar: expect.objectContaining({ slug: 'locator-webinar' }) }),
    ]);

    const newest = media.recordingIds.at(-1);
    expect(outputOf(execution, 'Download Recording')).toEqual([expect.objectContaining({ id: newest, status: 'ready' })]);
    const binary = execution.data.resultData.runData['Download Recording']![0]!.data!.main[0]![0]!.binary!.data!;
    expect(binary).toMatchObject({ mimeType: 'video/webm', fileName: `${newest}.webm` });
    expect(receiver!.requests).toHaveLength(1);
    expect(receiver!.requests[0]!.rawBody.toString('utf8')).toBe('webm-bytes');
    expect(receiver!.requests[0]!.headers['content-type']).toContain('video/webm');

    expect((await api('GET', `/meetings/${live.id}`)).body.status).toBe('ended');
    expect((await api('GET', `/meetings/${scheduled.id}`)).body.status).toBe('cancelled');

    const reopenedCancelled = (await api('GET', `/meetings/${calledOff.id}`)).body;
    expect(reopenedCancelled).toMatchObject({ status: 'scheduled', join_url: calledOff.join_url, ended_at: null });
    expect(outputOf(execution, 'Reopen Cancelled')).toEqual([reopenedCancelled]);
    const reopenedEnded = (await api('GET', `/meetings/${over.id}`)).body;
    expect(reopenedEnded).toMatchObject({ status: 'scheduled', code: over.code, started_at: null, ended_at: null });
    expect(outputOf(execution, 'Reopen Ended')).toEqual([reopenedEnded]);
    expect(outputOf(execution, 'Reopen Scheduled')).toEqual([(await api('GET', `/meetings/${webinar.id}`)).body]);
    expect(outputOf(execution, 'Reopen Scheduled')[0]).toMatchObject({ status: 'scheduled', updated_at: webinar.updated_at });
  }, 150_000);

  it('fails with the index of the failing item, or outputs its error under Continue on Fail', async () => {
    for (const title of ['One', 'Two', 'Three']) expect((await api('POST', '/meetings', { title })).status).toBe(201);
    const p = n8n!.typePrefix;
    const getEach = (onError: WorkflowNode['onError']) =>
      svcNode(
        p,
        'svc',
        'Get Each',
        2,
        { resource: 'meeting', operation: 'get', meetingId: '={{ $itemIndex === 1 ? "zzz-zzzz-zzz" : $json.code }}' },
        { onError },
      );
    const three = svcNode(p, 'svc', 'Three Meetings', 1, {
      resource: 'meeting',
      operation: 'getMany',
      returnAll: false,
      limit: 3,
      filters: {},
    });
    const edges: [string, string][] = [
      ['Start', 'Three Meetings'],
      ['Three Meetings', 'Get Each'],
    ];

    const [failing, continuing] = await importAndExecute(
      workflowExport('svcItemIndexE2e', 'svc item index', [manualTrigger(), three, getEach('stopWorkflow')], edges),
      workflowExport('svcContinueE2e', 'svc continue on fail', [manualTrigger(), three, getEach('continueRegularOutput')], edges),
    );
    expect([failing.code === 0, failing.execution.status]).toEqual([false, 'error']);
    expect(failing.execution.data.resultData.error).toMatchObject({
      name: 'NodeApiError',
      message: 'svc answered 404 not_found: Meeting zzz-zzzz-zzz not found',
      context: { itemIndex: 1 },
    });

    expect(continuing.execution.status).toBe('success');
    const out = outputOf(continuing.execution, 'Get Each');
    expect(out).toHaveLength(3);
    expect(out[1]).toEqual({ error: 'svc answered 404 not_found: Meeting zzz-zzzz-zzz not found' });
    expect([out[0]!.title, out[2]!.title]).toEqual(['Three', 'One']);
  }, 150_000);

  it("waits out svc's 429 answers (Retry-After) and fails at once when the wait would be too long", async () => {
    const p = n8n!.typePrefix;
    const five = svcNode(p, 'svc', 'Five Meetings', 1, {
      resource: 'meeting',
      operation: 'getMany',
      returnAll: false,
      limit: 5,
      filters: {},
    });
    const getEachWith = (credential: { id: string; name: string }) =>
      svcNode(
        p,
        'svc',
        'Get Each',
        2,
        { resource: 'meeting', operation: 'get', meetingId: '={{ $json.id }}' },
        { credentials: { svcApi: credential } },
      );
    const edges: [string, string][] = [
      ['Start', 'Five Meetings'],
      ['Five Meetings', 'Get Each'],
    ];

    // Five requests in a row with a key allowed 2 per second: the third and later are answered 429 (Retry-After: 1) until the second passes.
    // A key allowed 3 per minute: the fourth request's Retry-After is far over the 30 s the transport waits, so it fails now.
    const [retried, capped] = await importAndExecute(
      workflowExport('svcRetryE2e', 'svc retry', [manualTrigger(), five, getEachWith(LIMITED_CREDENTIAL)], edges),
      workflowExport('svcRetryCapE2e', 'svc retry cap', [manualTrigger(), five, getEachWith(MINUTE_CREDENTIAL)], edges),
    );
    expect([retried.execution.status, retried.execution.data.resultData.error]).toEqual(['success', undefined]);
    expect(outputOf(retried.execution, 'Get Each').map((m) => m.id)).toEqual(outputOf(retried.execution, 'Five Meetings').map((m) => m.id));
    expect(retried.seconds).toBeGreaterThan(1);

    expect(capped.execution.status).toBe('error');
    expect(capped.execution.data.resultData.error).toMatchObject({ httpCode: '429', context: { itemIndex: 3 } });
    expect(capped.execution.data.resultData.error!.message).toMatch(/^svc answered 429 rate_limited/);
    expect(capped.seconds).toBeLessThan(30);
  }, 150_000);
});
