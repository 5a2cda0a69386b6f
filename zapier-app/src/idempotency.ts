import { createHash } from 'node:crypto';
import type { Bundle } from 'zapier-platform-core';

/**
 * The Idempotency-Key header of a create, or none: the key hashes the Zap (`bundle.meta.zap.id`, when Zapier sends it),
 * the action and `parts`, which must name one intended creation (the triggering record's id, or inputs that pin it down),
 * so a replay of the same Zap run sends the same key and svc answers with what the first attempt created.
 */
export function idempotencyHeader(bundle: Bundle, action: string, parts: unknown[] | null): Record<string, string> {
  if (parts === null) return {};
  const zap = bundle.meta?.zap?.id ?? '';
  const digest = createHash('sha256')
    .update(JSON.stringify([zap, action, ...parts]))
    .digest('base64url');
  return { 'Idempotency-Key': `zapier-${action}-${digest}` };
}

/** The optional input naming the triggering record, which makes a create safe to replay. */
export const dedupeField = {
  key: 'dedupe_id',
  label: 'Deduplication ID',
  type: 'string' as const,
  required: false,
  helpText:
    'Map the ID of the record that started this Zap (e.g. the form entry or calendar event ID). Replays of the same Zap run then return what the first run created (for 24 hours) instead of creating again.',
};
