import type { IDataObject, INodeExecutionData, INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import { eventFilter, webinarFilterField } from '../shared/event-filter';
import { searchWebinars, type LocatorValue } from '../shared/locators';
import { svcApiRequest } from '../shared/transport';
import { EVENT_OPTIONS } from '../SvcTrigger/events';

/** The feed's page size, its maximum. */
export const FEED_PAGE_SIZE = 100;

/** The most feed pages one poll reads; the rest waits for the next poll. */
export const MAX_PAGES_PER_POLL = 10;

/** A cursor before every event id (ids are `evt_` and 26 of 0-9a-z, sorting in creation order). */
export const CURSOR_BEFORE_ALL_EVENTS = `evt_${'0'.repeat(26)}`;

interface FeedState {
  cursor?: string;
}

interface FeedPage {
  data: IDataObject[];
  next_cursor: string | null;
}

async function feedPage(this: IPollFunctions, since?: string, limit = FEED_PAGE_SIZE): Promise<FeedPage> {
  const page = await svcApiRequest.call(this, 'GET', '/events', { qs: { limit, ...(since ? { since } : {}) } });
  return { data: (page.data ?? []) as IDataObject[], next_cursor: (page.next_cursor as string | null | undefined) ?? null };
}

/** Starts a workflow on svc events by polling the event feed (`GET /events?since=`), for n8n instances svc's webhooks cannot reach. */
export class SvcFeedTrigger implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Svc Feed Trigger',
    name: 'svcFeedTrigger',
    icon: { light: 'file:../../icons/svc.svg', dark: 'file:../../icons/svc.dark.svg' },
    group: ['trigger'],
    version: 1,
    subtitle: '={{$parameter["events"].length ? $parameter["events"].join(", ") : "all events"}}',
    description: "Starts the workflow on new svc events, polling svc's event feed (no public webhook URL needed)",
    defaults: { name: 'Svc Feed Trigger' },
    polling: true,
    inputs: [],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: 'svcApi', required: true }],
    properties: [
      {
        displayName: 'Events',
        name: 'events',
        type: 'multiOptions',
        default: [],
        options: EVENT_OPTIONS,
        description: 'The events that start the workflow; none chosen means every event the key can read',
      },
      webinarFilterField,
      {
        displayName: 'Start From',
        name: 'startFrom',
        type: 'options',
        default: 'now',
        options: [
          { name: 'Now', value: 'now', description: 'Only events after the workflow is first published' },
          {
            name: 'Oldest Stored Event',
            value: 'beginning',
            description: 'Every stored event on the first poll (up to 1,000 per poll), then new ones',
          },
        ],
        description: 'Where the first poll of a newly published workflow starts; later polls continue where the last one stopped',
      },
    ],
  };

  methods = { listSearch: { searchWebinars } };

  async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
    const types = this.getNodeParameter('events', []) as string[];
    const matches = await eventFilter.call(this, types, this.getNodeParameter('webinar', undefined) as LocatorValue);

    if (this.getMode() === 'manual') {
      const newest = await feedPage.call(this);
      for (const event of newest.data) if (await matches(event)) return [this.helpers.returnJsonArray([event])];
      throw new NodeOperationError(this.getNode(), `None of the newest ${newest.data.length} svc events matches the trigger's filters`, {
        description: 'Make something happen in svc that the trigger listens for (or widen the filters), then fetch a test event again.',
      });
    }

    const state = this.getWorkflowStaticData('node') as FeedState;
    if (state.cursor === undefined) {
      const startFrom = this.getNodeParameter('startFrom', 'now') as string;
      // Without `since` the feed's next_cursor is the newest event id (null while svc has no events at all).
      state.cursor =
        startFrom === 'now'
          ? ((await feedPage.call(this, undefined, 1)).next_cursor ?? CURSOR_BEFORE_ALL_EVENTS)
          : CURSOR_BEFORE_ALL_EVENTS;
      if (startFrom === 'now') return null;
    }

    const matched: IDataObject[] = [];
    let cursor = state.cursor;
    for (let pages = 0; pages < MAX_PAGES_PER_POLL; pages++) {
      const page = await feedPage.call(this, cursor);
      for (const event of page.data) if (await matches(event)) matched.push(event);
      cursor = page.next_cursor ?? cursor;
      if (page.data.length < FEED_PAGE_SIZE) break;
    }
    state.cursor = cursor;
    return matched.length > 0 ? [this.helpers.returnJsonArray(matched)] : null;
  }
}
