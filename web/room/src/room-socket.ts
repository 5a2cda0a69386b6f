import { t } from './i18n';
import type { RoomError, RoomMethod, RoomMethods, RoomNotification, ServerNotificationFrame, ServerResponse } from './protocol';

/** A request the service answered with an error. */
export class RoomRequestError extends Error {
  constructor(
    readonly method: RoomMethod,
    readonly error: RoomError,
  ) {
    super(`${method}: ${error.code}: ${error.message}`);
  }
}

const REQUEST_TIMEOUT_MS = 15_000;

interface Pending {
  method: RoomMethod;
  resolve: (data: unknown) => void;
  reject: (err: Error) => void;
  timer: number;
}

/** One signalling WebSocket: typed requests with responses, and pushed notifications. */
export class RoomSocket {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** Called with each notification frame. */
  onNotification: (frame: ServerNotificationFrame) => void = () => {};
  /** Called once when the socket is closed, whoever closed it. */
  onClose: (event: { code: number; reason: string }) => void = () => {};

  private constructor(private readonly ws: WebSocket) {
    ws.addEventListener('message', (ev) => this.receive(ev.data));
    ws.addEventListener('close', (ev) => {
      for (const p of this.pending.values()) {
        clearTimeout(p.timer);
        p.reject(new Error(`${p.method}: the connection closed`));
      }
      this.pending.clear();
      this.onClose({ code: ev.code, reason: ev.reason });
    });
  }

  /** Opens the socket; rejects if it cannot connect within `timeoutMs`. */
  static open(url: string, timeoutMs = 10_000): Promise<RoomSocket> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      const timer = window.setTimeout(() => {
        ws.close();
        reject(new Error(t('error.connectTimeout')));
      }, timeoutMs);
      ws.addEventListener('open', () => {
        clearTimeout(timer);
        resolve(new RoomSocket(ws));
      });
      ws.addEventListener('error', () => {
        clearTimeout(timer);
        reject(new Error(t('error.connectFailed')));
      });
    });
  }

  /** True while frames can be sent. */
  get open(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  /** Sends a request and resolves with its result; rejects with `RoomRequestError`, or on timeout or close. */
  request<M extends RoomMethod>(method: M, data: RoomMethods[M]['data']): Promise<RoomMethods[M]['result']> {
    if (!this.open) return Promise.reject(new Error(`${method}: not connected`));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = window.setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method}: no answer within ${REQUEST_TIMEOUT_MS / 1000} s`));
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(id, { method, resolve: resolve as (data: unknown) => void, reject, timer });
      this.ws.send(JSON.stringify({ id, method, data }));
    });
  }

  /** Closes the socket (normal closure). */
  close(): void {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close(1000);
  }

  private receive(raw: unknown): void {
    if (typeof raw !== 'string') return;
    let frame: ServerResponse | ServerNotificationFrame;
    try {
      frame = JSON.parse(raw) as ServerResponse | ServerNotificationFrame;
    } catch {
      return;
    }
    if ('notification' in frame) {
      this.onNotification(frame as ServerNotificationFrame<RoomNotification>);
      return;
    }
    if (frame.id === null) return;
    const pending = this.pending.get(frame.id);
    if (!pending) return;
    this.pending.delete(frame.id);
    clearTimeout(pending.timer);
    if (frame.ok) pending.resolve(frame.data);
    else pending.reject(new RoomRequestError(pending.method, frame.error));
  }
}
