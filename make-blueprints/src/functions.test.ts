import { newWebhookSecret, svcSignature } from '@svc/connectors';
import { parseTemplate } from './expression';
import { MAKE_FUNCTIONS, MakeFunctionError } from './functions';

const call = (name: string, ...args: unknown[]) => MAKE_FUNCTIONS[name]!.apply(args);

describe('the Make functions the runner implements', () => {
  it("reproduces the example of Make's function reference: sha256(Make)", () => {
    expect(call('sha256', 'Make')).toBe('ccdd25d4230fb997a7ee1166f8afabd157248eb812ea55ec7c3d1b7c8af7fa11');
  });

  it("computes svc's webhook signature as an HMAC when sha256 gets a key", () => {
    const secret = newWebhookSecret();
    const body = '{"id":"evt_01","title":"Café ✓ \\"q\\""}';
    expect(`sha256=${call('sha256', `1780000000.${body}`, 'hex', secret)}`).toBe(svcSignature(secret, 1780000000, body));
    expect(call('sha256', 'x', 'base64', '00ff', 'hex')).toBe(
      call('sha256', 'x', 'base64', Buffer.from([0, 255]).toString('base64'), 'base64'),
    );
  });

  it('refuses encodings it does not implement instead of guessing', () => {
    expect(() => call('sha256', 'x', 'binary')).toThrow(MakeFunctionError);
    expect(() => call('sha256', 'x', 'hex', 'key', 'binary')).toThrow(MakeFunctionError);
  });

  it('maps a header list to the values of one header and takes the first', () => {
    const headers = [
      { name: 'x-svc-timestamp', value: '1780000000' },
      { name: 'x-svc-signature', value: 'sha256=ab' },
    ];
    expect(call('map', headers, 'value', 'name', 'x-svc-signature')).toEqual(['sha256=ab']);
    expect(call('first', call('map', headers, 'value', 'name', 'x-other'))).toBeUndefined();
    expect(call('map', headers, 'name')).toEqual(['x-svc-timestamp', 'x-svc-signature']);
  });

  it('falls back on empty values and encodes URL parts', () => {
    expect(call('ifempty', '', 60)).toBe(60);
    expect(call('ifempty', 0, 60)).toBe(0);
    expect(call('encodeURL', 'a b/c')).toBe('a%20b%2Fc');
  });
});

describe('parseTemplate', () => {
  it('reads literal text, references, calls, strings and arithmetic', () => {
    expect(parseTemplate('sha256={{sha256(1.value; "hex")}} at {{timestamp - 300}}')).toEqual([
      { kind: 'literal', text: 'sha256=' },
      {
        kind: 'formula',
        source: 'sha256(1.value; "hex")',
        expr: {
          kind: 'call',
          name: 'sha256',
          args: [
            { kind: 'ref', module: 1, path: ['value'] },
            { kind: 'text', value: 'hex' },
          ],
        },
      },
      { kind: 'literal', text: ' at ' },
      {
        kind: 'formula',
        source: 'timestamp - 300',
        expr: { kind: 'binary', op: '-', left: { kind: 'var', name: 'timestamp' }, right: { kind: 'number', value: 300 } },
      },
    ]);
  });

  it('keeps "}}" inside a string literal and rejects syntax it does not support', () => {
    expect(parseTemplate('{{ifempty(1.a; "}}")}}')).toHaveLength(1);
    expect(() => parseTemplate('{{1.a * 2}}')).toThrow('unsupported character "*"');
    expect(() => parseTemplate('{{1.a')).toThrow('unterminated formula');
  });
});
