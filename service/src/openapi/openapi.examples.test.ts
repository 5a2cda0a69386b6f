import { principalIn, startTestServer, type TestServer } from '../testing';
import { tomorrowAtNine } from './openapi.examples';

interface Operation {
  method: string;
  path: string;
  example: unknown;
  hasBody: boolean;
  /** The query parameters' examples, as the console prefills them. */
  query: Record<string, string>;
}

/** Every operation of the served document, with the example of its JSON request body. */
function operationsOf(document: { paths: Record<string, Record<string, unknown>> }): Operation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).flatMap(([method, raw]) => {
      const operation = raw as {
        requestBody?: { content?: Record<string, { example?: unknown }> };
        parameters?: { name: string; in: string; example?: string }[];
      };
      const query = Object.fromEntries(
        (operation.parameters ?? []).filter((p) => p.in === 'query' && p.example !== undefined).map((p) => [p.name, p.example!]),
      );
      if (!['get', 'put', 'post', 'patch', 'delete'].includes(method)) return [];
      const media = operation.requestBody?.content?.['application/json'];
      return [{ method: method.toUpperCase(), path, example: media?.example, hasBody: operation.requestBody !== undefined, query }];
    }),
  );
}

describe('the API console’s examples: every request body example is valid against the running service', () => {
  let t: TestServer;
  let key: string;
  let document: { paths: Record<string, Record<string, unknown>> };
  const api = (method: string, path: string, body?: unknown) =>
    t.request(method, `/api/v1/public${path}`, { headers: { authorization: `Bearer ${key}` }, body });
  let webinars = 0;
  const seedMeetingRow = (id: string) => t.services.meetings.find(principalIn(t, t.org.id), id);

  /** Creates what the operation's path names, in the state the operation needs, and returns the path to call. */
  async function prepare(op: Operation): Promise<string> {
    const meeting = async () => {
      const res = await api('POST', '/meetings', { title: 'Fixture' });
      expect(res.status).toBe(201);
      return res.body as { id: string; code: string };
    };
    if (op.path.startsWith('/meetings/{id}')) {
      const m = await meeting();
      if (op.path === '/meetings/{id}/reopen') {
        // Reopening is for an ended meeting: it went live (as when someone joins), then it was ended.
        t.services.meetings.start(seedMeetingRow(m.id));
        expect((await api('PATCH', `/meetings/${m.id}`, { status: 'ended' })).status).toBe(200);
      }
      return op.path.replace('{id}', m.id);
    }
    if (op.path.startsWith('/webinars/{slug}')) {
      const slug = `examples-${++webinars}`;
      expect((await api('POST', '/meetings', { title: 'Webinar', kind: 'webinar', slug })).status).toBe(201);
      return op.path.replace('{slug}', slug);
    }
    if (op.path.startsWith('/webhook-endpoints/{id}')) {
      const res = await api('POST', '/webhook-endpoints', { url: 'https://hooks.example.com/fixture', events: ['meeting.started'] });
      expect(res.status).toBe(201);
      return op.path.replace('{id}', res.body.id);
    }
    if (op.path.startsWith('/integrations/{id}')) {
      const res = await api('POST', '/integrations', { kind: 'project', events: ['meeting.started'] });
      expect(res.status).toBe(201);
      return op.path.replace('{id}', res.body.id);
    }
    if (op.path.includes('{')) throw new Error(`${op.method} ${op.path}: add how to create what its path names to prepare()`);
    return op.path;
  }

  /** The one body field that names another resource: an embed token is for an existing meeting, so the example's code is swapped for one. */
  async function referencing(op: Operation): Promise<unknown> {
    if (op.method === 'POST' && op.path === '/embed/tokens') {
      const res = await api('POST', '/meetings', { title: 'Embedded' });
      return { ...(op.example as object), meeting: res.body.code };
    }
    return op.example;
  }

  beforeAll(async () => {
    t = await startTestServer();
    key = t.key();
    const res = await t.request('GET', '/api/v1/public/openapi.json');
    expect(res.status).toBe(200);
    document = res.body;
  });
  afterAll(() => t?.close());

  it('every operation with a request body has an example in the served document', () => {
    const withBody = operationsOf(document).filter((op) => op.hasBody);
    expect(withBody.length).toBeGreaterThanOrEqual(10);
    expect(withBody.filter((op) => op.example === undefined).map((op) => `${op.method} ${op.path}`)).toEqual([]);
  });

  it('POST /meetings’s example is a plain meeting scheduled in the future (tomorrow, 09:00 UTC)', () => {
    const example = operationsOf(document).find((op) => op.method === 'POST' && op.path === '/meetings')!.example as Record<
      string,
      unknown
    >;
    expect(example).not.toHaveProperty('slug');
    expect(example).not.toHaveProperty('organization_id');
    expect(Date.parse(example.scheduled_at as string)).toBeGreaterThan(Date.now() + 8 * 3_600_000);
    expect(tomorrowAtNine(Date.parse('2026-11-26T23:59:00Z'))).toBe('2026-11-27T09:00:00Z');
    expect(tomorrowAtNine(Date.parse('2026-11-27T00:00:00Z'))).toBe('2026-11-28T09:00:00Z');
  });

  it('sends each example, as the console would on a first click, and gets a 2xx', async () => {
    const answers: string[] = [];
    for (const op of operationsOf(document).filter((o) => o.hasBody)) {
      const path = await prepare(op);
      const res = await api(op.method, path, await referencing(op));
      answers.push(`${op.method} ${op.path} -> ${res.status}${res.status >= 300 ? ` ${JSON.stringify(res.body)}` : ''}`);
    }
    expect(answers.filter((a) => !/ -> 2\d\d$/.test(a))).toEqual([]);
    expect(answers.length).toBeGreaterThanOrEqual(10);
  });

  it('sends every operation without path parameters, with its prefilled query parameters, and gets a 2xx', async () => {
    const answers: string[] = [];
    for (const op of operationsOf(document).filter((o) => !o.hasBody && !o.path.includes('{'))) {
      const query = new URLSearchParams(op.query).toString();
      const res = await api(op.method, `${op.path}${query ? `?${query}` : ''}`);
      answers.push(`${op.method} ${op.path} -> ${res.status}${res.status >= 300 ? ` ${JSON.stringify(res.body)}` : ''}`);
    }
    expect(answers.filter((a) => !/ -> 2\d\d$/.test(a))).toEqual([]);
    expect(answers).toContain('GET /search -> 200');
  });
});
