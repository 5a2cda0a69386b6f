import fc from 'fast-check';
import { databaseSnapshot, seedMeeting, seedParticipant, seedRecording, seedSummary, seedTranscript } from '../testing/fixtures';
import { startTestServer, type TestServer } from '../testing/harness';
import { openApiDocument } from './openapi.document';

// Property-based fuzzing of every operation of the OpenAPI document, with requests generated from
// its own schemas (valid, almost valid and hostile). `npm run fuzz` raises the number of runs.
const RUNS_PER_OPERATION = Number(process.env.SVC_FUZZ_RUNS ?? 160);
const SEED = 14;

type Schema = Record<string, unknown>;
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  schema?: Schema;
}
interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body?: Schema;
}

const doc = openApiDocument() as {
  paths: Record<string, Record<string, { parameters?: Parameter[]; requestBody?: { content: Record<string, { schema: Schema }> } }>>;
  components: { schemas: Record<string, Schema>; parameters?: Record<string, Parameter> };
};
const resolve = <T>(value: T): T => {
  const ref = (value as { $ref?: string }).$ref;
  if (!ref) return value;
  const [, , section, name] = ref.split('/');
  return (doc.components as unknown as Record<string, Record<string, T>>)[section!]![name!]!;
};

const OPERATIONS: Operation[] = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => method !== 'parameters')
    .map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      parameters: [...((item as { parameters?: Parameter[] }).parameters ?? []), ...(op.parameters ?? [])].map(resolve),
      body: op.requestBody ? resolve(op.requestBody.content['application/json']!.schema) : undefined,
    })),
);

const LONE_SURROGATES = fc.constantFrom('\ud800', '\udfff', 'a\udc00b', '\ud83d');
const HOSTILE_STRINGS = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  LONE_SURROGATES,
  fc.constantFrom('', ' ', '\u0000', '\u202eevil', 'x'.repeat(5000), '2026-12-01\n10:00:00Z', '%ZZ', '../../etc/passwd', '{"a":1}', 'null'),
);

/** An arbitrary for values of `schema`, mostly valid; `hostile` mixes in values of the wrong shape. */
function valueOf(schemaOrRef: Schema, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(schemaOrRef);
  if (Array.isArray(schema.enum))
    return fc.oneof({ arbitrary: fc.constantFrom(...(schema.enum as unknown[])), weight: 8 }, HOSTILE_STRINGS);
  const type = schema.type;
  if (Array.isArray(type)) return fc.oneof(...type.map((t) => valueOf({ ...schema, type: t }, depth)));
  switch (type) {
    case 'string':
      return fc.oneof({ arbitrary: stringOf(schema), weight: 8 }, { arbitrary: HOSTILE_STRINGS, weight: 2 });
    case 'integer':
    case 'number': {
      const min = (schema.minimum as number | undefined) ?? -1000;
      const max = (schema.maximum as number | undefined) ?? 1000;
      return fc.oneof(
        { arbitrary: fc.integer({ min, max }), weight: 8 },
        fc.constantFrom(min - 1, max + 1, 0.5, -0, 1e308, Number.MAX_SAFE_INTEGER + 2, '5'),
      );
    }
    case 'boolean':
      return fc.oneof({ arbitrary: fc.boolean(), weight: 8 }, fc.constantFrom('true', 0, null));
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = valueOf((schema.items as Schema) ?? {}, depth + 1);
      return fc.array(items, { minLength: (schema.minItems as number) ?? 0, maxLength: Math.min((schema.maxItems as number) ?? 4, 6) });
    }
    case 'object':
      return objectOf(schema, depth);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  const maxLength = Math.min((schema.maxLength as number | undefined) ?? 60, 300);
  const minLength = (schema.minLength as number | undefined) ?? 0;
  switch (schema.format) {
    case 'date-time':
      return fc.oneof(
        fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
        fc.constantFrom('2026-12-01T10:00:00+02:00', '2026-12-01 10:00:00Z', '2026-12-01T10:00:00+0200', '2026-02-30T10:00:00Z'),
      );
    case 'email':
      return fc.emailAddress();
    case 'uri':
      return fc.oneof(
        fc.webUrl({ validSchemes: ['https'] }),
        fc.constantFrom(
          'https://[::ffff:127.0.0.1]:22/',
          'http://127.0.0.1/',
          'https://169.254.169.254/latest',
          'https://hooks.example.com/x',
        ),
      );
  }
  if (typeof schema.pattern === 'string') return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= 300);
  return fc.string({ unit: 'grapheme', minLength, maxLength });
}

function objectOf(schema: Schema, depth: number): fc.Arbitrary<unknown> {
  const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
  const required = (schema.required as string[] | undefined) ?? [];
  if (depth > 3) return fc.constant({});
  const record = fc.record(Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, valueOf(property, depth + 1)])), {
    requiredKeys: required.filter((name) => name in properties),
  });
  // Sometimes a required field is missing or an unknown one is added.
  return fc.oneof(
    { arbitrary: record, weight: 8 },
    record.chain((value) => fc.constantFrom(...Object.keys(value as object), '__none__').map((drop) => omit(value as object, drop))),
    record.map((value) => ({ ...(value as object), unknown_field: 1 })),
  );
}

function omit(value: object, key: string): object {
  return Object.fromEntries(Object.entries(value).filter(([k]) => k !== key));
}

/** What the fuzzer sends. */
interface FuzzRequest {
  path: string;
  body?: unknown;
  raw?: string;
  headers: Record<string, string>;
}

// Path segments: percent-encoded fuzz, raw percent sequences (valid or not), and the ids that exist.
const PATH_FUZZ = fc.oneof(
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).map(encodeURIComponent),
  fc.stringMatching(/^(%[0-9A-Fa-f]{2}|%[G-Zg-z]{2}|[a-z0-9_.-]){1,12}$/),
);

function requestFor(op: Operation, known: Record<string, string[]>): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const queryParams = op.parameters.filter((p) => p.in === 'query');
  const path = fc
    .tuple(
      ...pathParams.map((p) => {
        const values = known[`${op.path}:${p.name}`] ?? known[p.name] ?? [];
        return values.length > 0 ? fc.oneof({ arbitrary: fc.constantFrom(...values), weight: 4 }, PATH_FUZZ) : PATH_FUZZ;
      }),
    )
    .map((values) => pathParams.reduce((p, param, i) => p.replace(`{${param.name}}`, values[i] as string), op.path));
  const query = fc
    .tuple(
      ...queryParams.map((p) =>
        fc.option(
          fc.oneof(
            valueOf(p.schema ?? { type: 'string' }).map((v) => String(v)),
            fc.constantFrom(...(known[p.name] ?? ['x'])),
          ),
          { nil: undefined },
        ),
      ),
    )
    .map((values) => {
      const search = new URLSearchParams();
      queryParams.forEach((p, i) => values[i] !== undefined && search.append(p.name, values[i]!));
      const text = search.toString();
      return text ? `?${text}` : '';
    });
  const headers: fc.Arbitrary<Record<string, string | undefined>> = op.parameters.some((p) => p.name === 'Idempotency-Key')
    ? fc.record({ 'Idempotency-Key': fc.option(fc.stringMatching(/^[\x21-\x7e]{1,40}$/), { nil: undefined }) })
    : fc.constant({});
  const body =
    op.method === 'GET'
      ? fc.constant({})
      : op.body
        ? fc.oneof(
            { arbitrary: valueOf(op.body).map((value) => ({ body: value })), weight: 8 },
            fc.jsonValue({ maxDepth: 3 }).map((value) => ({ body: value })),
            fc.string({ unit: 'binary', maxLength: 50 }).map((raw) => ({ raw })),
          )
        : fc.oneof(
            { arbitrary: fc.constant({}), weight: 8 },
            fc.jsonValue({ maxDepth: 2 }).map((value) => ({ body: value })),
          );
  return fc.tuple(path, query, headers, body).map(([p, q, h, b]) => ({
    path: p + q,
    headers: Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined)) as Record<string, string>,
    ...(b as { body?: unknown; raw?: string }),
  }));
}

describe('fuzzing every operation from the OpenAPI schemas: no 5xx, problem+json on every 4xx, nothing changed by a refused request', () => {
  let t: TestServer;
  let key: string;
  const known: Record<string, string[]> = {};
  const snapshot = () => databaseSnapshot(t.services);

  beforeAll(async () => {
    t = await startTestServer();
    key = t.key();
    const webinar = seedMeeting(t, { kind: 'webinar', slug: 'fuzz-webinar', title: 'Fuzz' });
    seedParticipant(t, webinar.id);
    const recording = seedRecording(t, webinar.id);
    seedTranscript(t.services, webinar.id);
    seedSummary(t.services, webinar.id);
    const endpoint = await t.request('POST', '/api/v1/public/webhook-endpoints', {
      key,
      body: { url: 'https://hooks.example.com/fuzz', events: ['registration.created'] },
    });
    await t.request('POST', '/api/v1/public/webinars/fuzz-webinar/registrations', {
      key,
      body: { email: 'seed@example.com', name: 'Seed' },
    });
    const delivery = await t.request('GET', `/api/v1/public/webhook-endpoints/${endpoint.body.id}/deliveries`, { key });
    const integration = await t.request('POST', '/api/v1/public/integrations', {
      key,
      body: { kind: 'teams', webhook_url: 'https://example.webhook.office.com/fuzz', events: ['meeting.ended'] },
    });
    const events = await t.request('GET', '/api/v1/public/events', { key });
    Object.assign(known, {
      '/meetings/{id}:id': [webinar.id, webinar.code],
      '/meetings/{id}/participants:id': [webinar.id],
      '/meetings/{id}/recordings:id': [webinar.id],
      '/meetings/{id}/transcript:id': [webinar.id],
      '/meetings/{id}/summary:id': [webinar.id],
      recording_id: [recording.id],
      slug: ['fuzz-webinar'],
      '/webhook-endpoints/{id}:id': [endpoint.body.id],
      '/webhook-endpoints/{id}/rotate-secret:id': [endpoint.body.id],
      '/webhook-endpoints/{id}/deliveries:id': [endpoint.body.id],
      '/deliveries/{id}/redeliver:id': [delivery.body.data[0].id],
      '/integrations/{id}:id': [integration.body.id],
      '/integrations/{id}/deliveries:id': [integration.body.id],
      since: events.body.data.map((e: { id: string }) => e.id),
      cursor: [webinar.id, 'mtg_zzzz'],
    });
  });
  afterAll(() => t.close());

  it('covers every operation of the document', () => {
    expect(OPERATIONS.length).toBeGreaterThanOrEqual(30);
    const tables = (JSON.parse(snapshot()) as [string, unknown[]][]).map(([table]) => table);
    expect(tables).toEqual(
      expect.arrayContaining(['meetings', 'registrations', 'events', 'deliveries', 'webhook_endpoints', 'integrations', 'search_index']),
    );
  });

  it.each(OPERATIONS.map((op) => [`${op.method} ${op.path}`, op] as const))('%s', async (_name, op) => {
    // The full snapshot is taken again only when rows changed since the last one. The server writes through this same
    // connection, so an unchanged total_changes() proves a refused request changed nothing; otherwise the snapshots decide.
    const rowChanges = () => t.services.db.prepare('SELECT total_changes()').pluck().get() as number;
    let before = snapshot();
    let changesAtBefore = rowChanges();
    await fc.assert(
      fc.asyncProperty(requestFor(op, known), async (request) => {
        if (rowChanges() !== changesAtBefore) {
          before = snapshot();
          changesAtBefore = rowChanges();
        }
        const res = await t.request(op.method, `/api/v1/public${request.path}`, {
          key,
          body: request.body,
          raw: request.raw,
          headers: request.raw !== undefined ? { 'content-type': 'application/json', ...request.headers } : request.headers,
        });
        if (res.status >= 500) throw new Error(`${res.status} for ${JSON.stringify(request)}: ${JSON.stringify(res.body)}`);
        if (res.status >= 400) {
          expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
          expect(res.body).toMatchObject({ status: res.status, code: expect.any(String), request_id: expect.any(String) });
          if (rowChanges() !== changesAtBefore && snapshot() !== before) {
            throw new Error(`a refused request (${res.status} ${res.body.code}) changed the database: ${JSON.stringify(request)}`);
          }
        }
      }),
      { seed: SEED, numRuns: RUNS_PER_OPERATION, endOnFailure: true },
    );
  });
});
