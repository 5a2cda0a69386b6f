import type { IDataObject, IHookFunctions, INodeType, INodeTypeDescription, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { eventFilter, webinarFilterField } from '../shared/event-filter';
import { searchWebinars, type LocatorValue } from '../shared/locators';
import { segment, svcApiRequest, svcApiRequestUnlessNotFound } from '../shared/transport';
import { EVENT_OPTIONS } from './events';
import { checkSvcSignature } from './signature';

interface EndpointState {
  endpointId?: string;
  endpointSecret?: string;
}

function sameEvents(subscribed: unknown, wanted: string[]): boolean {
  return Array.isArray(subscribed) && subscribed.length === wanted.length && wanted.every((event) => subscribed.includes(event));
}

async function deleteEndpoint(this: IHookFunctions, endpointId: string): Promise<void> {
  await svcApiRequestUnlessNotFound.call(this, 'DELETE', `/webhook-endpoints/${segment(endpointId)}`);
}

function parseEvent(rawBody: Buffer): IDataObject | undefined {
  try {
    const event: unknown = JSON.parse(rawBody.toString('utf8'));
    const isEvent = typeof event === 'object' && event !== null && !Array.isArray(event) && typeof (event as IDataObject).type === 'string';
    return isEvent ? (event as IDataObject) : undefined;
  } catch {
    return undefined;
  }
}

function reject(this: IWebhookFunctions, status: 400 | 401, error: string): IWebhookResponseData {
  this.getResponseObject().status(status).json({ error });
  return { noWebhookResponse: true };
}

/** Starts a workflow on svc events: subscribes a webhook endpoint on activation, removes it on deactivation, and accepts only correctly signed deliveries. */
export class SvcTrigger implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Svc Trigger',
    name: 'svcTrigger',
    icon: { light: 'file:../../icons/svc.svg', dark: 'file:../../icons/svc.dark.svg' },
    group: ['trigger'],
    version: 1,
    subtitle: '={{$parameter["events"].join(", ")}}',
    description: 'Starts the workflow when svc delivers a signed webhook for one of the chosen events',
    defaults: { name: 'Svc Trigger' },
    inputs: [],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: 'svcApi', required: true }],
    webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', responseData: 'noData', path: 'webhook' }],
    properties: [
      {
        displayName: 'Events',
        name: 'events',
        type: 'multiOptions',
        required: true,
        default: [],
        options: EVENT_OPTIONS,
        description: 'The events that start the workflow',
      },
      webinarFilterField,
    ],
  };

  methods = { listSearch: { searchWebinars } };

  webhookMethods = {
    default: {
      async checkExists(this: IHookFunctions): Promise<boolean> {
        const state = this.getWorkflowStaticData('node') as EndpointState;
        if (state.endpointId === undefined || state.endpointSecret === undefined) return false;
        const endpoint = await svcApiRequestUnlessNotFound.call(this, 'GET', `/webhook-endpoints/${segment(state.endpointId)}`);
        const events = this.getNodeParameter('events') as string[];
        return (
          endpoint !== undefined &&
          endpoint.url === this.getNodeWebhookUrl('default') &&
          endpoint.enabled === true &&
          sameEvents(endpoint.events, events)
        );
      },

      async create(this: IHookFunctions): Promise<boolean> {
        const state = this.getWorkflowStaticData('node') as EndpointState;
        if (state.endpointId !== undefined) await deleteEndpoint.call(this, state.endpointId);
        const endpoint = await svcApiRequest.call(this, 'POST', '/webhook-endpoints', {
          body: {
            url: this.getNodeWebhookUrl('default'),
            events: this.getNodeParameter('events') as string[],
            description: `n8n workflow "${this.getWorkflow().name ?? this.getWorkflow().id}"`,
          },
        });
        state.endpointId = endpoint.id as string;
        state.endpointSecret = endpoint.secret as string;
        return true;
      },

      async delete(this: IHookFunctions): Promise<boolean> {
        const state = this.getWorkflowStaticData('node') as EndpointState;
        if (state.endpointId !== undefined) {
          try {
            await deleteEndpoint.call(this, state.endpointId);
          } catch (error) {
            this.logger.warn(`Could not remove svc webhook endpoint ${state.endpointId}: ${(error as Error).message}`);
            return false;
          }
        }
        delete state.endpointId;
        delete state.endpointSecret;
        return true;
      },
    },
  };

  async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
    const req = this.getRequestObject();
    const { endpointSecret } = this.getWorkflowStaticData('node') as EndpointState;
    const check =
      endpointSecret === undefined
        ? 'unknown_endpoint'
        : checkSvcSignature(endpointSecret, {
            rawBody: req.rawBody,
            timestamp: req.header('x-svc-timestamp'),
            signatures: req.header('x-svc-signature'),
          });
    if (check !== 'valid') return reject.call(this, 401, check);
    const event = parseEvent(req.rawBody);
    if (event === undefined) return reject.call(this, 400, 'invalid_body');
    const matches = await eventFilter.call(this, [], this.getNodeParameter('webinar', undefined) as LocatorValue);
    if (!(await matches(event))) {
      // Acknowledged, so svc does not retry an event this workflow chose not to run on.
      this.getResponseObject().status(200).json({ received: true, ignored: 'webinar_filter' });
      return { noWebhookResponse: true };
    }
    return { workflowData: [this.helpers.returnJsonArray(event)] };
  }
}
