/** What other software uses to talk to svc: webhook signing and verification, Slack and Teams notifications. */
export {
  SIGNATURE_TOLERANCE_SECONDS,
  newWebhookSecret,
  svcSignature,
  standardSignature,
  signDelivery,
  verifyWebhook,
  WebhookVerificationError,
  type DeliveryHeaders,
  type WebhookEvent,
  type WebhookVerificationFailure,
} from './webhooks/signature';
export { summarizeEvent, type EventLinks, type EventSummary } from './chat/event-summary';
export { postSlackMessage, slackMessageFor, type ChatLogger, type SlackMessage, type SlackPostResult } from './chat/slack';
export { teamsMessageFor, type TeamsMessage } from './chat/teams';
