import fc from 'fast-check';
import { RoomClient } from '@svc/service/testing';
import { call, startService, tempDataDir, unlimitedKey, type ServiceProcess } from './support/service-process';
import { closeFrame, encodeFrame, rawConnection, upgradeRequest } from './support/raw-websocket';

// Property-based fuzzing of the room socket's upgrade path and frames against the real service process,
// beside the API fuzz suite: whatever arrives, the process keeps serving. `npm run fuzz` raises the runs.
const RUNS = Number(process.env.SVC_FUZZ_RUNS ?? 120);
const SEED = 22;
const SOCKET_PATH = '/rooms/v1/socket';
/** How long one case may keep its connection: a truncated frame leaves the service waiting for the rest. */
const CASE_LIMIT_MS = 1_500;

let service: ServiceProcess;
let code: string;

beforeAll(async () => {
  const dataDir = tempDataDir();
  service = await startService(dataDir, { SVC_ROOM_RATE_LIMIT_PER_SECOND: '10000', SVC_ROOM_RATE_LIMIT_PER_MINUTE: '100000' });
  const created = await call(service.url, 'POST', '/api/v1/public/meetings', unlimitedKey(dataDir), { title: 'Fuzzed room' });
  code = created.body.code;
}, 60_000);
afterAll(() => service.stop());

const ROOM_METHODS = [
  'getRouterRtpCapabilities',
  'join',
  'createTransport',
  'sendChat',
  'leave',
  'admit',
  'remove',
  'produce',
  'raiseHand',
  'sendReaction',
  'mutePeer',
  'setPermissions',
  'setLocked',
  'toString',
];

const payload = fc.oneof(
  fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
  fc.json().map((json) => Buffer.from(json)),
  fc
    .record({ id: fc.oneof(fc.nat(), fc.constant(-1), fc.constant(null)), method: fc.constantFrom(...ROOM_METHODS), data: fc.anything() })
    .map((request) => Buffer.from(JSON.stringify(request))),
);

const frame = fc
  .record({
    fin: fc.oneof({ arbitrary: fc.constant(true), weight: 9 }, fc.constant(false)),
    rsv: fc.oneof({ arbitrary: fc.constant(0), weight: 9 }, fc.integer({ min: 1, max: 7 })),
    opcode: fc.oneof({ arbitrary: fc.constantFrom(0x1, 0x2, 0x8, 0x9, 0xa), weight: 6 }, fc.integer({ min: 0, max: 15 })),
    masked: fc.oneof({ arbitrary: fc.constant(true), weight: 9 }, fc.constant(false)),
    payload,
    lengthDelta: fc.oneof({ arbitrary: fc.constant(0), weight: 12 }, fc.integer({ min: -4, max: 4 }), fc.constant(2 ** 21)),
  })
  .map(({ lengthDelta, ...f }) => encodeFrame({ ...f, declaredLength: Math.max(0, f.payload.length + lengthDelta) }));

const upgrade = fc.record({
  target: fc.oneof(
    fc.constantFrom(
      SOCKET_PATH,
      `${SOCKET_PATH}?credential=`,
      'http://[',
      '*',
      '/rooms/v1/socket/../socket',
      '//[',
      '/%ff%fe',
      '/rooms/v1/elsewhere',
    ),
    fc.string({ unit: 'binary-ascii', maxLength: 60 }).map((s) => s.replace(/[\r\n ]/g, '')),
    fc.webUrl(),
  ),
  headers: fc.record(
    {
      Upgrade: fc.constantFrom('websocket', 'WebSocket', 'h2c', '', 'websocket, h2c'),
      Connection: fc.constantFrom('Upgrade', 'keep-alive', 'upgrade, close', ''),
      'Sec-WebSocket-Key': fc.oneof(fc.constant('dGhlIHNhbXBsZSBub25jZQ=='), fc.string({ unit: 'binary-ascii', maxLength: 30 })),
      'Sec-WebSocket-Version': fc.constantFrom('13', '8', '', '13, 8', 'x'),
      'Sec-WebSocket-Extensions': fc.constantFrom('permessage-deflate', 'permessage-deflate; server_max_window_bits=0', 'x; y'),
      'Content-Length': fc.constantFrom('0', '5', '-1', '99999999999'),
    },
    { requiredKeys: [] },
  ),
  trailing: fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
});

async function credential(kind: 'none' | 'forged' | 'valid'): Promise<string> {
  if (kind === 'none') return '';
  if (kind === 'forged') return 'eyJtIjoibXRnX3gifQ.AAAA';
  const res = await call(service.url, 'POST', `/rooms/v1/${code}/credentials`, undefined, { name: 'Fuzz' });
  return res.body.credential as string;
}

async function sendAndCheck(bytes: Buffer): Promise<boolean> {
  const connection = await rawConnection(service.url, bytes);
  await connection.waitForEnd(CASE_LIMIT_MS);
  connection.socket.destroy();
  return service.running() && (await call(service.url, 'GET', '/healthz')).status === 200;
}

describe('room socket fuzzing (real process, raw TCP)', () => {
  it(`keeps serving through ${RUNS} generated sequences of frames, with no, forged or valid credentials`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('none', 'forged', 'valid'),
        fc.array(frame, { minLength: 1, maxLength: 6 }),
        async (kind, frames) => {
          const handshake = upgradeRequest(`${SOCKET_PATH}?credential=${await credential(kind)}`);
          return sendAndCheck(Buffer.concat([handshake, ...frames, closeFrame(1000)]));
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
  }, 600_000);

  it(`keeps serving through ${RUNS} generated upgrade requests`, async () => {
    await fc.assert(
      fc.asyncProperty(upgrade, async ({ target, headers, trailing }) =>
        sendAndCheck(Buffer.concat([upgradeRequest(target, headers), trailing])),
      ),
      { numRuns: RUNS, seed: SEED },
    );
  }, 600_000);

  it('lets a real client join and chat afterwards', async () => {
    const res = await call(service.url, 'POST', `/rooms/v1/${code}/credentials`, undefined, { name: 'After the fuzz' });
    const { client, answer } = await RoomClient.join(res.body);
    expect(answer).toMatchObject({ ok: true, data: { status: 'joined' } });
    expect((await client.ok('sendChat', { text: 'fine' })).message.text).toBe('fine');
    client.close();
  });
});
