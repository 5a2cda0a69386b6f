import { recordFile, seedMeeting, startTestServer, type TestServer, type ReceivedRequest } from '@svc/service/testing';
import { createAppTester, type Bundle, type ZObject } from 'zapier-platform-core';
import App from '../src';

/** A function of the app as the app tester runs it. */
export type Perform = (z: ZObject, bundle: Bundle) => unknown;

/** The functions of a REST-hook trigger. */
export interface HookOperation {
  perform: Perform;
  performList: Perform;
  performSubscribe: Perform;
  performUnsubscribe: Perform;
}

/** Runs the app's functions the way Zapier does, through zapier-platform-core. */
export const appTester = createAppTester(App);

/** The real service, in-process, with webhooks allowed to reach the loopback receivers of the tests and links (signed download URLs) to itself. */
export function startService(): Promise<TestServer> {
  return startTestServer({ SVC_ALLOW_INSECURE_WEBHOOKS: 'true' }, { ownBaseUrl: true });
}

/** A connection's fields for the test server and a key. */
export function authDataFor(t: TestServer, key: string): { base_url: string; api_key: string } {
  return { base_url: t.url, api_key: key };
}

/** The REST-hook operation of a trigger of the app. */
export function hookOf(key: string): HookOperation {
  return (App.triggers as Record<string, { operation: unknown }>)[key]!.operation as HookOperation;
}

/** Calls the public API as a customer would, to check what the app did. */
export function callApi(t: TestServer, key: string) {
  return (method: string, path: string, body?: unknown) => t.request(method, `/api/v1/public${path}`, { key, body });
}

/** A webinar created through the API. */
export async function createWebinar(
  t: TestServer,
  key: string,
  slug: string,
  title = `Webinar ${slug}`,
): Promise<{ id: string; slug: string; title: string }> {
  const res = await callApi(t, key)('POST', '/meetings', { title, kind: 'webinar', slug, scheduled_at: '2030-01-15T16:00:00+01:00' });
  expect(res.status).toBe(201);
  return res.body;
}

/** A meeting that went live (meeting.started) and was ended through the API (meeting.ended). */
export async function runMeeting(t: TestServer, key: string, title: string): Promise<string> {
  const meeting = seedMeeting(t, { title });
  t.services.meetings.start(meeting);
  expect((await callApi(t, key)('PATCH', `/meetings/${meeting.id}`, { status: 'ended' })).status).toBe(200);
  return meeting.id;
}

/** The media pipeline's results for a meeting, through its services: recording.ready (with a file), transcript.ready and summary.ready. */
export function finishMedia(t: TestServer, meetingId: string): void {
  recordFile(t.services, t.dataDir, meetingId, 'webm-bytes');
  t.services.transcripts.complete(meetingId, {
    language: 'en',
    segments: [
      { start: 0, end: 2.5, speaker: 'Bob', text: 'We ship on Friday.' },
      { start: 2.5, end: 5.1, speaker: 'Ada', text: 'I write the release notes.' },
    ],
  });
  t.services.summaries.save(meetingId, {
    tldr: 'Release on Friday.',
    decisions: [{ text: 'We ship on Friday.', cite: [0] }],
    action_items: [{ text: 'I write the release notes.', owner: 'Ada', due: null, cite: [1] }],
    generator: 'extractive',
  });
}

/**
 * A delivery as Zapier hands it to a REST hook's `perform`: the raw body and the request headers with
 * `Http-` before each name (`Http-X-Svc-Signature`), beside the parsed body.
 */
export function zapierHookBundle(request: ReceivedRequest): Pick<Bundle, 'rawRequest' | 'cleanedRequest'> {
  const title = (name: string) =>
    name
      .split('-')
      .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
      .join('-');
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [
      name.startsWith('content-') ? title(name) : `Http-${title(name)}`,
      Array.isArray(value) ? value.join(', ') : String(value),
    ]),
  );
  const content = request.rawBody.toString('utf8');
  return { rawRequest: { method: 'POST', querystring: '', headers, content }, cleanedRequest: JSON.parse(content) };
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Zapier's names for the leaves of a record (`data__meeting__id`, `segments[]text` for line items), each with its JSON type. */
function leafTypes(value: unknown, prefix = ''): Record<string, string> {
  if (Array.isArray(value) && value.length > 0 && value.every(isRecord)) {
    return Object.assign(
      {},
      ...value.map((item) => Object.fromEntries(Object.entries(leafTypes(item)).map(([key, type]) => [`${prefix}[]${key}`, type]))),
    );
  }
  if (isRecord(value)) {
    return Object.assign({}, ...Object.entries(value).map(([key, child]) => leafTypes(child, prefix ? `${prefix}__${key}` : key)));
  }
  return { [prefix]: value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value };
}

/** Checks that a sample has exactly the leaves of a real record, with the same types wherever neither is null. */
export function expectSameShape(sample: unknown, real: unknown): void {
  const sampleLeaves = leafTypes(sample);
  const realLeaves = leafTypes(real);
  expect(Object.keys(sampleLeaves).sort()).toEqual(Object.keys(realLeaves).sort());
  for (const [path, type] of Object.entries(realLeaves)) {
    if (type !== 'null' && sampleLeaves[path] !== 'null') expect([path, sampleLeaves[path]]).toEqual([path, type]);
  }
}

/** Checks that output fields name exactly the leaves of a real record. */
export function expectFieldsCover(outputFields: { key: string }[], real: unknown): void {
  expect(outputFields.map((field) => field.key).sort()).toEqual(Object.keys(leafTypes(real)).sort());
}
