import { AppError } from '../shared/errors';
import { startTestCore } from '../testing/core';

describe('IdempotencyService', () => {
  const core = startTestCore();
  const { services, clock } = core;
  afterAll(() => core.dispose());
  const { owner } = services.identity.ensureOwner();
  const keyA = services.keys.create({ userId: owner.id, name: 'a', scopes: [] }).row.id;
  const keyB = services.keys.create({ userId: owner.id, name: 'b', scopes: [] }).row.id;
  const request = { method: 'POST', path: '/meetings', body: { title: 'A' } };
  let performed = 0;
  const perform = () => ({ status: 201, body: { n: ++performed } });

  it('runs the first request and replays its stored answer for a retry with the same key', () => {
    const first = services.idempotency.run(keyA, 'k1', request, perform);
    const retry = services.idempotency.run(keyA, 'k1', { ...request, body: { title: 'A' } }, perform);
    expect(first).toEqual({ status: 201, body: { n: 1 }, replayed: false });
    expect(retry).toEqual({ status: 201, body: { n: 1 }, replayed: true });
    expect(performed).toBe(1);
  });

  it.each([
    ['another body', { ...request, body: { title: 'B' } }],
    ['another path', { ...request, path: '/webinars/x/registrations' }],
    ['another method', { ...request, method: 'PUT' }],
  ])('answers conflict when the key is reused with %s, performing nothing', (_what, other) => {
    services.idempotency.run(keyA, 'k2', request, perform);
    const before = performed;
    expect(() => services.idempotency.run(keyA, 'k2', other, perform)).toThrow(AppError);
    expect(performed).toBe(before);
  });

  it('keeps keys per API key, and forgets them after 24 hours', () => {
    services.idempotency.run(keyA, 'k3', request, perform);
    expect(services.idempotency.run(keyB, 'k3', request, perform).replayed).toBe(false);
    clock.advance(24 * 60 * 60 * 1000 + 1);
    expect(services.idempotency.run(keyA, 'k3', request, perform).replayed).toBe(false);
  });
});
