import type { IDataObject } from 'n8n-workflow';
import { webinarLocator, webinarSlugOf, type LocatorValue } from './locators';
import { segment, svcApiRequestUnlessNotFound, type SvcContext } from './transport';

/** The triggers' optional webinar filter: only events of one webinar (its registrations and its meeting events). */
export const webinarFilterField = webinarLocator({
  displayName: 'Only Webinar',
  name: 'webinar',
  required: false,
  description: "Only events of this webinar: its registrations and its meeting's events. Leave empty for events of every meeting.",
});

/** Decides which svc events a trigger passes on: chosen types (none chosen: all) of the chosen webinar (none chosen: any). */
export type EventFilter = (event: IDataObject) => Promise<boolean>;

function meetingIdOf(event: IDataObject): string | undefined {
  const data = (event.data ?? {}) as IDataObject;
  const webinar = data.webinar as IDataObject | undefined;
  if (typeof webinar?.meeting_id === 'string') return webinar.meeting_id;
  const meeting = data.meeting as IDataObject | undefined;
  return typeof meeting?.id === 'string' ? meeting.id : undefined;
}

/** Builds the filter of a trigger from its event types and webinar locator; meeting lookups are cached for the filter's life. */
export async function eventFilter(this: SvcContext, types: string[], webinar: LocatorValue): Promise<EventFilter> {
  const slug = await webinarSlugOf.call(this, webinar);
  const slugOfMeeting = new Map<string, string | null>();
  const webinarSlugOfEvent = async (event: IDataObject): Promise<string | null> => {
    const data = (event.data ?? {}) as IDataObject;
    const named = (data.webinar as IDataObject | undefined)?.slug;
    if (typeof named === 'string') return named;
    const meetingId = meetingIdOf(event);
    if (meetingId === undefined) return null;
    if (!slugOfMeeting.has(meetingId)) {
      const meeting = await svcApiRequestUnlessNotFound.call(this, 'GET', `/meetings/${segment(meetingId)}`);
      slugOfMeeting.set(meetingId, meeting?.kind === 'webinar' && typeof meeting.slug === 'string' ? meeting.slug : null);
    }
    return slugOfMeeting.get(meetingId) ?? null;
  };
  return async (event) => {
    if (types.length > 0 && !types.includes(String(event.type))) return false;
    return slug === '' || (await webinarSlugOfEvent(event)) === slug;
  };
}
