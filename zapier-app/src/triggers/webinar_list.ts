import { defineTrigger, type Bundle, type ZObject } from 'zapier-platform-core';
import { apiUrl, type Meeting, type Page } from '../api';

/** Pages of 100 meetings read per dropdown load: the newest 1,000 meetings, in at most 10 requests (the burst limit is 20 a second). */
const MAX_PAGES = 10;

/** Webinars that still take registrations (scheduled or live), newest first, read from the newest meetings page by page. */
export async function listOpenWebinars(z: ZObject, bundle: Bundle): Promise<Meeting[]> {
  const webinars: Meeting[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const response: { data: Page<Meeting> } = await z.request<Page<Meeting>>({
      url: apiUrl(bundle, '/meetings'),
      params: cursor === null ? { limit: '100' } : { limit: '100', cursor },
    });
    const { data, has_more, next_cursor } = response.data;
    webinars.push(...data.filter((m) => m.kind === 'webinar' && (m.status === 'scheduled' || m.status === 'live')));
    if (!has_more || next_cursor === null) break;
    cursor = next_cursor;
  }
  return webinars;
}

/** Hidden trigger behind the webinar dropdowns: value `slug`, label `title`. */
export default defineTrigger({
  key: 'webinar_list',
  noun: 'Webinar',
  display: { label: 'List Webinars', description: 'Lists the webinars that take registrations, for dropdowns.', hidden: true },
  operation: {
    type: 'polling',
    perform: listOpenWebinars,
    sample: {
      id: 'mtg_01kr8n2v5x8a1d4g7j0m3q6t9w',
      code: 'xqv-hmtc-zrd',
      title: 'Spring launch webinar',
      kind: 'webinar',
      slug: 'spring-launch',
      scheduled_at: '2026-05-20T16:00:00+02:00',
      duration_minutes: 90,
      time_zone: 'Europe/Berlin',
      settings: {
        waiting_room: false,
        transcription_auto: true,
        join_before_start_minutes: 10,
        recording_layout: 'active_speaker',
        captions: false,
      },
      status: 'scheduled',
      join_url: 'https://meet.example.com/m/xqv-hmtc-zrd',
      organization_id: 'org_01kr0a3c5e7g9j2m4p6r8t0w1y',
      created_at: '2026-05-02T08:12:45.000Z',
      updated_at: '2026-05-02T08:12:45.000Z',
      started_at: null,
      ended_at: null,
    },
    outputFields: [
      { key: 'id', label: 'Meeting ID', type: 'string' },
      { key: 'slug', label: 'Slug', type: 'string' },
      { key: 'title', label: 'Title', type: 'string' },
      { key: 'status', label: 'Status', type: 'string' },
    ],
  },
});
