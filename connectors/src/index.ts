/** What other software uses to talk to svc: webhook signing and verification. */
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
