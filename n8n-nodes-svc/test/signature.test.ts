import { signDelivery, svcSignature } from '@svc/connectors';
import { checkSvcSignature } from '../nodes/SvcTrigger/signature';

const secret = 'whsec_dGVzdC1zZWNyZXQtdGVzdC1zZWNyZXQtdGVzdC1zZWNyZXQ=';
const previous = 'whsec_cHJldmlvdXMtc2VjcmV0LXByZXZpb3VzLXNlY3JldC0xMjM=';
const now = 1_800_000_000;
const rawBody = Buffer.from('{"id":"evt_1","type":"meeting.ended","created_at":"2027-01-15T08:00:00Z","data":{}}');

/** The svc headers the service's own signing module puts on a delivery signed with `secrets` at `timestamp`. */
function signedBy(secrets: string[], timestamp = now) {
  const headers = signDelivery({ secrets, eventId: 'evt_1', eventType: 'meeting.ended', deliveryId: 'dlv_1', timestamp, rawBody });
  return { rawBody, timestamp: headers['X-Svc-Timestamp'], signatures: headers['X-Svc-Signature'] };
}

describe('checkSvcSignature, against deliveries signed by the one signing module (connectors)', () => {
  it('accepts a delivery signed with the secret', () => {
    expect(checkSvcSignature(secret, signedBy([secret]), now * 1000)).toBe('valid');
  });

  it('accepts either signature during a rotation, whichever secret it holds', () => {
    expect(checkSvcSignature(secret, signedBy([secret, previous]), now * 1000)).toBe('valid');
    expect(checkSvcSignature(previous, signedBy([secret, previous]), now * 1000)).toBe('valid');
  });

  it('rejects another secret, another body, and a signature cut short', () => {
    expect(checkSvcSignature(previous, signedBy([secret]), now * 1000)).toBe('bad_signature');
    expect(checkSvcSignature(secret, { ...signedBy([secret]), rawBody: Buffer.from(`${rawBody.toString()} `) }, now * 1000)).toBe(
      'bad_signature',
    );
    expect(
      checkSvcSignature(secret, { ...signedBy([secret]), signatures: svcSignature(secret, now, rawBody).slice(0, -1) }, now * 1000),
    ).toBe('bad_signature');
  });

  it('rejects timestamps 300 s or more away, in either direction', () => {
    // The documented edge, written out: taken from the implementation's constant, a change of it would go unnoticed.
    const edge = 300;
    expect(checkSvcSignature(secret, signedBy([secret], now - 2 * edge), now * 1000)).toBe('stale_timestamp');
    expect(checkSvcSignature(secret, signedBy([secret], now + 2 * edge), now * 1000)).toBe('stale_timestamp');
    expect(checkSvcSignature(secret, signedBy([secret], now - edge + 1), now * 1000)).toBe('valid');
    expect(checkSvcSignature(secret, signedBy([secret], now + edge - 1), now * 1000)).toBe('valid');
    expect(checkSvcSignature(secret, signedBy([secret], now - edge), now * 1000)).toBe('stale_timestamp');
    expect(checkSvcSignature(secret, signedBy([secret], now + edge), now * 1000)).toBe('stale_timestamp');
  });

  it('rejects missing headers and timestamps that are not whole seconds', () => {
    expect(checkSvcSignature(secret, { ...signedBy([secret]), signatures: undefined }, now * 1000)).toBe('missing_header');
    expect(checkSvcSignature(secret, { ...signedBy([secret]), timestamp: undefined }, now * 1000)).toBe('missing_header');
    expect(checkSvcSignature(secret, { ...signedBy([secret]), timestamp: `${now}.5` }, now * 1000)).toBe('invalid_timestamp');
  });
});
