import { EVENT_SCOPES, EVENT_TYPES } from '../events/event-types';
import { SCOPES, type Scope } from '../keys/scopes';
import { principalIn, seedMeeting, seedParticipant, seedRecording, seedSummary, seedTranscript } from '../testing/fixtures';
import { startTestServer, type TestServer } from '../testing/harness';
import { connectMcpClient, resultText } from '../testing/mcp-client';

/** The spec's endpoint table, written out independently of the route table it checks. */
const ENDPOINTS: { method: string; path: string; scope: Scope | null; body?: unknown; alsoNeeds?: Scope[] }[] = [
  { method: 'GET', path: '/me', scope: null },
  { method: 'GET', path: '/meetings', scope: 'meetings:read' },
  { method: 'POST', path: '/meetings', scope: 'meetings:write', body: { title: 'Scope check' } },
  { method: 'GET', path: '/meetings/{id}', scope: 'meetings:read' },
  { method: 'PATCH', path: '/meetings/{id}', scope: 'meetings:write', body: { title: 'Renamed' } },
  { method: 'DELETE', path: '/meetings/{id}', scope: 'meetings:write' },
  { method: 'POST', path: '/meetings/{id}/host-links', scope: 'meetings:write', body: {} },
  { method: 'GET', path: '/meetings/{id}/participants', scope: 'meetings:read' },
  { method: 'GET', path: '/meetings/{id}/chat-messages', scope: 'meetings:read' },
  { method: 'GET', path: '/search?q=hello', scope: 'transcripts:read' },
  { method: 'GET', path: '/meetings/{id}/recordings', scope: 'recordings:read' },
  { method: 'GET', path: '/recordings/{recording_id}/download', scope: 'recordings:read' },
  { method: 'GET', path: '/meetings/{id}/transcript', scope: 'transcripts:read' },
  { method: 'POST', path: '/meetings/{id}/transcript', scope: 'meetings:write' },
  { method: 'GET', path: '/meetings/{id}/summary', scope: 'transcripts:read' },
  { method: 'GET', path: '/webinars/{slug}/registrations?email=ann@example.com', scope: 'webinars:write' },
  { method: 'POST', path: '/webinars/{slug}/registrations', scope: 'webinars:write', body: { email: 'ann@example.com', name: 'Ann' } },
  { method: 'GET', path: '/events', scope: 'meetings:read' },
  ...EVENT_TYPES.map((type) => ({ method: 'GET', path: `/triggers/${type}`, scope: EVENT_SCOPES[type] })),
  // Subscribing to an event type also needs the scope that reads it.
  {
    method: 'POST',
    path: '/webhook-endpoints',
    scope: 'webhooks:write',
    body: { url: 'https://hooks.example.com/x', events: ['meeting.ended'] },
    alsoNeeds: ['meetings:read'],
  },
  { method: 'GET', path: '/webhook-endpoints', scope: 'webhooks:write' },
  { method: 'GET', path: '/webhook-endpoints/{endpoint_id}', scope: 'webhooks:write' },
  { method: 'PATCH', path: '/webhook-endpoints/{endpoint_id}', scope: 'webhooks:write', body: { description: 'Changed' } },
  { method: 'DELETE', path: '/webhook-endpoints/{endpoint_id}', scope: 'webhooks:write' },
  { method: 'POST', path: '/webhook-endpoints/{endpoint_id}/rotate-secret', scope: 'webhooks:write' },
  { method: 'GET', path: '/webhook-endpoints/{endpoint_id}/deliveries', scope: 'webhooks:write' },
  { method: 'POST', path: '/deliveries/{delivery_id}/redeliver', scope: 'webhooks:write' },
  {
    method: 'POST',
    path: '/integrations',
    scope: 'integrations:write',
    body: { kind: 'teams', webhook_url: 'https://teams.example.com/hook', events: ['meeting.ended'] },
    alsoNeeds: ['meetings:read'],
  },
  { method: 'GET', path: '/integrations', scope: 'integrations:write' },
  { method: 'GET', path: '/integrations/{integration_id}', scope: 'integrations:write' },
  {
    method: 'PATCH',
    path: '/integrations/{integration_id}',
    scope: 'integrations:write',
    body: { events: ['meeting.started'] },
    alsoNeeds: ['meetings:read'],
  },
  { method: 'DELETE', path: '/integrations/{integration_id}', scope: 'integrations:write' },
  { method: 'GET', path: '/integrations/{integration_id}/deliveries', scope: 'integrations:write' },
];

/** The spec's MCP tools with the scope each needs and arguments that succeed, written out independently of the tool registry. */
const TOOLS: { name: string; scope: Scope; args: (ids: Ids) => Record<string, unknown> }[] = [
  { name: 'list_meetings', scope: 'meetings:read', args: () => ({ status: 'scheduled' }) },
  { name: 'get_meeting', scope: 'meetings:read', args: (ids) => ({ meeting: ids.id }) },
  { name: 'get_transcript', scope: 'transcripts:read', args: (ids) => ({ meeting: ids.id }) },
  { name: 'get_live_transcript', scope: 'transcripts:read', args: (ids) => ({ meeting: ids.id }) },
  { name: 'get_summary', scope: 'transcripts:read', args: (ids) => ({ meeting: ids.id }) },
  { name: 'search_content', scope: 'transcripts:read', args: (ids) => ({ query: 'Friday', meeting: ids.id }) },
  { name: 'ask_meetings', scope: 'transcripts:read', args: (ids) => ({ question: 'When do we ship?', meeting: ids.id }) },
  { name: 'list_tasks', scope: 'transcripts:read', args: () => ({}) },
  { name: 'create_meeting', scope: 'meetings:write', args: () => ({ title: 'Scope check' }) },
  { name: 'schedule_meeting', scope: 'meetings:write', args: () => ({ title: 'Scope check', scheduled_at: '2026-12-01T10:00:00+01:00' }) },
];

/** The MCP resource templates and the scope each needs. */
const RESOURCES: { uri: string; scope: Scope }[] = [
  { uri: 'svc://meetings/{id}/transcript', scope: 'transcripts:read' },
  { uri: 'svc://meetings/{id}/summary', scope: 'transcripts:read' },
];

type Ids = { id: string; recording_id: string; slug: string; endpoint_id: string; delivery_id: string; integration_id: string };

/** A webhook endpoint and a Teams integration subscribed to meeting.started, each with one delivery. */
function seedEndpoint(t: TestServer, orgId: string): { endpoint_id: string; delivery_id: string; integration_id: string } {
  const principal = principalIn(t, orgId, ['meetings:read', 'webhooks:write']);
  const endpoint = t.services.webhooks.create(principal, { url: 'https://hooks.example.com/seed', events: ['meeting.started'] });
  const integration = t.services.integrations.create(orgId, {
    kind: 'teams',
    webhook_url: 'https://teams.example.com/seed',
    events: ['meeting.started'],
  });
  t.services.meetings.start(seedMeeting(t, {}, orgId));
  const [delivery] = t.services.deliveries.listForDestination(endpoint.id, null, 1);
  return { endpoint_id: endpoint.id, delivery_id: delivery!.id, integration_id: integration.id };
}

/** A meeting with a participant, a ready recording, a transcript and a summary, a webinar and a webhook endpoint with a delivery; events of every type. */
function seedEverything(t: TestServer, orgId: string, slug: string): Ids & { code: string } {
  const meeting = seedMeeting(t, {}, orgId);
  seedParticipant(t, meeting.id);
  const recording = seedRecording(t, meeting.id);
  seedTranscript(t.services, meeting.id);
  seedSummary(t.services, meeting.id);
  seedMeeting(t, { kind: 'webinar', slug, title: 'Webinar' }, orgId);
  return { id: meeting.id, code: meeting.code, recording_id: recording.id, slug, ...seedEndpoint(t, orgId) };
}

/** Everything a request could change, to prove a refused one changed nothing. */
function snapshot(t: TestServer): string {
  const tables = ['meetings', 'registrations', 'webhook_endpoints', 'integrations', 'deliveries', 'events'];
  return JSON.stringify(tables.map((table) => t.services.db.prepare(`SELECT * FROM ${table} ORDER BY rowid`).all()));
}

function fill(path: string, ids: Ids): string {
  return path
    .replace('{id}', ids.id)
    .replace('{recording_id}', ids.recording_id)
    .replace('{slug}', ids.slug)
    .replace('{endpoint_id}', ids.endpoint_id)
    .replace('{delivery_id}', ids.delivery_id)
    .replace('{integration_id}', ids.integration_id);
}

describe('scope matrix: every endpoint, MCP tool and MCP resource x every scope', () => {
  let t: TestServer;
  let ids: Ids;
  beforeAll(async () => {
    t = await startTestServer();
    ids = seedEverything(t, t.org.id, 'scope-webinar');
  });
  afterAll(() => t.close());

  const grants: { label: string; scopes: Scope[] }[] = [
    { label: 'no scope', scopes: [] },
    ...SCOPES.map((s) => ({ label: s, scopes: [s] })),
  ];
  const matrix = ENDPOINTS.flatMap((e) => grants.map((g) => ({ ...e, ...g, allowed: e.scope === null || g.scopes.includes(e.scope) })));

  it.each(matrix)('$method $path with $label -> allowed: $allowed', async ({ method, path, scope, body, scopes, allowed, alsoNeeds }) => {
    const key = t.key([...scopes, ...(alsoNeeds ?? [])]);
    // DELETE cancels or removes, so each check gets a fresh meeting and endpoint.
    const target = method === 'DELETE' ? { ...ids, id: seedMeeting(t).id, ...seedEndpoint(t, t.org.id) } : ids;
    const res = await t.request(method, `/api/v1/public${fill(path, target)}`, { key, body });
    if (allowed) {
      expect(res.status).toBeGreaterThanOrEqual(200);
      expect(res.status).toBeLessThan(300);
    } else {
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'insufficient_scope', required_scope: scope });
    }
  });

  const tools = TOOLS.flatMap((tool) => grants.map((g) => ({ ...tool, ...g, allowed: g.scopes.includes(tool.scope) })));

  it.each(tools)(
    'tool $name with $label -> allowed: $allowed (listed and callable alike)',
    async ({ name, scope, args, scopes, allowed }) => {
      const client = await connectMcpClient(t.url, t.key(scopes));
      try {
        expect((await client.listTools()).tools.some((tool) => tool.name === name)).toBe(allowed);
        const before = snapshot(t);
        const result = await client.callTool({ name, arguments: args(ids) });
        if (allowed) {
          expect(result.isError).toBeFalsy();
          expect(result.structuredContent).toBeDefined();
        } else {
          expect(result.isError).toBe(true);
          expect(resultText(result)).toContain(`(insufficient_scope): This API key lacks the ${scope} scope`);
          expect(snapshot(t)).toBe(before);
        }
      } finally {
        await client.close();
      }
    },
  );

  const resources = RESOURCES.flatMap((r) => grants.map((g) => ({ ...r, ...g, allowed: g.scopes.includes(r.scope) })));

  it.each(resources)(
    'resource $uri with $label -> allowed: $allowed (template listed and readable alike)',
    async ({ uri, scope, scopes, allowed }) => {
      const client = await connectMcpClient(t.url, t.key(scopes));
      try {
        const templates = (await client.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate);
        expect(templates.includes(uri)).toBe(allowed);
        const read = client.readResource({ uri: fill(uri, ids) });
        if (allowed) expect((await read).contents[0]).toMatchObject({ text: expect.stringMatching(/\S/) });
        else await expect(read).rejects.toThrow(`This API key lacks the ${scope} scope`);
      } finally {
        await client.close();
      }
    },
  );
});

describe('organization isolation across every endpoint', () => {
  let t: TestServer;
  let otherOrgId: string;
  let foreign: Ids & { code: string };
  let restrictedKey: string;
  beforeAll(async () => {
    t = await startTestServer();
    otherOrgId = t.services.identity.createOrganization(t.owner.id, 'Other org').id;
    seedEverything(t, t.org.id, 'home-webinar');
    foreign = seedEverything(t, otherOrgId, 'foreign-webinar');
    restrictedKey = t.key(SCOPES, { org: t.org.id });
  });
  afterAll(() => t.close());

  const targeted = ENDPOINTS.filter((e) => e.path.includes('{'));

  it.each(targeted)('a key restricted to another organization gets 404 from $method $path', async ({ method, path, body }) => {
    const before = snapshot(t);
    for (const id of [foreign.id, foreign.code]) {
      const res = await t.request(method, `/api/v1/public${fill(path, { ...foreign, id })}`, { key: restrictedKey, body });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
    expect(snapshot(t)).toBe(before);
  });

  it('reaches no meeting, transcript, summary, task, search hit, citation or resource of another organization over MCP', async () => {
    const client = await connectMcpClient(t.url, restrictedKey);
    try {
      for (const tool of TOOLS.filter((candidate) => 'meeting' in candidate.args(foreign))) {
        for (const meeting of [foreign.id, foreign.code]) {
          const result = await client.callTool({ name: tool.name, arguments: { ...tool.args(foreign), meeting } });
          expect(resultText(result)).toMatch(/^Error \(not_found\)/);
        }
      }
      for (const { uri } of RESOURCES) {
        await expect(client.readResource({ uri: fill(uri, foreign) })).rejects.toMatchObject({ code: -32002 });
      }
      const tasks = (await client.callTool({ name: 'list_tasks', arguments: { limit: 100 } })).structuredContent as {
        tasks: { meeting: { id: string } }[];
      };
      const meetings = (await client.callTool({ name: 'list_meetings', arguments: { limit: 100 } })).structuredContent as {
        meetings: { organization_id: string }[];
      };
      const resources = (await client.listResources()).resources.map((r) => r.uri);
      const hits = (await client.callTool({ name: 'search_content', arguments: { query: 'Friday', limit: 100 } })).structuredContent as {
        hits: { meeting: { id: string } }[];
      };
      const answer = (await client.callTool({ name: 'ask_meetings', arguments: { question: 'When do we ship?', limit: 10 } }))
        .structuredContent as { citations: { meeting: { id: string } }[] };
      expect(tasks.tasks.length * meetings.meetings.length * resources.length * hits.hits.length * answer.citations.length).toBeGreaterThan(
        0,
      );
      expect([...hits.hits, ...answer.citations].some((passage) => passage.meeting.id === foreign.id)).toBe(false);
      expect(tasks.tasks.some((task) => task.meeting.id === foreign.id)).toBe(false);
      expect(meetings.meetings.every((m) => m.organization_id === t.org.id)).toBe(true);
      expect(resources.some((uri) => uri.includes(foreign.id))).toBe(false);
    } finally {
      await client.close();
    }
  });

  it('sees no event or webhook endpoint of another organization', async () => {
    const foreignMeetings = t.services.db.prepare('SELECT id FROM meetings WHERE organization_id = ?').pluck().all(otherOrgId);
    const feeds = ['/events?limit=100', ...EVENT_TYPES.map((type) => `/triggers/${type}?limit=100`)];
    let seen = 0;
    for (const path of feeds) {
      const { body } = await t.request('GET', `/api/v1/public${path}`, { key: restrictedKey });
      seen += body.data.length;
      for (const e of body.data) expect(foreignMeetings).not.toContain(e.data.meeting.id);
    }
    expect(seen).toBeGreaterThan(0);
    const endpoints = (await t.request('GET', '/api/v1/public/webhook-endpoints?limit=100', { key: restrictedKey })).body.data;
    expect(endpoints.map((e: { id: string }) => e.id)).not.toContain(foreign.endpoint_id);
    expect(endpoints.length).toBeGreaterThan(0);
  });

  it('lists only its own organization’s meetings, under every status filter', async () => {
    for (const q of ['', '?status=scheduled']) {
      const res = await t.request('GET', `/api/v1/public/meetings${q}`, { key: restrictedKey });
      expect(res.body.data.length).toBeGreaterThan(0);
      expect(res.body.data.every((m: { organization_id: string }) => m.organization_id === t.org.id)).toBe(true);
    }
  });

  it('cannot create in another organization, and /me shows only its own', async () => {
    const res = await t.request('POST', '/api/v1/public/meetings', {
      key: restrictedKey,
      body: { title: 'x', organization_id: otherOrgId },
    });
    expect(res.status).toBe(400);
    expect(res.body.param).toBe('organization_id');
    const me = await t.request('GET', '/api/v1/public/me', { key: restrictedKey });
    expect(me.body.organizations).toEqual([{ id: t.org.id, name: t.org.name }]);
    expect(me.body.key.organization_id).toBe(t.org.id);
  });

  it('an unrestricted key reaches every organization of its user and can pick where to create', async () => {
    const key = t.key();
    expect((await t.request('GET', `/api/v1/public/meetings/${foreign.id}`, { key })).status).toBe(200);
    const created = await t.request('POST', '/api/v1/public/meetings', { key, body: { title: 'There', organization_id: otherOrgId } });
    expect(created.body.organization_id).toBe(otherOrgId);
    const me = await t.request('GET', '/api/v1/public/me', { key });
    expect(me.body.organizations.map((o: { id: string }) => o.id).sort()).toEqual([t.org.id, otherOrgId].sort());
    expect(me.body.key.organization_id).toBeNull();
  });

  it('another user’s unrestricted key reaches none of these organizations', async () => {
    const at = new Date(t.clock.now()).toISOString();
    const stranger = { id: t.services.ids.next('usr'), name: 'Stranger', email: 'stranger@example.com', created_at: at };
    t.services.db.prepare('INSERT INTO users (id, name, email, created_at) VALUES (@id, @name, @email, @created_at)').run(stranger);
    t.services.identity.createOrganization(stranger.id, 'Stranger org');
    const { key } = t.services.keys.create({
      userId: stranger.id,
      name: 'stranger',
      scopes: [...SCOPES],
      rateLimitPerMinute: 100000,
      rateLimitPerSecond: 100000,
    });
    expect((await t.request('GET', `/api/v1/public/meetings/${foreign.id}`, { key })).status).toBe(404);
    expect((await t.request('GET', '/api/v1/public/meetings', { key })).body.data).toEqual([]);
  });
});
