import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../config';
import { DENIED_PEER_RANGES, findTurnCertificate, turnIceUrls, turnServerConf, type TurnServerConfOptions } from './turn.config';

/** A PATH holding an executable `turnserver` (or none), so the tests do not depend on what this machine has. */
function pathWith(turnserver: boolean): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-turn-path-'));
  if (turnserver) fs.writeFileSync(path.join(dir, 'turnserver'), '#!/bin/sh\n', { mode: 0o755 });
  return dir;
}

const withBinary = pathWith(true);
const withoutBinary = pathWith(false);

afterAll(() => {
  for (const dir of [withBinary, withoutBinary]) fs.rmSync(dir, { recursive: true, force: true });
});

describe('SVC_TURN in the configuration', () => {
  it('defaults to embedded when coturn is installed, with its ports apart from the RTC ports', () => {
    const turn = loadConfig({ PATH: withBinary }).turn;
    expect(turn).toEqual({
      mode: 'embedded',
      offReason: undefined,
      binary: path.join(withBinary, 'turnserver'),
      port: 3478,
      tlsPort: 5349,
      minPort: 61_000,
      maxPort: 61_999,
    });
  });

  it('defaults to off with one reason to log when coturn is missing, and refuses embedded then', () => {
    const turn = loadConfig({ PATH: withoutBinary }).turn;
    expect(turn.mode).toBe('off');
    expect(turn.offReason).toMatch(/turnserver is not installed.*ensure-media-tools\.sh/);
    expect(loadConfig({ PATH: withoutBinary, SVC_TURN: 'off' }).turn.offReason).toBeUndefined();
    expect(() => loadConfig({ PATH: withoutBinary, SVC_TURN: 'embedded' })).toThrow(ConfigError);
    expect(() => loadConfig({ PATH: withoutBinary, SVC_TURN: 'embedded' })).toThrow(/SVC_TURN=embedded.*turnserver/);
  });

  it('keeps SVC_TURN_URLS + SVC_TURN_SECRET as external, the default when they are set', () => {
    const env = { PATH: withBinary, SVC_TURN_URLS: 'turn:turn.example.com:3478', SVC_TURN_SECRET: 's3cret' };
    const config = loadConfig(env);
    expect(config.turn.mode).toBe('external');
    expect(config.rooms.turnUrls).toEqual(['turn:turn.example.com:3478']);
    expect(loadConfig({ ...env, SVC_TURN: 'external' }).turn.mode).toBe('external');
  });

  it.each([
    [{ SVC_TURN: 'coturn' }, /SVC_TURN must be one of embedded, external, off/],
    [{ SVC_TURN: 'external' }, /SVC_TURN=external needs SVC_TURN_URLS/],
    [{ SVC_TURN: 'embedded', SVC_TURN_URLS: 'turn:t.example.com' }, /SVC_TURN_URLS and SVC_TURN_SECRET are for SVC_TURN=external/],
    [{ SVC_TURN: 'off', SVC_TURN_SECRET: 'x' }, /SVC_TURN_URLS and SVC_TURN_SECRET are for SVC_TURN=external/],
    [{ SVC_TURN_PORT: '70000' }, /SVC_TURN_PORT must be an integer/],
    [{ SVC_TURN_MIN_PORT: '50010', SVC_TURN_MAX_PORT: '50000' }, /SVC_TURN_MAX_PORT \(50000\) must not be below SVC_TURN_MIN_PORT/],
    [{ SVC_TURN_MIN_PORT: '40050', SVC_TURN_MAX_PORT: '40500' }, /must not overlap SVC_RTC_MIN_PORT\.\.SVC_RTC_MAX_PORT \(40000-40099\)/],
    [{ SVC_TURN_PORT: '40001' }, /SVC_TURN_PORT \(40001\) must lie outside/],
    [{ SVC_TURN_TLS_PORT: '61500' }, /SVC_TURN_TLS_PORT \(61500\) must lie outside/],
    [{ SVC_TURN_TLS_PORT: '3478' }, /must differ/],
  ])('refuses %j naming the variable', (env, message) => {
    expect(() => loadConfig({ PATH: withBinary, ...env })).toThrow(message);
  });

  it('checks the embedded ports only when the service runs TURN itself', () => {
    expect(loadConfig({ PATH: withBinary, SVC_TURN: 'off', SVC_TURN_MIN_PORT: '40000', SVC_TURN_MAX_PORT: '40099' }).turn.mode).toBe('off');
  });
});

describe('what browsers are told', () => {
  it('turn: over UDP and TCP at the base URL host, turns: only with a certificate', () => {
    const base = { baseUrl: 'https://meet.example.com', announcedIp: undefined, port: 3478, tlsPort: 5349 };
    expect(turnIceUrls({ ...base, tls: false })).toEqual([
      'turn:meet.example.com:3478?transport=udp',
      'turn:meet.example.com:3478?transport=tcp',
    ]);
    expect(turnIceUrls({ ...base, tls: true })).toEqual([
      'turn:meet.example.com:3478?transport=udp',
      'turn:meet.example.com:3478?transport=tcp',
      'turns:meet.example.com:5349?transport=tcp',
    ]);
  });

  it('turn: at the announced address when there is one, turns: still at the certificate name', () => {
    expect(turnIceUrls({ baseUrl: 'https://meet.example.com', announcedIp: '2001:db8::7', port: 3478, tlsPort: 443, tls: true })).toEqual([
      'turn:[2001:db8::7]:3478?transport=udp',
      'turn:[2001:db8::7]:3478?transport=tcp',
      'turns:meet.example.com:443?transport=tcp',
    ]);
  });

  it('finds the certificate in the configured files, else the one ACME keeps in {dataDir}/tls', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-turn-cert-'));
    try {
      const none = { certFile: undefined, keyFile: undefined };
      expect(findTurnCertificate(none, dataDir)).toBeUndefined();
      fs.mkdirSync(path.join(dataDir, 'tls'));
      fs.writeFileSync(path.join(dataDir, 'tls', 'cert.pem'), 'cert');
      expect(findTurnCertificate(none, dataDir)).toBeUndefined();
      fs.writeFileSync(path.join(dataDir, 'tls', 'key.pem'), 'key');
      expect(findTurnCertificate(none, dataDir)).toEqual({
        certFile: path.join(dataDir, 'tls', 'cert.pem'),
        keyFile: path.join(dataDir, 'tls', 'key.pem'),
      });
      expect(findTurnCertificate({ certFile: '/etc/c.pem', keyFile: '/etc/k.pem' }, dataDir)).toEqual({
        certFile: '/etc/c.pem',
        keyFile: '/etc/k.pem',
      });
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('turnserver.conf', () => {
  const options: TurnServerConfOptions = {
    listeningIp: undefined,
    relayIp: '10.0.0.5',
    externalIp: '203.0.113.10',
    port: 3478,
    tlsPort: 5349,
    minPort: 61_000,
    maxPort: 61_999,
    secret: 'the-secret',
    realm: 'meet.example.com',
    certificate: undefined,
    allowedPeerIps: ['203.0.113.10', '10.0.0.5'],
    allowLoopbackPeers: false,
    pidFile: '/data/turn/turnserver.pid',
    userDb: '/data/turn/turndb',
  };
  const lines = (o: TurnServerConfOptions) => turnServerConf(o).trim().split('\n');

  it('authenticates with the TURN REST secret, relays UDP only and keeps relays out of private networks except the SFU', () => {
    const conf = lines(options);
    expect(conf).toEqual(
      expect.arrayContaining([
        'listening-port=3478',
        'relay-ip=10.0.0.5',
        'external-ip=203.0.113.10/10.0.0.5',
        'min-port=61000',
        'max-port=61999',
        'use-auth-secret',
        'static-auth-secret=the-secret',
        'realm=meet.example.com',
        'fingerprint',
        'no-multicast-peers',
        'no-tcp-relay',
        'no-cli',
        'no-tls',
        'no-dtls',
        'total-quota=1000',
        'user-quota=12',
        'max-bps=1250000',
        'denied-peer-ip=10.0.0.0-10.255.255.255',
        'denied-peer-ip=127.0.0.0-127.255.255.255',
        'denied-peer-ip=192.168.0.0-192.168.255.255',
        'denied-peer-ip=fc00::-fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
        'allowed-peer-ip=203.0.113.10',
        'allowed-peer-ip=10.0.0.5',
        'pidfile=/data/turn/turnserver.pid',
        'log-file=stdout',
      ]),
    );
    expect(conf.filter((l) => l.startsWith('denied-peer-ip='))).toHaveLength(DENIED_PEER_RANGES.length);
    expect(conf.some((l) => l.startsWith('listening-ip'))).toBe(false);
    expect(conf).not.toContain('allow-loopback-peers');
    expect(conf.some((l) => /^(cert|pkey|tls-listening-port)=/.test(l))).toBe(false);
  });

  it('listens on the RTC listen address, allows loopback peers only there, and serves turns: with a certificate', () => {
    const conf = lines({
      ...options,
      listeningIp: '127.0.0.1',
      relayIp: '127.0.0.1',
      externalIp: undefined,
      allowedPeerIps: ['127.0.0.1'],
      allowLoopbackPeers: true,
      certificate: { certFile: '/data/tls/cert.pem', keyFile: '/data/tls/key.pem' },
    });
    expect(conf).toEqual(
      expect.arrayContaining([
        'listening-ip=127.0.0.1',
        'allow-loopback-peers',
        'tls-listening-port=5349',
        'cert=/data/tls/cert.pem',
        'pkey=/data/tls/key.pem',
        'no-tlsv1',
        'no-tlsv1_1',
        'no-dtls',
      ]),
    );
    expect(conf).not.toContain('no-tls');
    expect(conf.some((l) => l.startsWith('external-ip'))).toBe(false);
  });
});
