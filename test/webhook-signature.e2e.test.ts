import { newWebhookSecret, signDelivery } from '@svc/connectors';
import { startVerifyReceiver, type VerifyReceiver } from './receivers/verify-receiver';

const nowSeconds = () => Math.floor(Date.now() / 1000);

function eventBody(eventId: string): string {
  return JSON.stringify({
    id: eventId,
    type: 'meeting.ended',
    created_at: '2026-05-28T10:00:00.000Z',
    data: { meeting: { id: 'mtg_01', code: 'abc-defg-hij', title: 'Café ✓ review 😀', status: 'ended' } },
  });
}

/** POSTs one delivery signed with `secrets`; `sentBody` replaces the signed body on the wire. */
async function deliver(
  receiver: VerifyReceiver,
  opts: { eventId: string; secrets: string[]; timestamp?: number; sentBody?: string; omit?: string[] },
) {
  const rawBody = eventBody(opts.eventId);
  const headers: Record<string, string> = {
    ...signDelivery({
      secrets: opts.secrets,
      eventId: opts.eventId,
      eventType: 'meeting.ended',
      deliveryId: `dlv_${opts.eventId}`,
      timestamp: opts.timestamp ?? nowSeconds(),
      rawBody,
    }),
  };
  for (const name of opts.omit ?? []) delete headers[name];
  const res = await fetch(receiver.url, { method: 'POST', headers, body: opts.sentBody ?? rawBody });
  const logged = receiver.deliveries().filter((entry) => entry.webhook_id === opts.eventId);
  return { status: res.status, logged };
}

describe('webhook signatures verified by an independent Python receiver', () => {
  const secret = newWebhookSecret();

  describe('holding one secret', () => {
    let receiver: VerifyReceiver;
    beforeAll(async () => {
      receiver = await startVerifyReceiver({ secrets: [secret] });
    });
    afterAll(async () => expect(await receiver.stop()).toBe(0));

    it('accepts a valid delivery and logs both signatures as valid', async () => {
      const { status, logged } = await deliver(receiver, { eventId: 'evt_valid', secrets: [secret] });
      expect(status).toBe(204);
      expect(logged).toEqual([
        {
          webhook_id: 'evt_valid',
          delivery_id: 'dlv_evt_valid',
          event_type: 'meeting.ended',
          valid_svc: true,
          valid_standard: true,
          status: 204,
          body: eventBody('evt_valid'),
        },
      ]);
      expect(JSON.parse(logged[0]!.body).data.meeting.title).toBe('Café ✓ review 😀');
    });

    it('rejects a tampered body', async () => {
      const tampered = eventBody('evt_tampered').replace('"ended"}', '"live"}');
      const { status, logged } = await deliver(receiver, { eventId: 'evt_tampered', secrets: [secret], sentBody: tampered });
      expect(status).toBe(401);
      expect(logged).toMatchObject([{ valid_svc: false, valid_standard: false, status: 401 }]);
    });

    it('rejects a delivery signed with another secret', async () => {
      const { status, logged } = await deliver(receiver, { eventId: 'evt_wrong_secret', secrets: [newWebhookSecret()] });
      expect(status).toBe(401);
      expect(logged).toMatchObject([{ valid_svc: false, valid_standard: false, status: 401 }]);
    });

    it('rejects a timestamp 300 s old', async () => {
      const { status, logged } = await deliver(receiver, { eventId: 'evt_stale', secrets: [secret], timestamp: nowSeconds() - 300 });
      expect(status).toBe(401);
      expect(logged).toMatchObject([{ valid_svc: false, valid_standard: false, status: 401 }]);
    });

    it('accepts a rotation delivery signed with a new secret and this one', async () => {
      const { status, logged } = await deliver(receiver, { eventId: 'evt_rotation', secrets: [newWebhookSecret(), secret] });
      expect(status).toBe(204);
      expect(logged).toMatchObject([{ valid_svc: true, valid_standard: true, status: 204 }]);
    });

    it('logs each scheme on its own: without the Standard Webhooks headers only the svc signature is valid', async () => {
      const { status, logged } = await deliver(receiver, { eventId: 'evt_svc_only', secrets: [secret], omit: ['webhook-signature'] });
      expect(status).toBe(401);
      expect(logged).toMatchObject([{ valid_svc: true, valid_standard: false, status: 401 }]);
    });
  });

  describe('holding the old and the new secret during a rotation', () => {
    const oldSecret = newWebhookSecret();
    const newSecret = newWebhookSecret();
    let receiver: VerifyReceiver;
    beforeAll(async () => {
      receiver = await startVerifyReceiver({ secrets: [oldSecret, newSecret] });
    });
    afterAll(async () => expect(await receiver.stop()).toBe(0));

    it.each([
      ['the old secret alone', 204, () => [oldSecret]],
      ['the new secret alone', 204, () => [newSecret]],
      ['both secrets', 204, () => [newSecret, oldSecret]],
      ['an unrelated secret', 401, () => [newWebhookSecret()]],
    ])('a delivery signed with %s: %i', async (label, expected, signingSecrets) => {
      const eventId = `evt_${label.replace(/\W+/g, '_')}`;
      const { status, logged } = await deliver(receiver, { eventId, secrets: signingSecrets() });
      expect(status).toBe(expected);
      expect(logged).toMatchObject([
        { webhook_id: eventId, valid_svc: expected === 204, valid_standard: expected === 204, status: expected },
      ]);
    });
  });

  it('stops by itself after --max-seconds', async () => {
    const receiver = await startVerifyReceiver({ secrets: [secret], maxSeconds: 0.5 });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await expect(fetch(receiver.url, { method: 'POST', body: '{}' })).rejects.toThrow();
    expect(await receiver.stop()).toBe(0);
  });
});
