import type { AfterResponseMiddleware, BeforeRequestMiddleware, HttpResponse, ZObject } from 'zapier-platform-core';

interface Problem {
  detail?: string;
  code?: string;
}

/** Whether a request follows a signed recording download link, which carries its own `token` (core moves a URL's query into `params`). */
export function isSignedDownloadLink(request: { url?: string; params?: Record<string, unknown> }): boolean {
  try {
    const url = new URL(request.url ?? '');
    return url.pathname.endsWith('/download') && (url.searchParams.has('token') || request.params?.token !== undefined);
  } catch {
    return false;
  }
}

/**
 * Sends the connection's API key (pasted whitespace trimmed) as a Bearer token and asks for JSON; a signed download
 * link gets no key, since svc would then check the key's scopes instead of the link's signature.
 */
export const addBearerKey: BeforeRequestMiddleware = (request, _z, bundle) => {
  request.headers = { ...request.headers, Accept: 'application/json' };
  const key = bundle.authData.api_key?.trim();
  if (key && !isSignedDownloadLink(request)) request.headers.Authorization = `Bearer ${key}`;
  return request;
};

function problemOf(response: Pick<HttpResponse, 'content'>): Problem {
  try {
    const body: unknown = JSON.parse(response.content);
    return typeof body === 'object' && body !== null ? (body as Problem) : {};
  } catch {
    return {};
  }
}

/** Throws the Zapier error for an svc error answer: ExpiredAuthError for a 401, otherwise an error carrying the problem's `detail` and `code`. */
export function raiseProblem(z: ZObject, response: Pick<HttpResponse, 'status' | 'content'>): never {
  const problem = problemOf(response);
  const detail = problem.detail ?? `svc answered HTTP ${response.status} without details`;
  if (response.status === 401) {
    throw new z.errors.ExpiredAuthError(`svc did not accept the API key (it is unknown, expired or revoked): ${detail}`);
  }
  throw new z.errors.Error(detail, problem.code ?? `http_${response.status}`, response.status);
}

/** Turns svc's problem+json answers into Zapier errors that show the problem's `detail`; a 401 asks the user to reconnect (a 429 already became a ThrottledError in core). */
export const raiseProblems: AfterResponseMiddleware = (response, z) => {
  if (response.status >= 400 && !response.skipThrowForStatus) raiseProblem(z, response);
  return response;
};

/** Middleware run before every request. */
export const befores = [addBearerKey];

/** Middleware run after every response. */
export const afters = [raiseProblems];
