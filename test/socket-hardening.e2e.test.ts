import { RoomClient } from '@svc/service/testing';
import { call, startService, tempDataDir, unlimitedKey, type ServiceProcess } from './support/service-process';
import { closeFrame, encodeFrame, rawConnection, upgradeRequest, type RawConnection } from './support/raw-websocket';

// What the network can send the room socket without any key, against the real service process over raw TCP:
// none of it may end the process, and a refused socket may not make it hold what it is sent.

const SOCKET_PATH = '/rooms/v1/socket';
const MB = 1024 * 1024;

let service: ServiceProcess;
let key: string;
let code: string;

beforeAll(async () => {
  const dataDir = tempDataDir();
  service = await startService(dataDir, { SVC_ROOM_RATE_LIMIT_PER_SECOND: '10000', SVC_ROOM_RATE_LIMIT_PER_MINUTE: '100000' });
  key = unlimitedKey(dataDir);
  const created = await call(service.url, 'POST', '/api/v1/public/meetings', key, { title: 'Hostile frames' });
  expect(created.status).toBe(201);
  code = created.body.code;
}, 60_000);
afterAll(() => service.stop());

async function guestCredential(): Promise<string> {
  const res = await call(service.url, 'POST', `/rooms/v1/${code}/credentials`, undefined, { name: 'Guest' });
  expect(res.status).toBe(201);
  return res.body.credential as string;
}

async function expectServing(): Promise<void> {
  expect(service.running()).toBe(true);
  expect((await call(service.url, 'GET', '/healthz')).status).toBe(200);
}

const text = (bytes: number[]) => ({ opcode: 0x1, payload: Buffer.from(bytes) });

/** Frames that break the protocol, each of which used to end the process. */
const HOSTILE_FRAMES: [string, Buffer][] = [
  ['a text frame with invalid UTF-8', encodeFrame(text([0x7b, 0x22, 0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28]))],
  ['a frame declaring more than the size limit', encodeFrame({ opcode: 0x2, payload: Buffer.alloc(0), declaredLength: 2 * MB })],
  ['a frame with RSV bits set', encodeFrame({ ...text([0x7b, 0x7d]), rsv: 0b100 })],
  ['a close frame with a reserved code', closeFrame(999)],
  ['a close frame with code 1005', closeFrame(1005)],
  ['an unknown opcode', encodeFrame({ opcode: 0x3, payload: Buffer.from('x') })],
  ['an unmasked frame', encodeFrame({ ...text([0x7b, 0x7d]), masked: false })],
  ['a fragmented ping', encodeFrame({ opcode: 0x9, payload: Buffer.from('ping'), fin: false })],
  ['a continuation with nothing to continue', encodeFrame({ opcode: 0x0, payload: Buffer.from('}') })],
  ['a ping longer than 125 bytes', encodeFrame({ opcode: 0x9, payload: Buffer.alloc(200) })],
];

describe('the room socket under hostile frames (real process, raw TCP)', () => {
  it.each(HOSTILE_FRAMES)('ends only the socket that sends %s, with or without a credential', async (_name, frame) => {
    for (const credential of ['', 'not-a-credential', await guestCredential()]) {
      const connection = await rawConnection(
        service.url,
        Buffer.concat([upgradeRequest(`${SOCKET_PATH}?credential=${credential}`), frame]),
      );
      expect(await connection.waitForEnd(10_000)).toBe(true);
      expect(connection.received().toString('latin1')).toMatch(/^HTTP\/1\.1 101 /);
      await expectServing();
    }
  });

  it('answers an upgrade whose request target is no URL with 400, and keeps serving', async () => {
    for (const target of ['http://[', 'http://a:b@[::1', '//[', 'http://%zz']) {
      const connection = await rawConnection(service.url, upgradeRequest(target));
      expect(await connection.waitForEnd(10_000)).toBe(true);
      expect(connection.received().toString('latin1')).toMatch(/^HTTP\/1\.1 400 /);
      await expectServing();
    }
  });

  it('stops reading a refused socket: a flood after a refused credential is cut off, not buffered', async () => {
    const connection = await rawConnection(service.url, upgradeRequest(`${SOCKET_PATH}?credential=forged`));
    const chunk = encodeFrame({ opcode: 0x2, payload: Buffer.alloc(60_000, 7) });
    let written = 0;
    while (!connection.ended() && written < 64 * MB) {
      written += chunk.length;
      if (!connection.socket.write(chunk)) await untilDrainedOrEnded(connection);
    }
    expect(connection.ended()).toBe(true);
    // What the two kernels' socket buffers hold is all that gets through before the service cuts the socket off.
    expect(written).toBeLessThan(24 * MB);
    await expectServing();
  });

  it('still lets people in and chat after all of that', async () => {
    const credential = await call(service.url, 'POST', `/rooms/v1/${code}/credentials`, undefined, { name: 'Survivor' });
    const { client, answer } = await RoomClient.join(credential.body);
    expect(answer).toMatchObject({ ok: true, data: { status: 'joined' } });
    expect((await client.ok('sendChat', { text: 'still up' })).message.text).toBe('still up');
    client.close();
  });
});

function untilDrainedOrEnded(connection: RawConnection): Promise<void> {
  return new Promise((resolve) => {
    connection.socket.once('drain', () => resolve());
    void connection.waitForEnd(10_000).then(() => resolve());
  });
}
