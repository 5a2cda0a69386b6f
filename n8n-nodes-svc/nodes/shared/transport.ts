import type {
  IDataObject,
  IExecuteFunctions,
  IHookFunctions,
  IHttpRequestMethods,
  ILoadOptionsFunctions,
  IN8nHttpFullResponse,
  IPollFunctions,
  IWebhookFunctions,
  JsonObject,
} from 'n8n-workflow';
import { NodeApiError, sleep } from 'n8n-workflow';

const SVC_CREDENTIALS = 'svcApi';

const MAX_PAGE_SIZE = 100;

/** How many times one request is sent at most when svc answers 429. */
export const MAX_RATE_LIMITED_ATTEMPTS = 4;

/** The longest `Retry-After` (seconds) the transport waits for; a longer one fails the request at once. */
export const MAX_RETRY_AFTER_SECONDS = 30;

/** The n8n contexts that call the svc API. */
export type SvcContext = IExecuteFunctions | IHookFunctions | ILoadOptionsFunctions | IPollFunctions | IWebhookFunctions;

/** Query and body of one svc request. */
export interface SvcRequest {
  qs?: IDataObject;
  body?: IDataObject;
}

interface SvcCredentials {
  baseUrl: string;
}

function retryAfterSeconds(response: IN8nHttpFullResponse): number | undefined {
  const header = response.headers['retry-after'];
  const value = Number(Array.isArray(header) ? header[0] : header);
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

async function sendOnce(this: SvcContext, method: IHttpRequestMethods, path: string, request: SvcRequest): Promise<IN8nHttpFullResponse> {
  const { baseUrl } = await this.getCredentials<SvcCredentials>(SVC_CREDENTIALS);
  return (await this.helpers.httpRequestWithAuthentication.call(this, SVC_CREDENTIALS, {
    method,
    url: `${baseUrl.replace(/\/+$/, '')}/api/v1/public${path}`,
    qs: request.qs,
    body: request.body,
    json: true,
    returnFullResponse: true,
    ignoreHttpStatusErrors: true,
  })) as IN8nHttpFullResponse;
}

async function send(this: SvcContext, method: IHttpRequestMethods, path: string, request: SvcRequest): Promise<IN8nHttpFullResponse> {
  for (let attempt = 1; ; attempt++) {
    const response = await sendOnce.call(this, method, path, request);
    if (response.statusCode !== 429 || attempt >= MAX_RATE_LIMITED_ATTEMPTS) return response;
    const wait = retryAfterSeconds(response) ?? 1;
    if (wait > MAX_RETRY_AFTER_SECONDS) return response;
    await sleep(wait * 1000);
  }
}

function problemError(this: SvcContext, response: IN8nHttpFullResponse): NodeApiError {
  const problem = (typeof response.body === 'object' && response.body !== null ? response.body : {}) as IDataObject;
  const detail = typeof problem.detail === 'string' ? problem.detail : typeof problem.title === 'string' ? problem.title : 'request failed';
  const code = typeof problem.code === 'string' ? problem.code : 'error';
  return new NodeApiError(this.getNode(), problem as JsonObject, {
    httpCode: String(response.statusCode),
    message: `svc answered ${response.statusCode} ${code}: ${detail}`,
    description: typeof problem.request_id === 'string' ? `Request ID ${problem.request_id}` : undefined,
  });
}

/**
 * Calls `{baseUrl}/api/v1/public{path}` with the svc credentials; a 429 is retried after its `Retry-After` (at most
 * MAX_RATE_LIMITED_ATTEMPTS sends, waits up to MAX_RETRY_AFTER_SECONDS); a non-2xx answer becomes a NodeApiError with svc's problem details.
 */
export async function svcApiRequest(
  this: SvcContext,
  method: IHttpRequestMethods,
  path: string,
  request: SvcRequest = {},
): Promise<IDataObject> {
  const response = await send.call(this, method, path, request);
  if (response.statusCode >= 400) throw problemError.call(this, response);
  return (response.body ?? {}) as IDataObject;
}

/** Like svcApiRequest, but a 404 answer is `undefined` instead of an error. */
export async function svcApiRequestUnlessNotFound(
  this: SvcContext,
  method: IHttpRequestMethods,
  path: string,
  request: SvcRequest = {},
): Promise<IDataObject | undefined> {
  const response = await send.call(this, method, path, request);
  if (response.statusCode === 404) return undefined;
  if (response.statusCode >= 400) throw problemError.call(this, response);
  return (response.body ?? {}) as IDataObject;
}

/** Follows `next_cursor` through a paginated svc list and returns its items, at most `max` of them when given. */
export async function svcApiRequestAllItems(this: SvcContext, path: string, qs: IDataObject = {}, max?: number): Promise<IDataObject[]> {
  const items: IDataObject[] = [];
  let cursor: string | null = null;
  do {
    const limit = max === undefined ? MAX_PAGE_SIZE : Math.min(MAX_PAGE_SIZE, max - items.length);
    const page: IDataObject = await svcApiRequest.call(this, 'GET', path, { qs: { ...qs, limit, ...(cursor === null ? {} : { cursor }) } });
    items.push(...(page.data as IDataObject[]));
    cursor = (page.next_cursor as string | null | undefined) ?? null;
  } while (cursor !== null && (max === undefined || items.length < max));
  return items;
}

/** A value escaped for use as one path segment. */
export function segment(value: string): string {
  return encodeURIComponent(value.trim());
}
