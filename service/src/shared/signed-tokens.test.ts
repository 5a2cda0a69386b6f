import { randomBytes } from 'node:crypto';
import { AppError } from './errors';
import { SignedTokens } from './signed-tokens';

describe('SignedTokens', () => {
  const tokens = new SignedTokens(randomBytes(32));
  const now = Date.UTC(2026, 11, 1, 10, 0, 0);
  const refusal = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      return e;
    }
    return undefined;
  };

  it('gives back the claims of a token it signed, with the expiry in seconds', () => {
    const token = tokens.sign('room-join', { m: 'mtg_1', r: 'host' }, now + 60_000, 'svc_jt_');
    expect(token).toMatch(/^svc_jt_[\w-]+\.[\w-]+$/);
    expect(tokens.verify('room-join', token, now, 'svc_jt_')).toEqual({ m: 'mtg_1', r: 'host', exp: now / 1000 + 60 });
  });

  it.each([
    ['expired', (t: string) => t, now + 60_000],
    [
      'tampered claims',
      (t: string) => Buffer.from('{"m":"mtg_2","r":"host","exp":9999999999}').toString('base64url') + t.slice(t.indexOf('.')),
      now,
    ],
    ['tampered signature', (t: string) => t.slice(0, -2) + (t.endsWith('AA') ? 'BB' : 'AA'), now],
    ['truncated', (t: string) => t.slice(0, t.indexOf('.')), now],
    ['with an extra part', (t: string) => `${t}.x`, now],
    ['not a token', () => 'hello', now],
  ])('refuses a token that is %s as unauthorized', (_what, change, at) => {
    const token = tokens.sign('room-join', { m: 'mtg_1', r: 'host' }, now + 60_000);
    expect(refusal(() => tokens.verify('room-join', change(token), at))).toEqual(expect.objectContaining({ code: 'unauthorized' }));
  });

  it('refuses a token signed for another purpose or under another master key', () => {
    const token = tokens.sign('embed', { m: 'mtg_1' }, now + 60_000);
    expect(refusal(() => tokens.verify('room-join', token, now))).toBeInstanceOf(AppError);
    expect(refusal(() => new SignedTokens(randomBytes(32)).verify('embed', token, now))).toBeInstanceOf(AppError);
  });
});
