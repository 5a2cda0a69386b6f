import {
  hostRoomCredential,
  joinRoom,
  roomCredential,
  RoomClient,
  seedMeeting,
  startTestServer,
  type TestServer,
} from '@svc/service/testing';
import { ROOM_LIMITS } from '../rooms/room.protocol';

let t: TestServer;
let key: string;

beforeAll(async () => {
  t = await startTestServer({ SVC_ROOM_RATE_LIMIT_PER_SECOND: '100000' }, { media: true });
  key = t.key();
});
afterAll(() => t.close());

const meeting = () => seedMeeting(t);
const credential = (code: string, body?: Record<string, unknown>) => roomCredential(t, code, body);
const joined = joinRoom;
const status = (id: string) => t.services.meetings.findAnywhere(id).status;

describe('the room socket', () => {
  it('refuses a tampered or expired credential, and a meeting that ended since, with an error and a close code', async () => {
    const m = meeting();
    const cred = await credential(m.code);
    const tampered = await RoomClient.connect(cred.socket_url.replace(/credential=./, 'credential=X'));
    expect(await tampered.closed()).toBe(4401);
    expect(tampered.all('error')[0]!.code).toBe('unauthorized');
    // Well-formed claims under a signature that does not match them: a guest's credential rewritten to a host's.
    const [payload, signature] = cred.credential.split('.') as [string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const promoted = Buffer.from(JSON.stringify({ ...claims, r: 'host' })).toString('base64url');
    const otherSignature = `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const forged of [`${promoted}.${signature}`, `${payload}.${otherSignature}`]) {
      const client = await RoomClient.connect(cred.socket_url.replace(cred.credential, forged));
      expect(await client.closed()).toBe(4401);
      expect(client.all('error')[0]!.code).toBe('unauthorized');
    }

    t.clock.advance(11 * 60 * 1000);
    const expired = await RoomClient.connect(cred.socket_url);
    expect(await expired.closed()).toBe(4401);

    const ended = meeting();
    const late = await credential(ended.code);
    const { client: host } = await joined(await hostRoomCredential(t, key, ended));
    t.services.meetings.end(t.services.meetings.findAnywhere(ended.id));
    await host.closed();
    const refused = await RoomClient.connect(late.socket_url);
    expect(await refused.closed()).toBe(4409);
    expect(refused.all('error')[0]).toMatchObject({ code: 'meeting_unavailable', reason: 'ended' });
  });

  it('answers bad frames with errors and changes nothing', async () => {
    const m = meeting();
    const { client: ann } = await joined(await credential(m.code, { name: 'Ann' }));
    const { client: bob } = await joined(await credential(m.code, { name: 'Bob' }));

    expect(await ann.send({ id: 7, method: 'format disk' })).toMatchObject({ id: 7, ok: false, error: { code: 'method_not_allowed' } });
    expect(await ann.send({ id: 8, method: 'toString' })).toMatchObject({ ok: false, error: { code: 'method_not_allowed' } });
    expect(await ann.sendRaw('{not json')).toMatchObject({ id: null, ok: false, error: { code: 'invalid_json' } });
    expect(await ann.sendRaw('[1,2]')).toMatchObject({ ok: false, error: { code: 'validation_failed' } });
    expect(await ann.sendRaw('{"method":"leave"}')).toMatchObject({ ok: false, error: { code: 'validation_failed' } });
    expect(await ann.sendRaw(JSON.stringify({ id: 9, method: 'sendChat', data: { text: 'x'.repeat(70_000) } }))).toMatchObject({
      ok: false,
      error: { code: 'payload_too_large' },
    });
    expect(await ann.call('createTransport', { direction: 'sideways' } as never)).toMatchObject({
      ok: false,
      error: { code: 'validation_failed' },
    });
    expect(await ann.call('sendChat', { text: 'hi', extra: 1 } as never)).toMatchObject({
      ok: false,
      error: { code: 'validation_failed' },
    });
    expect(await ann.call('sendChat', { text: ' \n ' })).toMatchObject({ ok: false, error: { code: 'validation_failed' } });
    // Within the frame limit but over the chat limit.
    expect(await ann.call('sendChat', { text: 'x'.repeat(ROOM_LIMITS.maxChatLength + 1) })).toMatchObject({
      ok: false,
      error: { code: 'validation_failed' },
    });
    expect((await ann.ok('sendChat', { text: 'x'.repeat(ROOM_LIMITS.maxChatLength) })).message.text).toHaveLength(
      ROOM_LIMITS.maxChatLength,
    );
    expect(await ann.call('join', { rtpCapabilities: {} })).toMatchObject({ ok: false, error: { code: 'conflict' } });

    expect(ann.closeCode).toBeNull();
    expect((await ann.ok('sendChat', { text: 'still here' })).message.text).toBe('still here');
    expect((await bob.next('chatMessage', 1)).message.text).toBe('still here');
    expect(status(m.id)).toBe('live');
    expect(
      t.services.rooms
        .liveRooms()
        .find((r) => r.meeting.id === m.id)!
        .joined(),
    ).toHaveLength(2);
    ann.close();
    bob.close();
  });

  it('answers other paths with 404 and closes the connection', async () => {
    await expect(RoomClient.connect(`${t.url.replace('http', 'ws')}/rooms/v1/elsewhere`)).rejects.toThrow(/404/);
  });
});
