import { newWebhookSecret, signDelivery } from '@svc/connectors';
import { deliveryRejection } from '../src/signature';

const NOW_SECONDS = 1_780_000_000;
const NOW_MS = NOW_SECONDS * 1000;
const body = JSON.stringify({
  id: 'evt_01',
  type: 'meeting.ended',
  created_at: '2026-05-28T10:00:00.000Z',
  data: { meeting: { title: 'Café ✓ review 😀' } },
});

/** Headers signed by svc's own signing module, as the service sends them. */
function signed(secrets: string[], timestamp = NOW_SECONDS) {
  const headers = signDelivery({ secrets, eventId: 'evt_01', eventType: 'meeting.ended', deliveryId: 'dlv_01', timestamp, rawBody: body });
  return { rawBody: body, timestamp: headers['X-Svc-Timestamp'], signatures: headers['X-Svc-Signature'] };
}

describe('deliveryRejection: the app’s check of svc’s signature scheme, against svc’s signing module', () => {
  const secret = newWebhookSecret();

  it('accepts a delivery svc signed, including non-ASCII bodies', () => {
    expect(deliveryRejection(signed([secret]), secret, NOW_MS)).toBeNull();
  });

  it('accepts either signature during a secret rotation', () => {
    const previous = newWebhookSecret();
    expect(deliveryRejection(signed([secret, previous]), previous, NOW_MS)).toBeNull();
    expect(deliveryRejection(signed([secret, previous]), secret, NOW_MS)).toBeNull();
  });

  it('refuses another secret, a changed body and a signature without its prefix', () => {
    expect(deliveryRejection(signed([newWebhookSecret()]), secret, NOW_MS)).toBe('bad_signature');
    expect(deliveryRejection({ ...signed([secret]), rawBody: body.replace('Café', 'Cafe') }, secret, NOW_MS)).toBe('bad_signature');
    const { signatures } = signed([secret]);
    expect(deliveryRejection({ ...signed([secret]), signatures: signatures.slice('sha256='.length) }, secret, NOW_MS)).toBe(
      'bad_signature',
    );
  });

  // The edge is the documented 300 s, written out: taken from the implementation's constant, a change of it would go unnoticed.
  it.each([
    [-299, null],
    [-300, 'stale_timestamp'],
    [-600, 'stale_timestamp'],
    [299, null],
    [300, 'stale_timestamp'],
    [600, 'stale_timestamp'],
  ])('with a timestamp %i s from now: %s', (offset, outcome) => {
    expect(deliveryRejection(signed([secret], NOW_SECONDS + offset), secret, NOW_MS)).toBe(outcome);
  });

  it('refuses missing headers and a timestamp that is not whole seconds', () => {
    expect(deliveryRejection({ ...signed([secret]), signatures: undefined }, secret, NOW_MS)).toBe('missing_header');
    expect(deliveryRejection({ ...signed([secret]), timestamp: undefined }, secret, NOW_MS)).toBe('missing_header');
    expect(deliveryRejection({ ...signed([secret]), timestamp: `${NOW_SECONDS}.5` }, secret, NOW_MS)).toBe('invalid_timestamp');
  });

  it('will not check against an empty secret', () => {
    expect(() => deliveryRejection(signed([secret]), '', NOW_MS)).toThrow(/No signing secret/);
  });
});
