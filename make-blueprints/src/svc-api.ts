import { anything, arrayOf, collection, number, text, type Field } from './fields';

const PUBLIC_API = 'YOUR_SVC_BASE_URL/api/v1/public';

const texts = (...names: string[]): Field[] => names.map(text);

const meetingRef = collection('meeting', texts('id', 'code', 'title', 'status', 'started_at', 'ended_at'));

/** The event envelope {id, type, created_at, data} of webhooks and the feed, with every `data` member svc sends. */
export const SVC_EVENT_FIELDS: Field[] = [
  ...texts('id', 'type', 'created_at'),
  collection('data', [
    meetingRef,
    anything('recording'),
    // breakout_room_id: null for the meeting's transcript, the room's id for a breakout room's own transcript.
    collection('transcript', [
      text('breakout_room_id'),
      text('language'),
      number('segment_count'),
      arrayOf('speakers', texts('name', 'participant_id')),
    ]),
    collection('summary', [text('tldr')]),
    collection('registration', texts('id', 'email', 'name', 'join_url', 'created_at')),
    collection('webinar', texts('slug', 'title', 'meeting_id')),
  ]),
];

const problem: Field[] = [
  ...texts('type', 'title', 'detail', 'code', 'request_id', 'param', 'required_scope'),
  number('status'),
  arrayOf('errors', texts('param', 'message')),
];

const meeting: Field[] = [
  ...texts(
    'id',
    'code',
    'title',
    'kind',
    'slug',
    'scheduled_at',
    'time_zone',
    'status',
    'join_url',
    'created_at',
    'updated_at',
    'started_at',
    'ended_at',
  ),
  number('duration_minutes'),
  collection('settings', [
    { name: 'waiting_room', type: 'boolean' },
    { name: 'transcription_auto', type: 'boolean' },
    number('join_before_start_minutes'),
    text('recording_layout'),
    { name: 'captions', type: 'boolean' },
  ]),
];

const registration: Field[] = [
  ...texts('id', 'email', 'name', 'join_url', 'created_at'),
  collection('webinar', texts('slug', 'title', 'meeting_id')),
];

const feed: Field[] = [arrayOf('data', SVC_EVENT_FIELDS), text('next_cursor')];

const ENDPOINTS: { method: string; path: RegExp; fields: Field[] }[] = [
  { method: 'post', path: /^\/meetings$/, fields: meeting },
  { method: 'get', path: /^\/meetings\/\{\}$/, fields: meeting },
  { method: 'post', path: /^\/webinars\/\{\}\/registrations$/, fields: registration },
  { method: 'get', path: /^\/events$/, fields: feed },
  { method: 'get', path: /^\/triggers\/[a-z]+\.[a-z]+$/, fields: feed },
];

/** True when `url` is a call to svc's public API. */
export function isSvcUrl(url: string): boolean {
  return url.startsWith(`${PUBLIC_API}/`);
}

/**
 * What a parsed svc answer holds for `method url` (success and problem+json fields together, since a module that does not
 * treat 4xx as errors passes either on), or undefined for an endpoint this table does not know.
 */
export function svcResponseFields(method: string, url: string): Field[] | undefined {
  const path = url
    .slice(PUBLIC_API.length)
    .split('?')[0]!
    .replace(/\{\{.*?\}\}/g, '{}');
  const endpoint = ENDPOINTS.find((candidate) => candidate.method === method && candidate.path.test(path));
  return endpoint && [...endpoint.fields, ...problem.filter((field) => !endpoint.fields.some((own) => own.name === field.name))];
}
