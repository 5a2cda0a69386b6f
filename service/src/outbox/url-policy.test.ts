import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { httpSender } from './http-sender';
import { isPublicAddress, webhookUrlProblem } from './url-policy';

// Every disguise of a non-public address we could think of, by the special-purpose range it lands in.
const NOT_PUBLIC: [range: string, host: string][] = [
  ['loopback', '127.0.0.1'],
  ['loopback, shorthand', '127.1'],
  ['loopback, decimal', '2130706433'],
  ['loopback, hex', '0x7f000001'],
  ['loopback, octal', '0177.0.0.1'],
  ['loopback, other', '127.255.255.254'],
  ['unspecified', '0.0.0.0'],
  ['this network', '0.1.2.3'],
  ['private 10/8', '10.0.0.1'],
  ['private 172.16/12', '172.31.255.255'],
  ['private 192.168/16', '192.168.1.1'],
  ['CGNAT', '100.64.0.1'],
  ['link-local (cloud metadata)', '169.254.169.254'],
  ['IETF protocol assignments', '192.0.0.8'],
  ['documentation TEST-NET-1', '192.0.2.1'],
  ['documentation TEST-NET-2', '198.51.100.7'],
  ['documentation TEST-NET-3', '203.0.113.9'],
  ['benchmarking', '198.18.0.1'],
  ['benchmarking, upper', '198.19.255.255'],
  ['6to4 relay anycast', '192.88.99.1'],
  ['multicast', '224.0.0.1'],
  ['reserved 240/4', '240.0.0.1'],
  ['broadcast', '255.255.255.255'],
  ['IPv6 loopback', '[::1]'],
  ['IPv6 loopback, long form', '[0:0:0:0:0:0:0:1]'],
  ['IPv6 unspecified', '[::]'],
  ['IPv4-mapped loopback', '[::ffff:127.0.0.1]'],
  ['IPv4-mapped loopback, hex', '[::ffff:7f00:1]'],
  ['IPv4-mapped private', '[::ffff:10.0.0.1]'],
  ['IPv4-mapped public (any mapped address is refused)', '[::ffff:8.8.8.8]'],
  ['IPv4-mapped, long form', '[0:0:0:0:0:ffff:7f00:1]'],
  ['IPv4-compatible (deprecated)', '[::127.0.0.1]'],
  ['IPv4-translated (RFC 6145)', '[::ffff:0:7f00:1]'],
  ['NAT64 well-known prefix', '[64:ff9b::7f00:1]'],
  ['NAT64 local-use prefix', '[64:ff9b:1::a00:1]'],
  ['discard-only', '[100::1]'],
  ['Teredo', '[2001::1]'],
  ['IETF protocol assignments (v6)', '[2001:1::1]'],
  ['benchmarking (v6)', '[2001:2::1]'],
  ['ORCHIDv2', '[2001:20::1]'],
  ['documentation (v6)', '[2001:db8::1]'],
  ['documentation 3fff::/20', '[3fff::1]'],
  ['6to4 of loopback', '[2002:7f00:1::]'],
  ['6to4 of a public address', '[2002:808:808::1]'],
  ['SRv6 SIDs', '[5f00::1]'],
  ['unique local fc00::/7', '[fc00::1]'],
  ['unique local fd', '[fd12:3456::1]'],
  ['link-local fe80::/10', '[fe80::1]'],
  ['site-local (deprecated)', '[fec0::1]'],
  ['multicast ff00::/8', '[ff02::1]'],
  ['outside global unicast 2000::/3', '[4000::1]'],
  ['localhost', 'localhost'],
  ['localhost, absolute', 'localhost.'],
  ['localhost, upper case', 'LOCALHOST'],
  ['a .localhost name', 'api.localhost'],
];

const PUBLIC: string[] = [
  'example.com',
  '8.8.8.8',
  '1.1.1.1',
  '100.128.0.1',
  '172.32.0.1',
  '[2606:4700:4700::1111]',
  '[2a00:1450:4001::200e]',
];

describe('the SSRF policy of webhook and Teams URLs', () => {
  it.each(NOT_PUBLIC)('refuses %s (%s) when the URL is created', (_range, host) => {
    expect(webhookUrlProblem(`https://${host}:8443/hook`, false)).toBe('must point at a public host');
  });

  it.each(PUBLIC)('accepts the public host %s', (host) => {
    expect(webhookUrlProblem(`https://${host}/hook`, false)).toBeNull();
  });

  it('decides on addresses, not spellings', () => {
    expect(isPublicAddress('::ffff:7f00:1')).toBe(false);
    expect(isPublicAddress('not an address')).toBe(false);
    expect(isPublicAddress('93.184.215.14')).toBe(true);
  });

  it('allows loopback and http only when insecure URLs are allowed', () => {
    expect(webhookUrlProblem('http://127.0.0.1:3000/hook', true)).toBeNull();
    expect(webhookUrlProblem('http://example.com/hook', false)).toBe('must be an https URL');
  });
});

describe('the sender checks the address it connects to', () => {
  let server: http.Server;
  let port: number;
  let hits = 0;
  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      hits++;
      res.end('secret internal answer');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const send = httpSender({ timeoutMs: 2000, allowPrivateTargets: false });
  // Node skips the `lookup` hook for IP literals, so these must be refused before connecting.
  it.each(['127.0.0.1', '127.1', '2130706433', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', 'localhost'])(
    'never connects to %s',
    async (host) => {
      const before = hits;
      const result = await send(`http://${host}:${port}/hook`, {}, '{}');
      expect(result.statusCode).toBeNull();
      expect(result.error).toMatch(/not a public address|resolves to a non-public address/);
      expect(result.responseBody).toBeNull();
      expect(hits).toBe(before);
    },
  );

  it('connects when private targets are allowed (the control)', async () => {
    const result = await httpSender({ timeoutMs: 2000, allowPrivateTargets: true })(`http://127.0.0.1:${port}/hook`, {}, '{}');
    expect(result.statusCode).toBe(200);
  });
});
