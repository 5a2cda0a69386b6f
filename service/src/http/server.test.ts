import net from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { listen, SERVER_LIMITS, type ServerLimits } from './server';

describe('the HTTP server bounds slow and numerous connections', () => {
  it('uses limits suited to an API of small requests', () => {
    expect(SERVER_LIMITS.headersTimeoutMs).toBeLessThanOrEqual(10_000);
    expect(SERVER_LIMITS.requestTimeoutMs).toBeLessThanOrEqual(30_000);
    expect(SERVER_LIMITS.requestTimeoutMs).toBeGreaterThan(SERVER_LIMITS.headersTimeoutMs);
    expect(SERVER_LIMITS.checkIntervalMs).toBeLessThanOrEqual(1_000);
    expect(SERVER_LIMITS.maxConnections).toBeGreaterThan(0);
    expect(SERVER_LIMITS.maxConnections).toBeLessThanOrEqual(1_024);
  });

  const app = express()
    .post('/echo', express.json(), (req, res) => res.json(req.body))
    .get('/ok', (_req, res) => res.send('ok'));
  const fast: ServerLimits = {
    headersTimeoutMs: 600,
    requestTimeoutMs: 1_200,
    keepAliveTimeoutMs: 500,
    checkIntervalMs: 100,
    maxConnections: 3,
  };
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = await listen(app, 0, '127.0.0.1', fast);
    port = (server.address() as net.AddressInfo).port;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });

  /** A raw connection; resolves `closed` with the time it stayed open and what the server sent. */
  const connect = () => {
    const socket = net.connect(port, '127.0.0.1');
    const opened = Date.now();
    let received = '';
    socket.on('data', (d) => (received += d.toString()));
    socket.on('error', () => {});
    const closed = new Promise<{ openMs: number; received: string }>((resolve) =>
      socket.on('close', () => resolve({ openMs: Date.now() - opened, received })),
    );
    return { socket, closed, ready: new Promise((resolve) => socket.once('connect', resolve)) };
  };

  // A test that "fails" by hanging would only hit jest's timeout; each waits for the close with its own bound.
  const within = <T>(promise: Promise<T>, ms: number) =>
    Promise.race([promise, new Promise<never>((_resolve, reject) => setTimeout(() => reject(new Error(`still open after ${ms} ms`)), ms))]);

  it('closes a connection that never finishes its headers', async () => {
    const slow = connect();
    await slow.ready;
    slow.socket.write('GET /ok HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    const drip = setInterval(() => slow.socket.writable && slow.socket.write('a'), 100);
    const { openMs, received } = await within(slow.closed, 5_000).finally(() => clearInterval(drip));
    expect(openMs).toBeGreaterThanOrEqual(fast.headersTimeoutMs - 50);
    expect(received).toMatch(/^HTTP\/1\.1 408/);
  });

  it('closes a connection whose body never finishes', async () => {
    const slow = connect();
    await slow.ready;
    slow.socket.write('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":');
    const drip = setInterval(() => slow.socket.writable && slow.socket.write(' '), 100);
    const { openMs } = await within(slow.closed, 5_000).finally(() => clearInterval(drip));
    expect(openMs).toBeGreaterThanOrEqual(fast.requestTimeoutMs - 50);
  });

  it('refuses connections beyond the cap, and serves again once one closes', async () => {
    const held = [connect(), connect(), connect()];
    await Promise.all(held.map((c) => c.ready));
    for (const c of held) c.socket.write('GET /ok HTTP/1.1\r\nHost: x\r\n');
    const extra = connect();
    const { received } = await within(extra.closed, 2_000);
    expect(received).toBe('');
    for (const c of held) c.socket.destroy();
    await Promise.all(held.map((c) => c.closed));
    const res = await within(fetch(`http://127.0.0.1:${port}/ok`), 2_000);
    expect(await res.text()).toBe('ok');
  });
});
