/**
 * The control plane's end of one media node's control channel: an authenticated WebSocket (node-auth.ts), requests
 * with ids and timeouts, answers mapped back to AppErrors, and the node's shard events passed on.
 */
import { EventEmitter } from 'node:events';
import WebSocket from 'ws';
import { AppError, type ErrorCode } from '../../shared/errors';
import { CREDENTIAL_HEADER, PROOF_HEADER, createCredential, verifyProof } from './node-auth';
import { MAX_FRAME_BYTES, parseNodeMessage, type EventFrame, type NodeMethod, type ShardMethod } from './node-protocol';

/** How long a request waits for the node's answer by default. */
export const REQUEST_TIMEOUT_MS = 10_000;
const CONNECT_TIMEOUT_MS = 5_000;
/** Error codes a node's answer keeps; anything else is the node's own failure. */
const PASSED_CODES = new Set<ErrorCode>(['not_found', 'conflict', 'validation_failed']);

/** The link's events: a shard event from the node, and the channel's end (the node stopped, died or was unreachable). */
export interface NodeLinkEvents {
  event: [EventFrame];
  closed: [];
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/** The error a request gets when the node cannot answer it. */
function unavailable(detail: string): AppError {
  return AppError.conflict(`The media node is unavailable (${detail}); the room moves to new media`);
}

/** One open, authenticated control channel to a node. */
export class NodeLink extends EventEmitter<NodeLinkEvents> {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private ended = false;

  private constructor(
    private readonly socket: WebSocket,
    private readonly timeoutMs: number,
  ) {
    super();
    socket.on('message', (data) => this.received(data));
    socket.on('close', () => this.end());
    socket.on('error', () => this.end());
  }

  /** Opens the channel to `url` and checks the node's proof; rejects when the node refuses or cannot prove the secret. */
  static connect(url: string, secret: string, timeoutMs = REQUEST_TIMEOUT_MS): Promise<NodeLink> {
    const { header, nonce } = createCredential(secret);
    const socket = new WebSocket(url, {
      headers: { [CREDENTIAL_HEADER]: header },
      maxPayload: MAX_FRAME_BYTES,
      handshakeTimeout: CONNECT_TIMEOUT_MS,
    });
    return new Promise((resolve, reject) => {
      let proven = false;
      const fail = (why: string) => {
        socket.terminate();
        reject(new Error(`media node ${url}: ${why}`));
      };
      socket.once('upgrade', (res) => {
        proven = verifyProof(secret, nonce, res.headers[PROOF_HEADER] as string | undefined);
      });
      socket.once('unexpected-response', (_req, res) => fail(`refused the connection (HTTP ${res.statusCode})`));
      socket.once('error', (error) => fail(error.message));
      socket.once('open', () => {
        if (!proven) return fail('could not prove it holds SVC_NODE_SECRET');
        socket.removeAllListeners('error');
        resolve(new NodeLink(socket, timeoutMs));
      });
    });
  }

  /** True until the channel closed. */
  get open(): boolean {
    return !this.ended;
  }

  /** Runs a method on the node (on `shard` for shard methods) and resolves with its result. */
  request(method: NodeMethod | ShardMethod, shard: string | undefined, args: unknown[]): Promise<unknown> {
    if (this.ended) return Promise.reject(unavailable('its control channel closed'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(unavailable(`no answer to ${method} within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.socket.send(JSON.stringify({ id, method, shard, args }), (error) => {
        if (error) this.settle(id, () => reject(unavailable(error.message)));
      });
    });
  }

  /** Closes the channel (the node closes every shard it holds for this control plane). */
  close(): void {
    this.socket.close();
    this.end();
  }

  private received(data: WebSocket.RawData): void {
    const frame = parseNodeMessage(Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer));
    if (!frame) return;
    if ('event' in frame) {
      this.emit('event', frame);
      return;
    }
    const entry = this.pending.get(frame.id);
    if (!entry) return;
    this.settle(frame.id, () => {
      if (frame.ok) return entry.resolve(frame.result);
      const { code, detail, errors } = frame.error;
      if (PASSED_CODES.has(code)) return entry.reject(new AppError(code, detail, errors ? { errors, param: errors[0]?.param } : {}));
      entry.reject(new AppError('internal_error', 'The media node failed to run the request'));
    });
  }

  private settle(id: number, then: () => void): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.pending.delete(id);
    then();
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.socket.terminate();
    for (const [id, entry] of [...this.pending]) this.settle(id, () => entry.reject(unavailable('its control channel closed')));
    this.emit('closed');
  }
}
