/**
 * A media node's control channel listener: plain HTTP that only upgrades to a WebSocket, and only for a request
 * carrying a valid credential (node-auth.ts); anything else is refused before a WebSocket exists. Each accepted
 * channel gets its own ShardDispatcher; its shards close when it does.
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Logger } from '../../shared/logger';
import { CREDENTIAL_HEADER, CredentialVerifier, PROOF_HEADER, proofFor } from './node-auth';
import { MAX_FRAME_BYTES } from './node-protocol';
import { ShardDispatcher, type ShardFactory } from './shard-dispatcher';

/** How the control channel listens and what it serves. */
export interface ControlServerOptions {
  host: string;
  port: number;
  secret: string;
  createShard: ShardFactory;
  logger: Logger;
}

/** The running control channel listener. */
export interface ControlServer {
  /** The port it listens on (the one asked for, or the one picked for port 0). */
  port: number;
  /** The dispatchers of the open channels (for load and drain). */
  channels(): readonly ShardDispatcher[];
  /** Stops listening and closes every channel (and with them their shards). */
  close(): Promise<void>;
}

/** A channel whose control plane missed a ping this long is closed (with its shards). */
const PING_INTERVAL_MS = 5_000;

function refuse(socket: Duplex, status: string): void {
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/** Starts listening for the control plane on `host`:`port`. */
export async function startControlServer(options: ControlServerOptions): Promise<ControlServer> {
  const { logger } = options;
  const verifier = new CredentialVerifier(options.secret);
  const nonces = new WeakMap<http.IncomingMessage, string>();
  const dispatchers = new Map<WebSocket, ShardDispatcher>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  wss.on('headers', (headers, req) => headers.push(`${PROOF_HEADER}: ${proofFor(options.secret, nonces.get(req)!)}`));

  const server = http.createServer((_req, res) => res.writeHead(426, { connection: 'close' }).end());
  server.on('clientError', (_error, socket) => socket.destroy());
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const nonce = verifier.verify(req.headers[CREDENTIAL_HEADER]);
    if (!nonce) {
      logger.warn('media node: refused a control connection without a valid credential', { remote: req.socket.remoteAddress });
      return refuse(socket, '401 Unauthorized');
    }
    nonces.set(req, nonce);
    wss.handleUpgrade(req, socket, head, (ws) => accept(ws));
  });

  const accept = (ws: WebSocket) => {
    const dispatcher = new ShardDispatcher(
      options.createShard,
      (frame) => {
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
      },
      logger,
    );
    dispatchers.set(ws, dispatcher);
    logger.info('media node: control plane connected');
    // A control plane cut off without a FIN (a partition) would otherwise hold its shards until TCP gives up.
    let answered = true;
    ws.on('pong', () => (answered = true));
    const ping = setInterval(() => {
      if (!answered) return ws.terminate();
      answered = false;
      ws.ping();
    }, PING_INTERVAL_MS);
    ws.on('message', (data) => void dispatcher.handle(Array.isArray(data) ? Buffer.concat(data) : data));
    ws.on('error', () => ws.terminate());
    ws.on('close', () => {
      clearInterval(ping);
      dispatchers.delete(ws);
      dispatcher.closeAll();
      logger.info('media node: control plane disconnected; its shards closed');
    });
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (error) => logger.error('media node: control channel error', { error: error.message }));
  return {
    port: (server.address() as { port: number }).port,
    channels: () => [...dispatchers.values()],
    close: async () => {
      for (const ws of dispatchers.keys()) ws.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
