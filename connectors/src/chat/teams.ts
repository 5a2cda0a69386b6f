import type { WebhookEvent } from '../webhooks/signature';
import { summarizeEvent, type EventLinks } from './event-summary';

/** The message a Teams Workflows webhook accepts: one Adaptive Card 1.4 attachment. */
export interface TeamsMessage {
  type: 'message';
  attachments: {
    contentType: 'application/vnd.microsoft.card.adaptive';
    contentUrl: null;
    content: Record<string, unknown>;
  }[];
}

/** The Adaptive Card message for an svc event. */
export function teamsMessageFor(event: WebhookEvent, links: EventLinks): TeamsMessage {
  const summary = summarizeEvent(event, links);
  const body: Record<string, unknown>[] = [{ type: 'TextBlock', text: summary.headline, weight: 'Bolder', size: 'Medium', wrap: true }];
  if (summary.body) body.push({ type: 'TextBlock', text: summary.body, wrap: true });
  if (summary.facts.length > 0) body.push({ type: 'FactSet', facts: summary.facts });
  const content: Record<string, unknown> = {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: '1.4',
    body,
  };
  if (summary.button) content.actions = [{ type: 'Action.OpenUrl', title: summary.button.label, url: summary.button.url }];
  return { type: 'message', attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content }] };
}
