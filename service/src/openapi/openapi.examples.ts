const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Tomorrow at 09:00 UTC as seen at `nowMs`: 9 to 33 hours ahead, so an example built now stays in the future for a day. */
export function tomorrowAtNine(nowMs: number): string {
  return new Date(Math.floor(nowMs / DAY_MS) * DAY_MS + DAY_MS + 9 * HOUR_MS).toISOString().replace('.000Z', 'Z');
}

/**
 * A valid, minimal request body for every operation that takes one, keyed `METHOD /path`: the API console prefills
 * its editor with these, so a first click on Execute succeeds. Dates are relative to `nowMs`.
 */
export function requestExamples(nowMs: number): Record<string, unknown> {
  return {
    'POST /meetings': { title: 'Weekly sync', scheduled_at: tomorrowAtNine(nowMs), duration_minutes: 30 },
    'PATCH /meetings/{id}': { title: 'Weekly sync (moved)', scheduled_at: tomorrowAtNine(nowMs + DAY_MS) },
    'POST /meetings/{id}/reopen': {},
    'POST /meetings/{id}/host-links': { ttl_seconds: 3600 },
    'PUT /meetings/{id}/embed-origins': { origins: ['https://www.example.com'] },
    'POST /embed/tokens': { meeting: 'abc-defg-hij', name: 'Ada Lovelace' },
    'POST /webinars/{slug}/registrations': { email: 'ada@example.com', name: 'Ada Lovelace' },
    'POST /webhook-endpoints': { url: 'https://hooks.example.com/svc', events: ['meeting.ended'] },
    'PATCH /webhook-endpoints/{id}': { events: ['meeting.started', 'meeting.ended'] },
    'POST /integrations': {
      kind: 'teams',
      events: ['meeting.ended'],
      webhook_url: 'https://prod-00.westeurope.logic.azure.com/workflows/0123/triggers/manual/paths/invoke?sig=replace-me',
    },
    'PATCH /integrations/{id}': { events: ['meeting.started', 'meeting.ended'] },
  };
}

/** Examples of the required query parameters that have no default, keyed `METHOD /path`, then by parameter name. */
export const PARAMETER_EXAMPLES: Record<string, Record<string, string>> = {
  'GET /search': { q: 'budget' },
};

/**
 * `paths` with each JSON request body's `example` set from `requestExamples`, and each query parameter's from
 * PARAMETER_EXAMPLES (the paths object is copied, not changed).
 */
export function withRequestExamples(paths: Record<string, unknown>, nowMs: number): Record<string, unknown> {
  const examples = requestExamples(nowMs);
  const withExamples = (path: string, method: string, operation: Operation): Operation => {
    const key = `${method.toUpperCase()} ${path}`;
    const media = operation.requestBody?.content?.['application/json'];
    const example = examples[key];
    const parameters = operation.parameters?.map((p) => {
      const value = p.in === 'query' && p.name ? PARAMETER_EXAMPLES[key]?.[p.name] : undefined;
      return value === undefined ? p : { ...p, example: value };
    });
    return {
      ...operation,
      ...(parameters ? { parameters } : {}),
      ...(example !== undefined && media
        ? {
            requestBody: {
              ...operation.requestBody,
              content: { ...operation.requestBody!.content, 'application/json': { ...media, example } },
            },
          }
        : {}),
    };
  };
  return Object.fromEntries(
    Object.entries(paths).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item as Record<string, unknown>).map(([method, operation]) => [
          method,
          typeof operation === 'object' && operation !== null && !Array.isArray(operation)
            ? withExamples(path, method, operation as Operation)
            : operation,
        ]),
      ),
    ]),
  );
}

interface Operation {
  parameters?: { name?: string; in?: string }[];
  requestBody?: { content?: Record<string, object> };
}
