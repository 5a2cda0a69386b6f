import { seedMediaResults } from '@svc/service/testing';
import fs from 'node:fs';
import { call, type ServiceProcess, startService, tempDataDir, unlimitedKey } from '../../test/support/service-process';
import { createN8nHome, ensureTool, executionOf, INSTALL_TIMEOUT_MS, outputOf, type N8nHome } from './support/n8n';
import { manualTrigger, svcCredentialExport, svcNode, workflowExport } from './support/workflows';

const API = '/api/v1/public';

describe('the svc node in the real n8n 2.8.4 runtime (`n8n execute`, installed as a community package)', () => {
  let dataDir: string;
  let key: string;
  let svc: ServiceProcess | undefined;
  let n8n: N8nHome | undefined;

  const api = (method: string, path: string, body?: unknown) => call(svc!.url, method, API + path, key, body);

  async function importAndExecute(workflow: Record<string, unknown>) {
    const imported = await n8n!.cli(['import:workflow', `--input=${n8n!.writeJson(`${String(workflow.id)}.json`, workflow)}`]);
    expect(imported.stdout + imported.stderr).toContain('Successfully imported 1 workflow');
    const executed = await n8n!.cli(['execute', `--id=${String(workflow.id)}`, '--rawOutput']);
    return { code: executed.code, execution: executionOf(executed) };
  }

  beforeAll(async () => {
    const bin = await ensureTool('n8n');
    dataDir = tempDataDir();
    key = unlimitedKey(dataDir);
    svc = await startService(dataDir);
    n8n = await createN8nHome(bin, 'community-package');
    const imported = await n8n.cli([
      'import:credentials',
      `--input=${n8n.writeJson('credentials.json', svcCredentialExport(svc.url, key))}`,
    ]);
    expect(imported.stdout + imported.stderr).toContain('Successfully imported 1 credential');
  }, INSTALL_TIMEOUT_MS + 60_000);

  afterAll(async () => {
    await svc?.stop();
    n8n?.remove();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs every operation against the real service and changes its state', async () => {
    const webinar = (await api('POST', '/meetings', { title: 'Launch webinar', kind: 'webinar', slug: 'launch-e2e' })).body;
    const recorded = (await api('POST', '/meetings', { title: 'Recorded sync' })).body;
    const cancelled = (await api('POST', '/meetings', { title: 'Called off' })).body;
    expect((await api('DELETE', `/meetings/${cancelled.id}`)).status).toBe(200);
    for (let i = 0; i < 100; i++) expect((await api('POST', '/meetings', { title: `Filler ${i}` })).status).toBe(201);
    const media = seedMediaResults(dataDir, recorded.id);

    const p = n8n!.typePrefix;
    const nodes = [
      manualTrigger(),
      svcNode(p, 'svc', 'Create Meeting', 1, {
        resource: 'meeting',
        operation: 'create',
        title: 'Design review',
        additionalFields: {
          scheduledAt: '2026-12-01T10:00:00+02:00',
          durationMinutes: 45,
          waitingRoom: true,
          timeZone: ' europe/berlin ',
          joinBeforeStartMinutes: 30,
          recordingLayout: 'grid',
        },
      }),
      svcNode(p, 'svc', 'Get Meeting', 2, { resource: 'meeting', operation: 'get', meetingId: '={{ $json.code }}' }),
      svcNode(p, 'svc', 'Update Meeting', 3, {
        resource: 'meeting',
        operation: 'update',
        meetingId: '={{ $json.id }}',
        updateFields: {
          title: 'Design review (moved)',
          durationMinutes: 30,
          transcriptionAuto: true,
          timeZone: 'Asia/Tokyo',
          joinBeforeStartMinutes: 0,
          captions: true,
        },
      }),
      svcNode(p, 'svc', 'Get 101 Meetings', 4, { resource: 'meeting', operation: 'getMany', returnAll: false, limit: 101, filters: {} }),
      svcNode(p, 'svc', 'Get All Meetings', 5, { resource: 'meeting', operation: 'getMany', returnAll: true, filters: {} }),
      svcNode(p, 'svc', 'Get Cancelled Meetings', 6, {
        resource: 'meeting',
        operation: 'getMany',
        returnAll: true,
        filters: { status: 'cancelled' },
      }),
      svcNode(p, 'svc', 'Register', 7, {
        resource: 'registration',
        operation: 'create',
        webinarSlug: 'launch-e2e',
        email: 'ada@example.com',
        name: 'Ada',
      }),
      svcNode(p, 'svc', 'Get Recordings', 8, { resource: 'recording', operation: 'getMany', meetingId: recorded.code, returnAll: true }),
      svcNode(p, 'svc', 'Get Transcript', 9, { resource: 'transcript', operation: 'get', meetingId: recorded.id }),
      svcNode(p, 'svc', 'Get Summary', 10, { resource: 'summary', operation: 'get', meetingId: recorded.id }),
      svcNode(
        p,
        'svc',
        'Get Missing Transcript',
        11,
        { resource: 'transcript', operation: 'get', meetingId: '={{ $json.id }}' },
        { onError: 'continueRegularOutput' },
      ),
      svcNode(p, 'svc', 'Delete Meeting', 12, { resource: 'meeting', operation: 'delete', meetingId: '={{ $json.id }}' }),
    ];
    const fanOut = nodes.slice(4).map((node): [string, string] => ['Update Meeting', node.name]);
    const workflow = workflowExport('svcOperationsE2e', 'svc operations', nodes, [
      ['Start', 'Create Meeting'],
      ['Create Meeting', 'Get Meeting'],
      ['Get Meeting', 'Update Meeting'],
      ...fanOut,
    ]);

    const { code, execution } = await importAndExecute(workflow);
    expect([code, execution.status, execution.data.resultData.error]).toEqual([0, 'success', undefined]);

    const [created] = outputOf(execution, 'Create Meeting');
    expect(created).toMatchObject({
      title: 'Design review',
      kind: 'meeting',
      scheduled_at: '2026-12-01T10:00:00+02:00',
      duration_minutes: 45,
      time_zone: 'Europe/Berlin',
      settings: { waiting_room: true, transcription_auto: false, join_before_start_minutes: 30, recording_layout: 'grid', captions: false },
      status: 'scheduled',
    });
    expect(created!.id).toMatch(/^mtg_/);
    expect(outputOf(execution, 'Get Meeting')).toEqual([expect.objectContaining({ id: created!.id, code: created!.code })]);
    expect(outputOf(execution, 'Update Meeting')).toEqual([
      expect.objectContaining({
        id: created!.id,
        title: 'Design review (moved)',
        duration_minutes: 30,
        time_zone: 'Asia/Tokyo',
        settings: { waiting_room: true, transcription_auto: true, join_before_start_minutes: 0, recording_layout: 'grid', captions: true },
      }),
    ]);

    const first101 = outputOf(execution, 'Get 101 Meetings');
    expect(first101).toHaveLength(101);
    expect(first101[0]!.id).toBe(created!.id);
    const all = outputOf(execution, 'Get All Meetings');
    expect(all).toHaveLength(104);
    expect(new Set(all.map((m) => m.id)).size).toBe(104);
    expect(all.map((m) => m.id)).toEqual(expect.arrayContaining([created!.id, webinar.id, recorded.id, cancelled.id]));
    expect(all.slice(0, 101)).toEqual(first101);
    const cancelledList = outputOf(execution, 'Get Cancelled Meetings');
    expect(cancelledList.map((m) => m.id)).toContain(cancelled.id);
    expect(cancelledList.every((m) => m.status === 'cancelled')).toBe(true);

    const [registration] = outputOf(execution, 'Register');
    expect(registration).toMatchObject({ email: 'ada@example.com', name: 'Ada', webinar: { slug: 'launch-e2e', meeting_id: webinar.id } });
    expect(registration!.id).toMatch(/^reg_/);

    const recordings = outputOf(execution, 'Get Recordings');
    expect(recordings.map((r) => r.id)).toEqual([...media.recordingIds].reverse());
    for (const r of recordings)
      expect(r).toMatchObject({
        kind: 'video',
        status: 'ready',
        duration_seconds: 125,
        download_url: expect.stringContaining(`/recordings/${r.id}/download`),
      });
    expect(outputOf(execution, 'Get Transcript')).toEqual([
      expect.objectContaining({ meeting_id: recorded.id, language: 'en', text: media.transcriptText }),
    ]);
    expect(outputOf(execution, 'Get Transcript')[0]!.segments).toHaveLength(2);
    expect(outputOf(execution, 'Get Summary')).toEqual([
      expect.objectContaining({ meeting_id: recorded.id, tldr: media.tldr, action_items: [expect.objectContaining({ owner: 'Ada' })] }),
    ]);
    expect(outputOf(execution, 'Get Missing Transcript')).toEqual([
      { error: expect.stringMatching(/^svc answered 404 not_found: Transcript of meeting .+ not found$/) },
    ]);
    expect(outputOf(execution, 'Delete Meeting')).toEqual([expect.objectContaining({ id: created!.id, status: 'cancelled' })]);

    const stored = await api('GET', `/meetings/${created!.id}`);
    expect(stored.body).toMatchObject({
      title: 'Design review (moved)',
      duration_minutes: 30,
      status: 'cancelled',
      time_zone: 'Asia/Tokyo',
      settings: { waiting_room: true, transcription_auto: true, join_before_start_minutes: 0, recording_layout: 'grid', captions: true },
    });
    const again = await api('POST', '/webinars/launch-e2e/registrations', { email: 'ada@example.com', name: 'Ada' });
    expect([again.status, again.body.id]).toEqual([200, registration!.id]);
  }, 120_000);

  it("fails the workflow with svc's problem details when an operation fails", async () => {
    const workflow = workflowExport(
      'svcFailureE2e',
      'svc failure',
      [
        manualTrigger(),
        svcNode(n8n!.typePrefix, 'svc', 'Get Meeting', 1, { resource: 'meeting', operation: 'get', meetingId: 'zzz-zzzz-zzz' }),
      ],
      [['Start', 'Get Meeting']],
    );

    const { code, execution } = await importAndExecute(workflow);

    expect(code).not.toBe(0);
    expect(execution.status).toBe('error');
    expect(execution.data.resultData.error).toMatchObject({
      name: 'NodeApiError',
      httpCode: '404',
      message: 'svc answered 404 not_found: Meeting zzz-zzzz-zzz not found',
    });
  }, 60_000);
});
