import { spawnSync } from 'node:child_process';
import {
  SIGNATURE_TOLERANCE_SECONDS,
  WebhookVerificationError,
  newWebhookSecret,
  signDelivery,
  standardSignature,
  svcSignature,
  verifyWebhook,
  type WebhookVerificationFailure,
} from './signature';

const NOW_SECONDS = 1_780_000_000;
const now = () => NOW_SECONDS * 1000;

function eventBody(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    id: 'evt_01',
    type: 'meeting.ended',
    created_at: '2026-05-28T10:00:00.000Z',
    data: { meeting: { id: 'mtg_01', code: 'abc-defg-hij', title: 'Café ✓ review 😀', status: 'ended' } },
    ...overrides,
  });
}

function delivery(opts: { secrets: string[]; rawBody?: string | Buffer; timestamp?: number }) {
  const rawBody = opts.rawBody ?? eventBody();
  const headers = signDelivery({
    secrets: opts.secrets,
    eventId: 'evt_01',
    eventType: 'meeting.ended',
    deliveryId: 'dlv_01',
    timestamp: opts.timestamp ?? NOW_SECONDS,
    rawBody,
  });
  return { rawBody, headers: { ...headers } as Record<string, string | undefined> };
}

function without(headers: Record<string, string | undefined>, ...names: string[]): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name)));
}

function svcHeadersOnly(headers: Record<string, string | undefined>) {
  return without(headers, 'webhook-id', 'webhook-timestamp', 'webhook-signature');
}

function standardHeadersOnly(headers: Record<string, string | undefined>) {
  return without(headers, 'X-Svc-Timestamp', 'X-Svc-Signature');
}

function rejection(verify: () => unknown): WebhookVerificationFailure | 'accepted' {
  try {
    verify();
    return 'accepted';
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
}

function opensslHmacHex(args: string[], message: Buffer): string {
  const result = spawnSync('openssl', ['dgst', '-sha256', ...args], { input: message, encoding: 'utf8' });
  expect(result.status).toBe(0);
  return /= ([0-9a-f]{64})\s*$/.exec(result.stdout)![1]!;
}

describe('webhook signatures', () => {
  const secret = newWebhookSecret();

  it('makes secrets of 32 random bytes behind whsec_', () => {
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(secret);
  });

  it('signs a delivery with both schemes and verifies it back into the event', () => {
    const { rawBody, headers } = delivery({ secrets: [secret] });
    expect(headers).toEqual({
      'Content-Type': 'application/json',
      'X-Svc-Event': 'meeting.ended',
      'X-Svc-Delivery': 'dlv_01',
      'X-Svc-Timestamp': String(NOW_SECONDS),
      'X-Svc-Signature': expect.stringMatching(/^sha256=[0-9a-f]{64}$/),
      'webhook-id': 'evt_01',
      'webhook-timestamp': String(NOW_SECONDS),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
    });
    expect(verifyWebhook({ rawBody, headers, secrets: secret, now })).toEqual(JSON.parse(rawBody as string));
  });

  it('matches an HMAC computed by openssl for the svc scheme', () => {
    const rawBody = Buffer.from(eventBody());
    const expectedHex = opensslHmacHex(['-hmac', secret], Buffer.concat([Buffer.from(`${NOW_SECONDS}.`), rawBody]));
    expect(svcSignature(secret, NOW_SECONDS, rawBody)).toBe(`sha256=${expectedHex}`);
  });

  it('matches an HMAC computed by openssl for the Standard Webhooks scheme', () => {
    const rawBody = Buffer.from(eventBody());
    const keyHex = Buffer.from(secret.slice('whsec_'.length), 'base64').toString('hex');
    const expectedHex = opensslHmacHex(
      ['-mac', 'HMAC', '-macopt', `hexkey:${keyHex}`],
      Buffer.concat([Buffer.from(`evt_01.${NOW_SECONDS}.`), rawBody]),
    );
    expect(standardSignature(secret, 'evt_01', NOW_SECONDS, rawBody)).toBe(`v1,${Buffer.from(expectedHex, 'hex').toString('base64')}`);
  });

  it('reproduces the reference vector of the Standard Webhooks test suite', () => {
    const vector = {
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      timestamp: 1614265330,
      body: '{"test": 2432232314}',
    };
    const signature = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';
    expect(standardSignature(vector.secret, vector.id, vector.timestamp, vector.body)).toBe(signature);
    const headers = { 'webhook-id': vector.id, 'webhook-timestamp': String(vector.timestamp), 'webhook-signature': signature };
    // The signature passes; the vector's body is simply not an svc event.
    expect(
      rejection(() => verifyWebhook({ rawBody: vector.body, headers, secrets: vector.secret, now: () => vector.timestamp * 1000 })),
    ).toBe('invalid_body');
  });

  it('rejects a body with one byte changed, under either scheme', () => {
    const { rawBody, headers } = delivery({ secrets: [secret] });
    const tampered = Buffer.from(rawBody);
    tampered[tampered.indexOf('ended')] = 'E'.charCodeAt(0);
    expect(rejection(() => verifyWebhook({ rawBody: tampered, headers, secrets: secret, now }))).toBe('bad_signature');
    expect(rejection(() => verifyWebhook({ rawBody: tampered, headers: standardHeadersOnly(headers), secrets: secret, now }))).toBe(
      'bad_signature',
    );
  });

  it('checks the signature before parsing the body', () => {
    const { headers } = delivery({ secrets: [secret] });
    expect(rejection(() => verifyWebhook({ rawBody: 'not json', headers, secrets: secret, now }))).toBe('bad_signature');
  });

  it('rejects a delivery signed with another secret', () => {
    const { rawBody, headers } = delivery({ secrets: [newWebhookSecret()] });
    expect(rejection(() => verifyWebhook({ rawBody, headers, secrets: secret, now }))).toBe('bad_signature');
    expect(rejection(() => verifyWebhook({ rawBody, headers: standardHeadersOnly(headers), secrets: secret, now }))).toBe('bad_signature');
  });

  it.each([
    ['299 s old', 'accepted', -299],
    ['300 s old', 'stale_timestamp', -300],
    ['an hour old', 'stale_timestamp', -3600],
    ['299 s ahead', 'accepted', 299],
    ['300 s ahead', 'stale_timestamp', 300],
  ])('with a timestamp %s: %s', (_label, outcome, offsetSeconds) => {
    const { rawBody, headers } = delivery({ secrets: [secret], timestamp: NOW_SECONDS + offsetSeconds });
    expect(rejection(() => verifyWebhook({ rawBody, headers, secrets: secret, now }))).toBe(outcome);
    expect(rejection(() => verifyWebhook({ rawBody, headers: standardHeadersOnly(headers), secrets: secret, now }))).toBe(outcome);
  });

  it('compares the timestamp with the clock to the millisecond and honours a custom tolerance', () => {
    const { rawBody, headers } = delivery({ secrets: [secret], timestamp: NOW_SECONDS - 300 });
    expect(rejection(() => verifyWebhook({ rawBody, headers, secrets: secret, now: () => now() - 1 }))).toBe('accepted');
    expect(rejection(() => verifyWebhook({ rawBody, headers, secrets: secret, now, toleranceSeconds: 301 }))).toBe('accepted');
    expect(
      rejection(() =>
        verifyWebhook({
          rawBody,
          headers: delivery({ secrets: [secret], timestamp: NOW_SECONDS - 60 }).headers,
          secrets: secret,
          now,
          toleranceSeconds: 60,
        }),
      ),
    ).toBe('stale_timestamp');
    expect(SIGNATURE_TOLERANCE_SECONDS).toBe(300);
  });

  it.each(['', 'soon', '-5', '1780000000.5', '1e9', ` ${NOW_SECONDS}`])('rejects the timestamp %j as invalid', (timestamp) => {
    const { rawBody, headers } = delivery({ secrets: [secret] });
    expect(rejection(() => verifyWebhook({ rawBody, headers: { ...headers, 'X-Svc-Timestamp': timestamp }, secrets: secret, now }))).toBe(
      'invalid_timestamp',
    );
    expect(
      rejection(() =>
        verifyWebhook({ rawBody, headers: { ...standardHeadersOnly(headers), 'webhook-timestamp': timestamp }, secrets: secret, now }),
      ),
    ).toBe('invalid_timestamp');
  });

  it('rejects a delivery whose headers are missing', () => {
    const { rawBody, headers } = delivery({ secrets: [secret] });
    const verifyWith = (only: Record<string, string | undefined>) =>
      rejection(() => verifyWebhook({ rawBody, headers: only, secrets: secret, now }));
    expect(verifyWith({})).toBe('missing_header');
    expect(verifyWith({ 'X-Svc-Timestamp': headers['X-Svc-Timestamp'] })).toBe('missing_header');
    expect(verifyWith({ 'X-Svc-Signature': headers['X-Svc-Signature'] })).toBe('missing_header');
    expect(verifyWith({ ...standardHeadersOnly(headers), 'webhook-id': undefined })).toBe('missing_header');
    expect(verifyWith({ ...standardHeadersOnly(headers), 'webhook-signature': undefined })).toBe('missing_header');
  });

  it('rejects malformed signature headers', () => {
    const { rawBody, headers } = delivery({ secrets: [secret] });
    const good = headers['X-Svc-Signature']!;
    const hex = good.slice('sha256='.length);
    for (const malformed of [
      '',
      'sha256=',
      'garbage',
      hex,
      `sha256=${hex.toUpperCase()}`,
      `sha256=${hex}00`,
      `sha256=${hex.slice(0, -1)}`,
      `v1,${hex}`,
      `sha1=${hex}`,
    ]) {
      expect([
        malformed,
        rejection(() => verifyWebhook({ rawBody, headers: { ...headers, 'X-Svc-Signature': malformed }, secrets: secret, now })),
      ]).toEqual([malformed, 'bad_signature']);
    }
    const standard = headers['webhook-signature']!;
    for (const malformed of ['', 'v1,', standard.slice(3), `v2,${standard.slice(3)}`, `${standard}x`]) {
      expect([
        malformed,
        rejection(() =>
          verifyWebhook({ rawBody, headers: { ...standardHeadersOnly(headers), 'webhook-signature': malformed }, secrets: secret, now }),
        ),
      ]).toEqual([malformed, 'bad_signature']);
    }
  });

  it('uses the svc headers when both schemes are present', () => {
    const { rawBody, headers } = delivery({ secrets: [secret] });
    expect(
      rejection(() => verifyWebhook({ rawBody, headers: { ...headers, 'webhook-signature': 'v1,bogus' }, secrets: secret, now })),
    ).toBe('accepted');
    expect(
      rejection(() => verifyWebhook({ rawBody, headers: { ...headers, 'X-Svc-Signature': 'sha256=bogus' }, secrets: secret, now })),
    ).toBe('bad_signature');
  });

  it('verifies the Standard Webhooks headers alone', () => {
    const { rawBody, headers } = delivery({ secrets: [secret] });
    expect(verifyWebhook({ rawBody, headers: standardHeadersOnly(headers), secrets: secret, now })).toMatchObject({
      id: 'evt_01',
      type: 'meeting.ended',
    });
  });

  it('signs the exact bytes: string and Buffer bodies agree, a lossy re-decoding does not', () => {
    const text = eventBody();
    expect(svcSignature(secret, NOW_SECONDS, text)).toBe(svcSignature(secret, NOW_SECONDS, Buffer.from(text, 'utf8')));
    expect(standardSignature(secret, 'evt_01', NOW_SECONDS, text)).toBe(
      standardSignature(secret, 'evt_01', NOW_SECONDS, Buffer.from(text, 'utf8')),
    );
    const fromString = delivery({ secrets: [secret], rawBody: text });
    expect(verifyWebhook({ rawBody: Buffer.from(text, 'utf8'), headers: fromString.headers, secrets: secret, now }).data).toEqual(
      JSON.parse(text).data,
    );
    expect(
      rejection(() => verifyWebhook({ rawBody: Buffer.from(text, 'latin1'), headers: fromString.headers, secrets: secret, now })),
    ).toBe('bad_signature');

    const invalidUtf8 = Buffer.concat([
      Buffer.from(eventBody().slice(0, -2)),
      Buffer.from([0x2c, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x7d]),
    ]);
    const fromBuffer = delivery({ secrets: [secret], rawBody: invalidUtf8 });
    expect(verifyWebhook({ rawBody: invalidUtf8, headers: fromBuffer.headers, secrets: secret, now }).data).toHaveProperty(
      'n',
      '\ufffd\ufffd',
    );
    expect(
      rejection(() => verifyWebhook({ rawBody: invalidUtf8.toString('utf8'), headers: fromBuffer.headers, secrets: secret, now })),
    ).toBe('bad_signature');
  });

  describe('during a secret rotation', () => {
    const oldSecret = newWebhookSecret();
    const newSecret = newWebhookSecret();
    const { rawBody, headers } = delivery({ secrets: [newSecret, oldSecret] });

    it('sends both signatures, the new one first', () => {
      expect(headers['X-Svc-Signature']).toBe(
        `${svcSignature(newSecret, NOW_SECONDS, rawBody)},${svcSignature(oldSecret, NOW_SECONDS, rawBody)}`,
      );
      expect(headers['webhook-signature']).toBe(
        `${standardSignature(newSecret, 'evt_01', NOW_SECONDS, rawBody)} ${standardSignature(oldSecret, 'evt_01', NOW_SECONDS, rawBody)}`,
      );
    });

    it.each([
      ['only the old secret', 'accepted', () => [oldSecret]],
      ['only the new secret', 'accepted', () => [newSecret]],
      ['both secrets', 'accepted', () => [oldSecret, newSecret]],
      ['an unrelated secret', 'bad_signature', () => [newWebhookSecret()]],
    ])('a receiver holding %s: %s', (_label, outcome, receiverSecrets) => {
      expect(rejection(() => verifyWebhook({ rawBody, headers: svcHeadersOnly(headers), secrets: receiverSecrets(), now }))).toBe(outcome);
      expect(rejection(() => verifyWebhook({ rawBody, headers: standardHeadersOnly(headers), secrets: receiverSecrets(), now }))).toBe(
        outcome,
      );
    });

    it('accepts a single-signature delivery at a receiver holding both secrets', () => {
      const before = delivery({ secrets: [oldSecret] });
      expect(
        rejection(() => verifyWebhook({ rawBody: before.rawBody, headers: before.headers, secrets: [newSecret, oldSecret], now })),
      ).toBe('accepted');
    });
  });

  it('reads headers in any case, as arrays, or from a fetch Headers', () => {
    const { rawBody, headers } = delivery({ secrets: [secret] });
    const lowerCase = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
    const upperCase = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toUpperCase(), value]));
    const asArrays = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value!]]));
    const fetchHeaders = new Headers(headers as Record<string, string>);
    for (const form of [
      lowerCase,
      upperCase,
      asArrays,
      fetchHeaders,
      new Headers(standardHeadersOnly(headers) as Record<string, string>),
    ]) {
      expect(verifyWebhook({ rawBody, headers: form, secrets: secret, now }).id).toBe('evt_01');
    }
  });

  it('parses leniently: later fields are kept, a body that is no event envelope is invalid', () => {
    const withExtras = eventBody({ api_version: '2027-01-01', data: { meeting: { id: 'mtg_01' }, recording: { id: 'rec_01' } } });
    const signed = delivery({ secrets: [secret], rawBody: withExtras });
    expect(verifyWebhook({ rawBody: withExtras, headers: signed.headers, secrets: secret, now })).toMatchObject({
      api_version: '2027-01-01',
      data: { recording: { id: 'rec_01' } },
    });

    for (const body of [
      'not json',
      '[]',
      'null',
      eventBody({ id: 7 }),
      eventBody({ data: null }),
      eventBody({ data: [] }),
      eventBody({ created_at: undefined }),
    ]) {
      const invalid = delivery({ secrets: [secret], rawBody: body });
      expect([body, rejection(() => verifyWebhook({ rawBody: body, headers: invalid.headers, secrets: secret, now }))]).toEqual([
        body,
        'invalid_body',
      ]);
    }
  });

  it('refuses to verify or sign without a secret', () => {
    const { rawBody, headers } = delivery({ secrets: [secret] });
    expect(() => verifyWebhook({ rawBody, headers, secrets: '', now })).toThrow(TypeError);
    expect(() => verifyWebhook({ rawBody, headers, secrets: [], now })).toThrow(TypeError);
    expect(() =>
      signDelivery({ secrets: [], eventId: 'evt_01', eventType: 'meeting.ended', deliveryId: 'dlv_01', timestamp: NOW_SECONDS, rawBody }),
    ).toThrow(TypeError);
    expect(() => svcSignature(secret, 1.5, rawBody)).toThrow(RangeError);
  });
});
