import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { publicRoutes } from '../app';
import { openApiPath } from '../http/routes';
import { seedMeeting, seedParticipant, seedRecording, seedSummary, seedTranscript } from '../testing/fixtures';
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

  it('matches what the API really answers (responses validated against the documented schemas)', async () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    ajv.addSchema({ $id: 'doc', components: doc.components });
    const check = (path: string, method: string, status: number, body: unknown) => {
      const responses = doc.paths[path]![method]!.responses[String(status)]!;
      const media = responses.content?.['application/json'] ?? responses.content?.['application/problem+json'];
      const schema = JSON.parse(JSON.stringify(media!.schema).replaceAll('"#/components', '"doc#/components'));
      const valid = ajv.validate(schema, body);
      expect([path, method, status, ajv.errors ?? null]).toEqual([path, method, status, null]);
      return valid;
    };
    const key = t.key();
    const m = seedMeeting(t, { kind: 'webinar', slug: 'doc-webinar' });
    seedParticipant(t, m.id);
    seedRecording(t, m.id);
    seedTranscript(t.services, m.id);
    seedSummary(t.services, m.id);
    const calls: [string, string, string, unknown?][] = [
      ['get', '/me', '/me'],
      ['get', '/meetings', '/meetings?limit=2'],
      ['post', '/meetings', '/meetings', { title: 'Doc' }],
      ['get', '/meetings/{id}', `/meetings/${m.id}`],
      ['patch', '/meetings/{id}', `/meetings/${m.id}`, { title: 'Renamed' }],
      ['get', '/meetings/{id}/participants', `/meetings/${m.id}/participants`],
      ['get', '/meetings/{id}/recordings', `/meetings/${m.id}/recordings`],
      ['get', '/meetings/{id}/transcript', `/meetings/${m.id}/transcript`],
      ['get', '/meetings/{id}/summary', `/meetings/${m.id}/summary`],
      ['post', '/webinars/{slug}/registrations', '/webinars/doc-webinar/registrations', { email: 'x@example.com', name: 'X' }],
      ['delete', '/meetings/{id}', `/meetings/${m.id}`],
      ['get', '/meetings/{id}', '/meetings/abc-defg-hij'],
      ['post', '/meetings', '/meetings', { title: '' }],
    ];
    for (const [method, path, url, body] of calls) {
      const res = await t.request(method.toUpperCase(), `/api/v1/public${url}`, { key, body });
      check(path, method, res.status, res.body);
    }
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
});
