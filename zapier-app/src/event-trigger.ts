import { defineTrigger, type Bundle, type PlainInputField, type PlainOutputField, type ZObject } from 'zapier-platform-core';
import { apiUrl, type EventType, type Subscription, type SvcEvent } from './api';
import { raiseProblem } from './middleware';
import { deliveryRejection } from './signature';

const MAX_FEED_LIMIT = 100;

/** What sets one event trigger apart: its event type, wording, sample and fields, and an optional filter on its input. */
export interface EventTriggerSpec<Key extends string> {
  key: Key;
  type: EventType;
  noun: string;
  label: string;
  description: string;
  sample: SvcEvent;
  outputFields: PlainOutputField[];
  inputFields?: PlainInputField[];
  /** Extra query parameters of the polling feed, from the trigger's input. */
  feedParams?: (bundle: Bundle) => Record<string, string>;
  /** Whether a delivered event passes the trigger's input; every event does when absent. */
  matches?: (event: SvcEvent, bundle: Bundle) => boolean;
  /** What the trigger hands the Zap for an event: the envelope with more in `data` (a file, the full text); the envelope itself when absent. */
  enrich?: (z: ZObject, bundle: Bundle, event: SvcEvent) => Promise<SvcEvent> | SvcEvent;
  /** At most this many events in the editor's samples, for a trigger whose `enrich` makes one API call per event (the key's rate limit is 20/s). */
  maxListed?: number;
}

/** The feed's `limit` for Zapier's requested item count: 1..100, 100 when Zapier sets no limit. */
function feedLimit(bundle: Bundle): number {
  const requested = bundle.meta?.limit;
  return typeof requested === 'number' && requested > 0 ? Math.min(requested, MAX_FEED_LIMIT) : MAX_FEED_LIMIT;
}

/** The delivery's headers by lower-case name as svc sent them; Zapier hands them to `perform` as `Http-X-Svc-Signature`. */
function deliveredHeaders(bundle: Bundle): Map<string, string> {
  const headers = bundle.rawRequest?.headers ?? {};
  return new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase().replace(/^http-/, ''), value]));
}

/** The event of a webhook delivery, once its signature (made with the secret kept at subscription) and timestamp check out. */
function verifiedDelivery(z: ZObject, bundle: Bundle): SvcEvent {
  const secret = (bundle.subscribeData as Partial<Subscription> | undefined)?.secret ?? '';
  const headers = deliveredHeaders(bundle);
  const rawBody = bundle.rawRequest?.content ?? '';
  const rejection = deliveryRejection(
    { rawBody, timestamp: headers.get('x-svc-timestamp'), signatures: headers.get('x-svc-signature') },
    secret,
    Date.now(),
  );
  if (rejection !== null) throw new z.errors.HaltedError(`Ignored a request that is not a genuine svc delivery (${rejection}).`);
  return JSON.parse(rawBody) as SvcEvent;
}

/** A REST-hook trigger for one event type: subscribes a webhook endpoint, verifies each delivery, and reads the polling feed for samples. */
export function eventTrigger<Key extends string>(spec: EventTriggerSpec<Key>) {
  const matches = spec.matches ?? (() => true);
  const enrich = spec.enrich ?? ((_z: ZObject, _bundle: Bundle, event: SvcEvent) => event);
  return defineTrigger({
    key: spec.key,
    noun: spec.noun,
    display: { label: spec.label, description: spec.description },
    operation: {
      type: 'hook',
      inputFields: spec.inputFields ?? [],
      async performSubscribe(z: ZObject, bundle: Bundle): Promise<Subscription> {
        const response = await z.request<Subscription>({
          url: apiUrl(bundle, '/webhook-endpoints'),
          method: 'POST',
          body: { url: bundle.targetUrl, events: [spec.type], description: `Zapier: ${spec.label}` },
        });
        return { id: response.data.id, secret: response.data.secret };
      },
      async performUnsubscribe(z: ZObject, bundle: Bundle): Promise<{ id: string }> {
        const { id } = bundle.subscribeData as Subscription;
        const response = await z.request({
          url: apiUrl(bundle, `/webhook-endpoints/${encodeURIComponent(id)}`),
          method: 'DELETE',
          skipThrowForStatus: true,
        });
        // An endpoint someone already deleted must not keep the Zap from turning off.
        if (response.status >= 400 && response.status !== 404) raiseProblem(z, response);
        return { id };
      },
      async perform(z: ZObject, bundle: Bundle): Promise<SvcEvent[]> {
        const event = verifiedDelivery(z, bundle);
        return matches(event, bundle) ? [await enrich(z, bundle, event)] : [];
      },
      async performList(z: ZObject, bundle: Bundle): Promise<SvcEvent[]> {
        const response = await z.request<{ data: SvcEvent[] }>({
          url: apiUrl(bundle, `/triggers/${spec.type}`),
          params: { limit: String(Math.min(feedLimit(bundle), spec.maxListed ?? MAX_FEED_LIMIT)), ...spec.feedParams?.(bundle) },
        });
        const events: SvcEvent[] = [];
        for (const event of response.data.data) events.push(await enrich(z, bundle, event));
        return events;
      },
      sample: spec.sample,
      outputFields: spec.outputFields,
    },
  });
}
