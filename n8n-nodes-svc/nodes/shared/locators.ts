import type { IDataObject, ILoadOptionsFunctions, INodeListSearchItems, INodeListSearchResult, INodeProperties } from 'n8n-workflow';
import { segment, svcApiRequest, type SvcContext } from './transport';

const CODE = '[a-z]{3}-[a-z]{4}-[a-z]{3}';
const JOIN_URL = `^https?://[^\\s]+/m/(${CODE})(?:[/?#].*)?$`;
const SEARCH_PAGE_SIZE = 100;

/** A meeting picked from a list, or named by its ID (mtg_...), join code, or join URL; each resolves to an ID or code usable in svc paths. */
export function meetingLocator(overrides: Partial<INodeProperties> = {}): INodeProperties {
  return {
    displayName: 'Meeting',
    name: 'meetingId',
    type: 'resourceLocator',
    required: true,
    default: { mode: 'list', value: '' },
    description: 'The meeting: pick it from the list, or give its ID, join code or join URL',
    modes: [
      {
        displayName: 'From List',
        name: 'list',
        type: 'list',
        placeholder: 'Select a meeting...',
        typeOptions: { searchListMethod: 'searchMeetings', searchable: true },
      },
      {
        displayName: 'By ID',
        name: 'id',
        type: 'string',
        placeholder: 'mtg_01jd4x9q2v7c3m8k5t6r0w1y2z',
        validation: [{ type: 'regex', properties: { regex: '^mtg_[0-9a-zA-Z]+$', errorMessage: 'Not a meeting ID (mtg_...)' } }],
      },
      {
        displayName: 'By Code',
        name: 'code',
        type: 'string',
        placeholder: 'abc-defg-hij',
        validation: [{ type: 'regex', properties: { regex: `^${CODE}$`, errorMessage: 'Not a join code (abc-defg-hij)' } }],
      },
      {
        displayName: 'By URL',
        name: 'url',
        type: 'string',
        placeholder: 'https://meet.example.com/m/abc-defg-hij',
        validation: [{ type: 'regex', properties: { regex: JOIN_URL, errorMessage: 'Not a join URL (https://.../m/abc-defg-hij)' } }],
        extractValue: { type: 'regex', regex: JOIN_URL },
      },
    ],
    ...overrides,
  };
}

/** A webinar picked from a list, or named by its slug or join URL. */
export function webinarLocator(overrides: Partial<INodeProperties> = {}): INodeProperties {
  return {
    displayName: 'Webinar',
    name: 'webinarSlug',
    type: 'resourceLocator',
    required: true,
    default: { mode: 'list', value: '' },
    description: 'The webinar: pick it from the list, or give its slug or join URL',
    modes: [
      {
        displayName: 'From List',
        name: 'list',
        type: 'list',
        placeholder: 'Select a webinar...',
        typeOptions: { searchListMethod: 'searchWebinars', searchable: true },
      },
      {
        displayName: 'By Slug',
        name: 'slug',
        type: 'string',
        placeholder: 'product-launch',
        validation: [
          { type: 'regex', properties: { regex: '^[a-z0-9-]{3,64}$', errorMessage: 'Not a webinar slug (3 to 64 of a-z, 0-9, -)' } },
        ],
      },
      {
        displayName: 'By URL',
        name: 'url',
        type: 'string',
        placeholder: 'https://meet.example.com/m/abc-defg-hij',
        validation: [{ type: 'regex', properties: { regex: JOIN_URL, errorMessage: 'Not a join URL (https://.../m/abc-defg-hij)' } }],
        extractValue: { type: 'regex', regex: JOIN_URL },
      },
    ],
    ...overrides,
  };
}

/** A resource locator's stored value: the locator object, or a plain string from workflows made before the locators. */
export type LocatorValue = string | { mode?: string; value?: unknown } | undefined;

/** The webinar slug a webinar locator names; a join URL is resolved through `GET /meetings/{code}`. Empty when nothing is chosen. */
export async function webinarSlugOf(this: SvcContext, locator: LocatorValue): Promise<string> {
  if (locator === undefined || typeof locator === 'string') return (locator ?? '').trim();
  const value = String(locator.value ?? '').trim();
  if (locator.mode !== 'url' || value === '') return value;
  const code = new RegExp(JOIN_URL).exec(value)?.[1] ?? value;
  const meeting = await svcApiRequest.call(this, 'GET', `/meetings/${segment(code)}`);
  return typeof meeting.slug === 'string' ? meeting.slug : '';
}

async function searchPage(
  this: ILoadOptionsFunctions,
  filter: string | undefined,
  paginationToken: string | undefined,
  toItem: (meeting: IDataObject) => INodeListSearchItems | undefined,
): Promise<INodeListSearchResult> {
  const qs: IDataObject = { limit: SEARCH_PAGE_SIZE, ...(paginationToken ? { cursor: paginationToken } : {}) };
  const page = await svcApiRequest.call(this, 'GET', '/meetings', { qs });
  const needle = (filter ?? '').trim().toLowerCase();
  const results = (page.data as IDataObject[])
    .filter((m) => needle === '' || [m.title, m.code, m.slug, m.id].some((v) => typeof v === 'string' && v.toLowerCase().includes(needle)))
    .map(toItem)
    .filter((item): item is INodeListSearchItems => item !== undefined);
  const next = page.next_cursor;
  return { results, paginationToken: typeof next === 'string' ? next : undefined };
}

/** The list search of the meeting locator: svc's meetings newest first, filtered by title, code or ID. */
export async function searchMeetings(
  this: ILoadOptionsFunctions,
  filter?: string,
  paginationToken?: string,
): Promise<INodeListSearchResult> {
  return await searchPage.call(this, filter, paginationToken, (m) => ({
    name: `${String(m.title)} (${String(m.code)})`,
    value: String(m.id),
    url: typeof m.join_url === 'string' ? m.join_url : undefined,
  }));
}

/** The list search of the webinar locator: svc's webinars newest first, filtered by title, code or slug. */
export async function searchWebinars(
  this: ILoadOptionsFunctions,
  filter?: string,
  paginationToken?: string,
): Promise<INodeListSearchResult> {
  return await searchPage.call(this, filter, paginationToken, (m) =>
    m.kind === 'webinar' && typeof m.slug === 'string'
      ? { name: `${String(m.title)} (${m.slug})`, value: m.slug, url: typeof m.join_url === 'string' ? m.join_url : undefined }
      : undefined,
  );
}
