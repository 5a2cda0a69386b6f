import { loadBlueprint, shippedBlueprints, type Blueprint, type BlueprintModule } from './blueprint';
import { checkBlueprint, type Problem } from './checker';
import { openApiDocument } from '../../service/src/openapi/openapi.document';
import type { Field } from './fields';
import { SVC_EVENT_FIELDS } from './svc-api';

const SHEET_ROW = 'event-to-sheet-row.blueprint.json';
const CREATE_MEETING = 'create-meeting.blueprint.json';
const REGISTER = 'register-webinar-participant.blueprint.json';
const FEED = 'poll-event-feed.blueprint.json';

function planted(file: string, plant: (blueprint: Blueprint) => void): Problem[] {
  const blueprint = structuredClone(loadBlueprint(file));
  plant(blueprint);
  return checkBlueprint(blueprint);
}

function routeOf(module: BlueprintModule | undefined, route: number): BlueprintModule[] {
  return module!.routes![route]!.flow;
}

describe('checkBlueprint on the shipped blueprints', () => {
  it('finds the four blueprints', () => {
    expect(shippedBlueprints().map((b) => b.file)).toEqual([CREATE_MEETING, SHEET_ROW, FEED, REGISTER]);
  });

  it.each(shippedBlueprints().map((b) => [b.file, b.json]))('finds no problem in %s', (_file, json) => {
    expect(checkBlueprint(json)).toEqual([]);
  });

  it("declares svc's event envelope as what the webhook's Parse JSON module outputs", () => {
    const parse = routeOf(loadBlueprint(SHEET_ROW).flow[2], 0)[0]!;
    expect(parse.module).toBe('json:ParseJSON');
    expect(parse.metadata.interface).toEqual(SVC_EVENT_FIELDS);
  });

  it("declares every member of the events' `data` the OpenAPI document describes (transcript.ready's breakout_room_id too)", () => {
    type Schema = { properties?: Record<string, Schema>; items?: Schema };
    const schemas = (openApiDocument() as { components: { schemas: Record<string, Schema> } }).components.schemas;
    // Field names, nested as the schema nests objects and arrays of objects; a $ref (recording) is declared as `any`.
    const namesOf = (schema: Schema | undefined): unknown => {
      const props = schema?.properties ?? schema?.items?.properties;
      return props ? Object.fromEntries(Object.entries(props).map(([name, member]) => [name, namesOf(member)])) : null;
    };
    const declared = (fields: Field[] | undefined): unknown =>
      fields?.length ? Object.fromEntries(fields.map((f) => [f.name, declared(f.spec)])) : null;
    const data = SVC_EVENT_FIELDS.find((f) => f.name === 'data')!;
    expect(declared(data.spec)).toEqual(namesOf(schemas.Event!.properties!.data));
    expect(declared(data.spec)).toMatchObject({ transcript: { breakout_room_id: null } });
  });
});

describe('checkBlueprint on planted errors', () => {
  it('catches a reference to a module that runs later', () => {
    expect(planted(REGISTER, (b) => (b.flow[1]!.mapper!.object = '{{3.json}}'))).toEqual([
      { path: 'flow[1].mapper.object', message: '{{3.json}}: module 3 does not run before this point' },
    ]);
  });

  it('catches a reference into a sibling route', () => {
    const problems = planted(SHEET_ROW, (b) => (routeOf(b.flow[2], 1)[0]!.mapper!.body = '{"title": {{5.json}}}'));
    expect(problems).toEqual([
      { path: 'flow[2].routes[1].flow[0].mapper.body', message: '{{5.json}}: module 5 does not run before this point' },
    ]);
  });

  it('catches a reference to a module that does not exist', () => {
    expect(planted(CREATE_MEETING, (b) => (b.flow[1]!.mapper!.object = '{{42.title}}'))).toEqual([
      { path: 'flow[1].mapper.object', message: '{{42.title}}: there is no module 42' },
    ]);
  });

  it('catches an unknown module', () => {
    expect(planted(CREATE_MEETING, (b) => (b.flow[8]!.module = 'http:ActionSendDataX'))).toContainEqual({
      path: 'flow[8].module',
      message: expect.stringContaining('unknown module "http:ActionSendDataX"'),
    });
  });

  it('catches a module version the table does not know', () => {
    expect(planted(CREATE_MEETING, (b) => (b.flow[8]!.version = 3))).toEqual([
      { path: 'flow[8].version', message: 'http:MakeRequest is version 4, not 3' },
    ]);
  });

  it('catches a field the webhook does not output', () => {
    expect(planted(CREATE_MEETING, (b) => (b.flow[1]!.mapper!.object = '{{1.titel}}'))).toEqual([
      { path: 'flow[1].mapper.object', message: '{{1.titel}}: module 1 outputs no field "titel"' },
    ]);
  });

  it("catches a field svc's answer does not have", () => {
    const problems = planted(CREATE_MEETING, (b) => (routeOf(b.flow[9], 0)[0]!.mapper!.body = '{"join_url": "{{5.data.joinurl}}"}'));
    expect(problems).toEqual([
      { path: 'flow[9].routes[0].flow[0].mapper.body', message: '{{5.data.joinurl}}: module 5 outputs no field "data.joinurl"' },
    ]);
  });

  it('catches a field an iterated event does not have', () => {
    const problems = planted(FEED, (b) => (routeOf(routeOf(b.flow[2], 1)[1], 1)[1]!.mapper!.object = '{{10.data.meeting.titel}}'));
    expect(problems).toEqual([
      {
        path: 'flow[2].routes[1].flow[1].routes[1].flow[1].mapper.object',
        message: '{{10.data.meeting.titel}}: module 10 outputs no field "data.meeting.titel"',
      },
    ]);
  });

  it('catches a step into an array without map() or an iterator', () => {
    const problems = planted(FEED, (b) => (routeOf(routeOf(b.flow[2], 1)[1], 2)[0]!.mapper!.data = { cursor: '{{6.data.data.id}}' }));
    expect(problems).toEqual([
      {
        path: 'flow[2].routes[1].flow[1].routes[2].flow[0].mapper.data.cursor',
        message: '{{6.data.data.id}}: module 6 has data.data as an array: use map() or an iterator',
      },
    ]);
  });

  it('catches an iterator over something that is not an array', () => {
    const problems = planted(FEED, (b) => (routeOf(routeOf(b.flow[2], 1)[1], 1)[0]!.mapper!.array = '{{6.data.next_cursor}}'));
    expect(problems).toContainEqual({
      path: 'flow[2].routes[1].flow[1].routes[1].flow[0].mapper',
      message: 'the iterated value must be an array, not text',
    });
  });

  it('catches a duplicate module id', () => {
    expect(planted(SHEET_ROW, (b) => (routeOf(b.flow[2], 1)[0]!.id = 8))).toEqual([
      { path: 'flow[2].routes[1].flow[0].id', message: 'id 8 is already used by flow[2].routes[0].flow[3].routes[0].flow[0]' },
    ]);
  });

  it('catches a missing HTTP mapper field', () => {
    expect(planted(CREATE_MEETING, (b) => delete b.flow[8]!.mapper!.queryParameters)).toEqual([
      { path: 'flow[8].mapper.queryParameters', message: 'is missing (must be an array of {name, value})' },
    ]);
    expect(planted(CREATE_MEETING, (b) => delete b.flow[8]!.mapper!.method)).toContainEqual({
      path: 'flow[8].mapper.method',
      message: 'is missing (must be one of "get", "post", "put", "patch", "delete")',
    });
  });

  it('catches missing designer metadata', () => {
    expect(planted(REGISTER, (b) => delete (b.flow[3]!.metadata as Partial<BlueprintModule['metadata']>).designer)).toEqual([
      { path: 'flow[3].metadata.designer', message: 'must be an object' },
    ]);
  });

  it('catches an HTTP body that is not JSON around its formulas', () => {
    expect(planted(REGISTER, (b) => (b.flow[3]!.mapper!.jsonStringBodyContent = '{"email": {{2.json}} "name": {{3.json}}}'))).toEqual([
      { path: 'flow[3].mapper.jsonStringBodyContent', message: 'is not JSON once each {{...}} is replaced by a value' },
    ]);
  });

  it('catches an svc call that pastes the key into a header instead of the keychain, and a placeholder typo', () => {
    const problems = planted(REGISTER, (b) => {
      b.flow[3]!.parameters = { authenticationType: 'noAuth', tlsType: '' };
      b.flow[3]!.mapper!.headers = [{ name: 'Authorization', value: 'Bearer YOUR_SVC_KEY' }];
    });
    expect(problems).toEqual([
      {
        path: 'flow[3].mapper.headers[0]',
        message: 'an Authorization header keeps a credential in the scenario; use the keychain (authenticationType apiKey)',
      },
      {
        path: 'flow[3].parameters.authenticationType',
        message: 'an svc call must authenticate with the svc API key keychain (authenticationType apiKey)',
      },
      { path: 'flow[3].mapper.headers[0].value', message: expect.stringContaining('unknown placeholder YOUR_SVC_KEY') },
    ]);
  });

  it('catches the legacy HTTP module, account-bound ids, exporter-only metadata and live credentials', () => {
    const problems = planted(CREATE_MEETING, (b) => {
      b.flow[0]!.parameters = { hook: 1234567, maxResults: 1 };
      b.flow[8]!.parameters = { authenticationType: 'apiKey', tlsType: '', apiKeyKeychain: 98765 };
      (b.flow[1]!.metadata as Record<string, unknown>).designer = { x: 0, y: 0, samples: { title: 'Real customer data' } };
      (b as unknown as Record<string, unknown>).scheduling = { type: 'immediately' };
      b.flow[2]!.mapper!.object = 'svc_sk_live0123456789abcdef';
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: 'flow[0].parameters.hook', message: 'names something in one Make account; ship 0 and re-pick it after import' },
        { path: 'flow[8].parameters.apiKeyKeychain', message: 'names something in one Make account; ship 0 and re-pick it after import' },
        { path: 'flow[1].metadata.designer.samples', message: 'is exporter-only metadata of one account; remove it' },
        { path: 'scheduling', message: 'is exporter-only metadata of one account; remove it' },
        { path: 'flow[2].mapper.object', message: 'holds a live svc key or webhook secret; use a keychain or a placeholder' },
      ]),
    );
    const legacy = planted(CREATE_MEETING, (b) => (b.flow[8]!.module = 'http:ActionSendData'));
    expect(legacy).toContainEqual({
      path: 'flow[8].module',
      message: "http:ActionSendData is Make's legacy HTTP app; use http:MakeRequest (HTTP v4) with a keychain",
    });
  });

  it('catches a call to an svc endpoint it does not know', () => {
    const url = 'YOUR_SVC_BASE_URL/api/v1/public/webinar/{{1.slug}}/registrations';
    expect(planted(REGISTER, (b) => (b.flow[3]!.mapper!.url = url))).toContainEqual({
      path: 'flow[3].mapper.url',
      message: `POST ${url} is not an svc endpoint the checker knows`,
    });
  });

  it('catches an unknown filter operator and a filter reference to a later module', () => {
    const problems = planted(SHEET_ROW, (b) => {
      const filter = routeOf(b.flow[2], 0)[0]!.filter!;
      filter.conditions[0]![0]!.o = 'text:contains';
      filter.conditions[0]![1]!.a = '{{4.created_at}}';
    });
    expect(problems).toEqual([
      { path: 'flow[2].routes[0].flow[0].filter.conditions[0][0].o', message: expect.stringMatching(/^must be one of "exist", /) },
      { path: 'flow[2].routes[0].flow[0].filter.conditions[0][1].a', message: '{{4.created_at}}: module 4 does not run before this point' },
    ]);
  });

  it('catches functions, variables and syntax it does not know', () => {
    const problems = planted(SHEET_ROW, (b) => {
      const variables = b.flow[1]!.mapper!.variables as { name: string; value: string }[];
      variables[0]!.value = '{{sha512(1.value)}}';
      variables[1]!.value = '{{now}}';
      variables[2]!.value = '{{sha256(1.value; "hex"}}';
    });
    expect(problems).toEqual([
      {
        path: 'flow[1].mapper.variables[0].value',
        message: expect.stringContaining('sha512() is not one of the Make functions this package knows'),
      },
      {
        path: 'flow[1].mapper.variables[1].value',
        message: expect.stringContaining('now is not one of the Make variables this package knows'),
      },
      { path: 'flow[1].mapper.variables[2].value', message: 'expected ")" but found the end of the formula' },
    ]);
  });

  it('catches a module after a router and an instant trigger that is not first', () => {
    const problems = planted(CREATE_MEETING, (b) => b.flow.push(structuredClone(b.flow[0]!), { ...structuredClone(b.flow[1]!), id: 99 }));
    expect(problems).toContainEqual({ path: 'flow[9]', message: 'a router must be the last module of its flow; its routes carry on' });
    expect(problems).toContainEqual({ path: 'flow[10].module', message: 'an instant trigger can only be the first module of a scenario' });
    expect(problems).toContainEqual({ path: 'flow[10].id', message: 'id 1 is already used by flow[0]' });
  });

  it('catches scenario metadata that contradicts the first module', () => {
    expect(planted(FEED, (b) => (b.metadata.instant = true))).toEqual([
      { path: 'metadata.instant', message: 'must be false for a scenario whose first module is builtin:BasicRepeater' },
    ]);
  });

  it('catches a blueprint that is not one', () => {
    expect(checkBlueprint([])).toEqual([{ path: '', message: 'a blueprint must be a JSON object' }]);
    expect(checkBlueprint({ name: '', flow: [], metadata: {} })).toEqual([
      { path: 'name', message: 'must be non-empty text' },
      { path: 'flow', message: 'must hold at least one module' },
      { path: 'metadata.instant', message: 'is missing (must be a boolean)' },
      { path: 'metadata.version', message: 'is missing (must be one of 1)' },
      { path: 'metadata.scenario', message: 'is missing (must be an object)' },
      { path: 'metadata.designer', message: 'is missing (must be an object)' },
      { path: 'metadata.zone', message: 'is missing (must be non-empty text)' },
    ]);
  });
});
