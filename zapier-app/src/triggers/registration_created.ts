import type { Bundle } from 'zapier-platform-core';
import type { SvcEvent } from '../api';
import { eventTrigger } from '../event-trigger';
import { eventFields, eventMeetingFields, registrationEventFields } from '../output-fields';

function chosenSlug(bundle: Bundle): string | undefined {
  const slug = bundle.inputData.slug;
  return typeof slug === 'string' && slug.trim() !== '' ? slug.trim() : undefined;
}

function webinarSlugOf(event: SvcEvent): unknown {
  return (event.data.webinar as { slug?: unknown } | undefined)?.slug;
}

/** Fires when someone registers for one of your webinars, or for the one webinar chosen. */
export default eventTrigger({
  key: 'registration_created',
  type: 'registration.created',
  noun: 'Registration',
  label: 'New Webinar Registration',
  description: 'Triggers when someone registers for one of your webinars.',
  inputFields: [
    {
      key: 'slug',
      label: 'Webinar',
      type: 'string',
      required: false,
      dynamic: 'webinar_list.slug.title',
      helpText: 'Only registrations for this webinar. Leave empty to trigger on registrations for any of your webinars.',
    },
  ],
  feedParams(bundle): Record<string, string> {
    const slug = chosenSlug(bundle);
    return slug === undefined ? {} : { slug };
  },
  matches(event, bundle) {
    const slug = chosenSlug(bundle);
    return slug === undefined || webinarSlugOf(event) === slug;
  },
  sample: {
    id: 'evt_01krc4m8p1r3t5v7x9z2b4d6f8',
    type: 'registration.created',
    created_at: '2026-05-10T14:02:11.000Z',
    data: {
      registration: {
        id: 'reg_01krc4m8p1r3t5v7x9z2b4d6f7',
        email: 'ada@example.com',
        name: 'Ada Lovelace',
        join_url:
          'https://meet.example.com/m/xqv-hmtc-zrd?invite=eyJtIjoibXRnXzAxa3JjNG04cDFyM3Q1djd4OXoyYjRkNmYwIiwiciI6InJlZ2lzdHJhbnQifQ.Qm9vZ3VzU2FtcGxlU2lnbmF0dXJl',
        created_at: '2026-05-10T14:02:11.000Z',
      },
      webinar: { slug: 'spring-launch', title: 'Spring launch webinar', meeting_id: 'mtg_01kr8n2v5x8a1d4g7j0m3q6t9w' },
      meeting: {
        id: 'mtg_01kr8n2v5x8a1d4g7j0m3q6t9w',
        code: 'xqv-hmtc-zrd',
        title: 'Spring launch webinar',
        status: 'scheduled',
        started_at: null,
        ended_at: null,
      },
    },
  },
  outputFields: [...eventFields, ...registrationEventFields, ...eventMeetingFields],
});
