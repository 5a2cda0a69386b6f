import WebSocket, { WebSocketServer } from 'ws';
import { createLogger } from '../../shared/logger';
import { MediasoupRoomMedia } from '../mediasoup-room-media';
import { WorkerPool } from '../worker-pool';
import { CREDENTIAL_HEADER, createCredential, CredentialVerifier, PROOF_HEADER, verifyProof } from './node-auth';
import { NodeClient } from './node-client';
import { NodeLink } from './node-link';
import type { NodeRecord } from './node-registry';
import { startControlServer, type ControlServer } from './node-server';

const SECRET = 'a'.repeat(64);
const logger = createLogger('silent');

let pool: WorkerPool;
let server: ControlServer;
let url: string;
let shardsCreated = 0;

beforeAll(async () => {
  const minPort = 20_000 + Math.floor(Math.random() * 9_000);
  pool = await WorkerPool.start({ workers: 1, minPort, maxPort: minPort + 19, listenIp: '127.0.0.1', logLevel: 'error' });
  server = await startControlServer({
    host: '127.0.0.1',
    port: 0,
    secret: SECRET,
    logger,
    createShard: (meetingId, avoidSlots) => {
      shardsCreated++;
      return MediasoupRoomMedia.create(pool, meetingId, { avoidSlots });
    },
  });
  url = `ws://127.0.0.1:${server.port}`;
});
afterAll(async () => {
  await server.close();
  await pool.close();
});

const record = (): NodeRecord => ({
  id: 'n1',
  controlUrl: url,
  announcedAddress: '127.0.0.1',
  maxPeers: null,
  draining: false,
  startedAt: new Date().toISOString(),
  load: { workers: 1, routers: 0, transports: 0, consumers: 0, peers: 0, cpu: 0 },
});

/** A raw WebSocket to the node with `headers`; resolves with its upgrade response's status or proof once settled. */
function rawConnect(headers: Record<string, string>): Promise<{ socket?: WebSocket; status?: number; proof?: string }> {
  const socket = new WebSocket(url, { headers });
  return new Promise((resolve) => {
    let proof: string | undefined;
    socket.once('upgrade', (res) => (proof = res.headers[PROOF_HEADER] as string));
    socket.once('unexpected-response', (_req, res) => {
      socket.terminate();
      resolve({ status: res.statusCode });
    });
    socket.once('error', () => resolve({}));
    socket.once('open', () => resolve({ socket, proof }));
  });
}

describe('the control channel between the control plane and a media node', () => {
  it('refuses a connection without a credential, with a wrong secret, or replayed, before any method runs', async () => {
    const before = shardsCreated;
    expect((await rawConnect({})).status).toBe(401);
    const wrong = createCredential('b'.repeat(64));
    expect((await rawConnect({ [CREDENTIAL_HEADER]: wrong.header })).status).toBe(401);
    await expect(NodeLink.connect(url, 'c'.repeat(64))).rejects.toThrow(/refused the connection \(HTTP 401\)/);
    const good = createCredential(SECRET);
    const first = await rawConnect({ [CREDENTIAL_HEADER]: good.header });
    expect(verifyProof(SECRET, good.nonce, first.proof)).toBe(true);
    first.socket!.close();
    expect((await rawConnect({ [CREDENTIAL_HEADER]: good.header })).status).toBe(401);
    const stale = createCredential(SECRET, Date.now() - 120_000);
    expect((await rawConnect({ [CREDENTIAL_HEADER]: stale.header })).status).toBe(401);
    expect(shardsCreated).toBe(before);
  });

  it('accepts a credential once, within its window, and only with the right secret', () => {
    let now = 1_000_000;
    const verifier = new CredentialVerifier(SECRET, () => now);
    const { header, nonce } = createCredential(SECRET, now);
    expect(verifier.verify(header)).toBe(nonce);
    expect(verifier.verify(header)).toBeUndefined();
    expect(verifier.verify(createCredential(SECRET, now - 31_000).header)).toBeUndefined();
    expect(verifier.verify(createCredential('x'.repeat(40), now).header)).toBeUndefined();
    expect(verifier.verify(`${header}0`)).toBeUndefined();
    expect(verifier.verify(['a', 'b'])).toBeUndefined();
    now += 10_000;
    expect(verifier.verify(createCredential(SECRET, now).header)).toBeDefined();
  });

  it('a control plane refuses a node that cannot prove the secret', async () => {
    const impostor = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((resolve) => impostor.once('listening', resolve));
    const port = (impostor.address() as { port: number }).port;
    await expect(NodeLink.connect(`ws://127.0.0.1:${port}`, SECRET)).rejects.toThrow(/could not prove it holds SVC_NODE_SECRET/);
    await new Promise((resolve) => impostor.close(resolve));
  });

  it('ignores malformed frames, answers bad requests with errors, and keeps serving', async () => {
    const { header } = createCredential(SECRET);
    const { socket } = await rawConnect({ [CREDENTIAL_HEADER]: header });
    const ws = socket!;
    for (const frame of ['not json', '[1,2]', '{"id":-1}', '{"method":"createShard"}', '"x"', Buffer.from([0xff, 0xfe])]) ws.send(frame);
    const answers: Record<string, unknown>[] = [];
    ws.on('message', (data) => answers.push(JSON.parse(data.toString()) as Record<string, unknown>));
    ws.send(JSON.stringify({ id: 1, method: 'process.exit', args: [] }));
    ws.send(JSON.stringify({ id: 2, method: 'createTransport', args: ['p', 'send'] }));
    ws.send(JSON.stringify({ id: 3, method: 'createShard', args: [42, 'x'] }));
    ws.send(JSON.stringify({ id: 4, method: 'createTransport', shard: 'nope', args: ['p', 'send'] }));
    ws.send(JSON.stringify({ id: 5, method: 'createShard', args: ['m1', []] }));
    const deadline = Date.now() + 10_000;
    while (answers.length < 5 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const byId = new Map(answers.map((a) => [a.id, a]));
    expect((byId.get(1)!.error as { code: string }).code).toBe('validation_failed');
    expect((byId.get(2)!.error as { code: string }).code).toBe('validation_failed');
    expect((byId.get(3)!.error as { code: string }).code).toBe('validation_failed');
    expect((byId.get(4)!.error as { code: string }).code).toBe('conflict');
    expect(byId.get(5)).toMatchObject({ ok: true, result: { routerId: expect.any(String), slot: 0 } });
    // A frame over the size limit closes that channel only; the node goes on serving others.
    const closed = new Promise((resolve) => ws.once('close', resolve));
    ws.send('x'.repeat(1024 * 1024 + 1));
    await closed;
    const link = await NodeLink.connect(url, SECRET);
    expect(await link.request('createShard', undefined, ['m2', []])).toMatchObject({ routerId: expect.any(String) });
    link.close();
  });

  it('runs a remote shard: transports, errors as AppErrors of the same code, and the shards close with the channel', async () => {
    const client = await NodeClient.connect(record(), SECRET, logger);
    const shard = await client.createShard('meeting-1', []);
    expect(shard.place).toEqual({ nodeId: 'n1', slot: 0 });
    const transport = await shard.createTransport('peer-1', 'send');
    expect(transport.iceCandidates).toEqual(expect.arrayContaining([expect.objectContaining({ ip: '127.0.0.1' })]));
    expect(shard.peerCount()).toBe(1);
    expect(client.peerCount()).toBe(1);
    await expect(shard.connectTransport('peer-2', transport.id, {})).rejects.toMatchObject({ code: 'not_found' });
    await expect(shard.connectTransport('peer-1', transport.id, { fingerprints: 'bad' })).rejects.toMatchObject({
      code: 'validation_failed',
    });
    await expect(shard.consume('peer-1', 'no-such-producer', {})).resolves.toBeNull();
    const pipe = await shard.createPipeTransport();
    expect(pipe.local.ip).toBe('127.0.0.1');
    expect(() => shard.record()).toThrow(/need a media worker in the service/);
    const routersBefore = pool.health()[0]!.routers;
    expect(routersBefore).toBeGreaterThan(0);
    const lost = new Promise<void>((resolve) => shard.once('lost', () => resolve()));
    client.close();
    await lost;
    const deadline = Date.now() + 10_000;
    while (pool.health()[0]!.routers >= routersBefore && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(pool.health()[0]!.routers).toBeLessThan(routersBefore);
    await expect(shard.createTransport('peer-1', 'recv')).rejects.toMatchObject({ code: 'conflict' });
  });
});
