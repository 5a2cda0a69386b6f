import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { PeerConnection } from '../../rooms/peer';
import type { PeerInRoom } from '../../rooms/room';
import { handleRoomRequest } from '../../rooms/room.handlers';
import {
  connectMcpClient,
  FakeRoomMediaProvider,
  fakeRtpCapabilities,
  newHolderSecret,
  principalIn,
  resultText,
  seedMeeting,
  startTestServer,
  type TestServer,
} from '../../testing';

let t: TestServer;
let client: Client;

beforeAll(async () => {
  t = await startTestServer();
  t.services.rooms.useMedia(new FakeRoomMediaProvider());
  client = await connectMcpClient(t.url, t.key(['meetings:read']));
});
afterAll(async () => {
  await client.close();
  await t.close();
});

const quiet: PeerConnection = { notify: () => undefined, close: () => undefined };

async function joined(m: { id: string; code: string }, name: string, host = false): Promise<PeerInRoom> {
  const hostToken = host ? new URL(t.services.roomLinks.hostLink(principalIn(t, t.org.id), m.id).url).searchParams.get('host') : null;
  const body = hostToken ? { name, host: hostToken, holder: newHolderSecret() } : { name };
  const { credential } = t.services.roomAccess.issueCredential(m.code, body, 'ws://test');
  const session = await t.services.rooms.connect(t.services.roomAccess.admissionOf(credential), quiet);
  t.services.rooms.join(session, fakeRtpCapabilities());
  return session;
}

const call = (session: PeerInRoom, method: 'raiseHand' | 'createTransport' | 'produce' | 'makeCoHost', data: unknown) =>
  handleRoomRequest(session, method, data, t.services.rooms);

async function listParticipants(meeting: string) {
  const result = await client.callTool({ name: 'list_participants', arguments: { meeting } });
  if (result.isError) throw new Error(resultText(result));
  const { tools } = await client.listTools();
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  const validate = ajv.compile(tools.find((tool) => tool.name === 'list_participants')!.outputSchema!);
  expect({ valid: validate(result.structuredContent), errors: validate.errors ?? null }).toEqual({ valid: true, errors: null });
  return result.structuredContent as { live: boolean; locked: boolean; participants: Record<string, unknown>[]; raised_hands: unknown[] };
}

describe('MCP list_participants', () => {
  it('lists who is in a live room with role, raised hands in order and media state; an empty room is not live', async () => {
    const m = seedMeeting(t, { title: 'Standup' });
    expect(await listParticipants(m.code)).toMatchObject({ live: false, locked: false, participants: [], raised_hands: [] });

    const host = await joined(m, 'Hana', true);
    const ann = await joined(m, 'Ann');
    const bob = await joined(m, 'Bob');
    const { id: transportId } = (await call(ann, 'createTransport', { direction: 'send' })) as { id: string };
    await call(ann, 'produce', { transportId, kind: 'audio', rtpParameters: {}, source: 'microphone', paused: true });
    await call(bob, 'raiseHand', {});
    await call(ann, 'raiseHand', {});
    await call(host, 'makeCoHost', { peerId: bob.peer.id });

    const listed = await listParticipants(m.id);
    expect(listed.live).toBe(true);
    expect(listed.participants).toEqual([
      expect.objectContaining({ name: 'Hana', role: 'host', hand_raised: false, hand_order: null, microphone: 'off' }),
      expect.objectContaining({ name: 'Ann', role: 'guest', hand_raised: true, hand_order: 2, microphone: 'muted', camera: 'off' }),
      expect.objectContaining({ name: 'Bob', role: 'co-host', hand_raised: true, hand_order: 1 }),
    ]);
    expect(listed.raised_hands).toEqual([
      expect.objectContaining({ name: 'Bob', order: 1 }),
      expect.objectContaining({ name: 'Ann', order: 2 }),
    ]);
  });
});
