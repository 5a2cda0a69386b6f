import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { publicRoutes } from '../app';
import { openApiPath } from '../http/routes';
import {
  seedChatMessage,
  seedMeeting,
  seedParticipant,
  seedPoll,
  seedBreakoutRoom,
  seedRecording,
  seedSummary,
  seedTranscript,
} from '../testing/fixtures';
import { startTestServer, type TestServer } from '../testing/harness';
import { createLogger } from '../shared/logger';

type Doc = {
  paths: Record<
    string,
    Record<string, { security?: { bearerAuth: string[] }[]; responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>
  >;
  components: { schemas: Record<string, unknown> };
};

describe('OpenAPI document', () => {
  let t: TestServer;
  let doc: Doc;
  beforeAll(async () => {
    t = await startTestServer();
    doc = (await t.request('GET', '/api/v1/public/openapi.json')).body;
  });
  afterAll(() => t.close());

  it('is served without a key and is a valid OpenAPI 3.1 document', async () => {
    expect(doc).toMatchObject({ openapi: '3.1.0' });
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
  });

  it('describes exactly the registered routes, each with the scope the route enforces', () => {
    const routes = publicRoutes({ config: t.config, services: t.services, logger: createLogger('silent') });
    const registered = routes.map((r) => `${r.method.toUpperCase()} ${openApiPath(r.path)} ${r.scope ?? '-'}`).sort();
    const documented = Object.entries(doc.paths)
      .flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
          .map(([method, op]) => `${method.toUpperCase()} ${path} ${op.security?.[0]?.bearerAuth[0] ?? '-'}`),
      )
      .sort();
    expect(documented).toEqual(registered);
  });

  it('documents 401 and 429 on every operation, and 403 wherever a scope is needed', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (method === 'parameters') continue;
        expect([path, method, Object.keys(op.responses)]).toEqual([path, method, expect.arrayContaining(['401', '429'])]);
        if (op.security?.[0]?.bearerAuth.length) expect(Object.keys(op.responses)).toContain('403');
      }
    }
  });

  it('matches what the API really answers (responses validated against the documented schemas, undocumented fields refused)', async () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    ajv.addSchema({ $id: 'doc', components: closedObjects(structuredClone(doc.components)) });
    const checked: string[] = [];
    const check = (path: string, method: string, status: number, body: unknown, contentType: string | null) => {
      const response = doc.paths[path]![method]!.responses[String(status)];
      expect([path, method, status, response ? 'documented' : 'undocumented']).toEqual([path, method, status, 'documented']);
      checked.push(`${method} ${path}`);
      if (!response!.content) return expect([path, method, status, body ?? null]).toEqual([path, method, status, null]);
      const mediaType = contentType?.split(';')[0]!.trim() ?? '';
      expect([path, method, status, Object.keys(response!.content)]).toEqual([path, method, status, expect.arrayContaining([mediaType])]);
      if (!mediaType.endsWith('json')) return;
      const schema = JSON.parse(JSON.stringify(response!.content[mediaType]!.schema).replaceAll('"#/components', '"doc#/components'));
      ajv.validate(schema, body);
      expect([path, method, status, ajv.errors ?? null]).toEqual([path, method, status, null]);
    };
    const key = t.key();
    const m = seedMeeting(t, { kind: 'webinar', slug: 'doc-webinar' });
    const speaker = seedParticipant(t, m.id);
    seedChatMessage(t, speaker);
    seedPoll(t, speaker);
    seedBreakoutRoom(t, speaker);
    const recording = seedRecording(t, m.id);
    seedTranscript(t.services, m.id);
    seedSummary(t.services, m.id);
    const api = async (method: string, path: string, url: string, body?: unknown) => {
      const res = await t.request(method.toUpperCase(), `/api/v1/public${url}`, { key, body });
      check(path, method, res.status, res.body, res.headers.get('content-type'));
      return res.body;
    };
    await api('get', '/me', '/me');
    await api('get', '/meetings', '/meetings?limit=2');
    await api('post', '/meetings', '/meetings', { title: 'Doc' });
    await api('get', '/meetings/{id}', `/meetings/${m.id}`);
    await api('patch', '/meetings/{id}', `/meetings/${m.id}`, { title: 'Renamed' });
    await api('post', '/meetings/{id}/host-links', `/meetings/${m.id}/host-links`, { ttl_seconds: 600 });
    await api('put', '/meetings/{id}/embed-origins', `/meetings/${m.id}/embed-origins`, { origins: ['https://*.example.com'] });
    await api('get', '/meetings/{id}/embed-origins', `/meetings/${m.code}/embed-origins`);
    await api('post', '/embed/tokens', '/embed/tokens', { meeting: m.code, name: 'Doc guest', features: { chat: false } });
    await api('put', '/meetings/{id}/embed-origins', `/meetings/${m.id}/embed-origins`, { origins: ['http://example.com'] });
    await api('get', '/meetings/{id}/participants', `/meetings/${m.id}/participants`);
    const chat = await api('get', '/meetings/{id}/chat-messages', `/meetings/${m.id}/chat-messages`);
    expect(chat.data).toHaveLength(1);
    const polls = await api('get', '/meetings/{id}/polls', `/meetings/${m.id}/polls`);
    expect(polls.data[0].options[0].voters).toHaveLength(1);
    const [breakoutRoom] = t.services.breakouts.current(m.id).rooms;
    t.services.transcripts.complete(
      m.id,
      { language: 'en', segments: [{ start: 0, end: 1, speaker: 'Ann', text: 'in the breakout' }] },
      breakoutRoom!.id,
    );
    const breakouts = await api('get', '/meetings/{id}/breakout-rooms', `/meetings/${m.id}/breakout-rooms`);
    expect(breakouts.data[0].participants).toHaveLength(1);
    expect(breakouts.data[0].transcript.status).toBe('ready');
    const roomPath = `/meetings/${m.id}/breakout-rooms/${breakoutRoom!.id}/transcript`;
    expect(await api('get', '/meetings/{id}/breakout-rooms/{room_id}/transcript', roomPath)).toMatchObject({ text: 'in the breakout' });
    await api('get', '/meetings/{id}/recordings', `/meetings/${m.id}/recordings`);
    await api('get', '/recordings/{recording_id}/download', `/recordings/${recording.id}/download`);
    await api('get', '/meetings/{id}/transcript', `/meetings/${m.id}/transcript`);
    const job = await api('post', '/meetings/{id}/transcript', `/meetings/${m.id}/transcript`);
    expect(job).toMatchObject({ kind: 'transcribe', status: 'pending' });
    await api('get', '/meetings/{id}/summary', `/meetings/${m.id}/summary`);
    const hits = await api('get', '/search', `/search?q=${encodeURIComponent(chat.data[0].text.split(' ')[0])}`);
    expect(hits.data.length).toBeGreaterThan(0);

    const endpoint = await api('post', '/webhook-endpoints', '/webhook-endpoints', {
      url: 'https://hooks.example.com/doc',
      events: ['registration.created', 'meeting.ended'],
      description: 'Doc',
    });
    const integration = await api('post', '/integrations', '/integrations', {
      kind: 'teams',
      webhook_url: 'https://example.webhook.office.com/doc',
      events: ['registration.created'],
    });
    await api('post', '/webinars/{slug}/registrations', '/webinars/doc-webinar/registrations', { email: 'x@example.com', name: 'X' });
    await api('get', '/webinars/{slug}/registrations', '/webinars/doc-webinar/registrations?email=X%40example.com');
    // One failed attempt each, so the deliveries' attempts (status, error, first 1 KB of the answer) are validated too.
    const failing = async () => ({
      statusCode: 500,
      error: null,
      permanentFailure: null,
      responseBody: 'busy',
      retryAfterMs: null,
      durationMs: 3,
    });
    expect(await t.deliveryWorker({ send: failing }).runOnce()).toBe(2);
    await api('get', '/webhook-endpoints', '/webhook-endpoints');
    await api('get', '/webhook-endpoints/{id}', `/webhook-endpoints/${endpoint.id}`);
    await api('patch', '/webhook-endpoints/{id}', `/webhook-endpoints/${endpoint.id}`, { description: 'Changed', enabled: true });
    await api('post', '/webhook-endpoints/{id}/rotate-secret', `/webhook-endpoints/${endpoint.id}/rotate-secret`);
    const deliveries = await api('get', '/webhook-endpoints/{id}/deliveries', `/webhook-endpoints/${endpoint.id}/deliveries`);
    expect(deliveries.data).toHaveLength(1);
    expect(deliveries.data[0].attempts).toHaveLength(1);
    await api('post', '/deliveries/{id}/redeliver', `/deliveries/${deliveries.data[0].id}/redeliver`);
    await api('get', '/integrations', '/integrations');
    await api('get', '/integrations/{id}', `/integrations/${integration.id}`);
    await api('patch', '/integrations/{id}', `/integrations/${integration.id}`, { events: ['registration.created', 'meeting.ended'] });
    const integrationDeliveries = await api('get', '/integrations/{id}/deliveries', `/integrations/${integration.id}/deliveries`);
    expect(integrationDeliveries.data).toHaveLength(1);
    const events = await api('get', '/events', '/events?limit=5');
    expect(events.data.length).toBeGreaterThan(0);
    await api('get', '/events', `/events?since=${events.data.at(-1).id}`);
    for (const type of [
      'registration.created',
      'recording.ready',
      'transcript.ready',
      'summary.ready',
      'meeting.started',
      'meeting.ended',
    ]) {
      await api('get', `/triggers/${type}`, `/triggers/${type}`);
    }
    await api('get', '/triggers/registration.created', '/triggers/registration.created?slug=doc-webinar');

    await api('delete', '/meetings/{id}', `/meetings/${m.id}`);
    await api('post', '/meetings/{id}/reopen', `/meetings/${m.id}/reopen`);
    await api('get', '/meetings/{id}', '/meetings/abc-defg-hij');
    await api('post', '/meetings', '/meetings', { title: '' });
    await api('delete', '/webhook-endpoints/{id}', `/webhook-endpoints/${endpoint.id}`);
    await api('delete', '/integrations/{id}', `/integrations/${integration.id}`);

    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((method) => method !== 'parameters')
        .map((method) => `${method} ${path}`),
    );
    expect(documented.filter((operation) => !checked.includes(operation))).toEqual([]);
  });

  it('serves the interactive console and its assets from the npm package', async () => {
    const page = await t.request('GET', '/api/v1/public/docs');
    expect(page.status).toBe(200);
    expect(page.body).toContain('/api/v1/public/docs/assets/swagger-ui-bundle.js');
    const bundle = await t.request('GET', '/api/v1/public/docs/assets/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);
    const init = await t.request('GET', '/api/v1/public/docs/console.js');
    expect(init.body).toContain("url: '/api/v1/public/openapi.json'");
  });

  it('gives the console (which keeps API keys in localStorage) the strict page headers: no framing, no sniffing, no Referer', async () => {
    for (const asset of ['', '/console.js', '/assets/swagger-ui-bundle.js', '/assets/swagger-ui.css']) {
      const res = await t.request('GET', `/api/v1/public/docs${asset}`);
      expect(res.status).toBe(200);
      expect({
        asset,
        csp: res.headers.get('content-security-policy'),
        frame: res.headers.get('x-frame-options'),
        sniff: res.headers.get('x-content-type-options'),
        referrer: res.headers.get('referrer-policy'),
      }).toEqual({
        asset,
        csp: expect.stringContaining("frame-ancestors 'none'"),
        frame: 'DENY',
        sniff: 'nosniff',
        referrer: 'no-referrer',
      });
      expect(res.headers.get('content-security-policy')).toMatch(/script-src 'self';/);
    }
  });
});

/** Makes every object schema that lists its properties refuse others, so an undocumented or misnamed field fails validation. */
function closedObjects<T>(schema: T): T {
  if (Array.isArray(schema)) schema.forEach(closedObjects);
  else if (schema && typeof schema === 'object') {
    const object = schema as Record<string, unknown>;
    if (object.properties && object.additionalProperties === undefined) object.additionalProperties = false;
    Object.values(object).forEach(closedObjects);
  }
  return schema;
}
