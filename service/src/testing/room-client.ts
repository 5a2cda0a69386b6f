import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import type {
  JoinCredential,
  RoomMethod,
  RoomMethods,
  RoomNotification,
  RoomNotifications,
  RoomError,
  RoomState,
  WaitingPeer,
} from '../rooms/room.protocol';
import type { TestServer } from './harness';

export type { JoinCredential } from '../rooms/room.protocol';

/** A response frame as tests see it. */
export type RoomAnswer<M extends RoomMethod = RoomMethod> =
  { id: number | null; ok: true; data: RoomMethods[M]['result'] } | { id: number | null; ok: false; error: RoomError };

/** A signalling client for tests and benchmarks: requests, answers, and every notification kept in order. */
export class RoomClient {
  /** Every notification received, oldest first. */
  readonly notifications: { notification: RoomNotification; data: unknown }[] = [];
  /** Error frames that answered no request (id null). */
  readonly unsolicited: RoomAnswer[] = [];
  closeCode: number | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, (answer: RoomAnswer) => void>();
  private readonly waiters = new Set<() => void>();

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (raw) => {
      const frame = JSON.parse(raw.toString()) as { id?: number | null; notification?: RoomNotification; data?: unknown };
      if (frame.notification) this.notifications.push({ notification: frame.notification, data: frame.data });
      else if (typeof frame.id === 'number' && this.pending.has(frame.id)) {
        this.pending.get(frame.id)!(frame as RoomAnswer);
        this.pending.delete(frame.id);
      } else this.unsolicited.push(frame as RoomAnswer);
      this.changed();
    });
    ws.on('close', (code) => {
      this.closeCode = code;
      this.changed();
    });
  }

  /** Opens a socket at `url` (a JoinCredential's socket_url, or any URL for refusal tests); resolves once open. */
  static connect(url: string): Promise<RoomClient> {
    const ws = new WebSocket(url);
    const client = new RoomClient(ws);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(client));
      ws.once('error', reject);
    });
  }

  /** Connects with a credential and joins with `rtpCapabilities` (the router's own when omitted). */
  static async join(credential: JoinCredential, rtpCapabilities?: unknown): Promise<{ client: RoomClient; answer: RoomAnswer<'join'> }> {
    const client = await RoomClient.connect(credential.socket_url);
    const caps = rtpCapabilities ?? (await client.ok('getRouterRtpCapabilities', {})).rtpCapabilities;
    return { client, answer: await client.call('join', { rtpCapabilities: caps }) };
  }

  /** Sends a request and waits for its answer (ok or not). */
  call<M extends RoomMethod>(method: M, data: RoomMethods[M]['data']): Promise<RoomAnswer<M>> {
    return this.send({ id: this.nextId++, method, data }) as Promise<RoomAnswer<M>>;
  }

  /** Sends a request that must succeed and returns its result. */
  async ok<M extends RoomMethod>(method: M, data: RoomMethods[M]['data']): Promise<RoomMethods[M]['result']> {
    const answer = await this.call(method, data);
    if (!answer.ok) throw new Error(`${method} failed: ${answer.error.code} ${answer.error.message}`);
    return answer.data;
  }

  /** Sends any frame with an id (for malformed requests) and waits for the answer with that id (at most 10 s). */
  send(frame: { id: number } & Record<string, unknown>): Promise<RoomAnswer> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(frame.id);
        reject(new Error(`no answer to ${String(frame.method)} (id ${frame.id}) within 10 s`));
      }, 10_000);
      this.pending.set(frame.id, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      this.ws.send(JSON.stringify(frame));
    });
  }

  /** Sends raw text (unreadable frames) and waits for the next unsolicited error. */
  async sendRaw(text: string): Promise<RoomAnswer> {
    const seen = this.unsolicited.length;
    this.ws.send(text);
    await this.until(() => this.unsolicited.length > seen, 'an error frame');
    return this.unsolicited[seen]!;
  }

  /** The data of the first notification `name` after the first `skip` of them, waiting for it (at most 10 s). */
  async next<N extends RoomNotification>(name: N, skip = 0): Promise<RoomNotifications[N]> {
    const find = () => this.notifications.filter((n) => n.notification === name)[skip];
    await this.until(() => find() !== undefined, `notification ${name}`);
    return find()!.data as RoomNotifications[N];
  }

  /** Notifications `name` received so far. */
  all<N extends RoomNotification>(name: N): RoomNotifications[N][] {
    return this.notifications.filter((n) => n.notification === name).map((n) => n.data as RoomNotifications[N]);
  }

  /** For a host: the person called `name` once the waiting room, as last announced, lists them (at most 10 s). */
  async waitingPeer(name: string): Promise<WaitingPeer> {
    const find = () =>
      this.all('waiting')
        .at(-1)
        ?.peers.find((p) => p.name === name);
    await this.until(() => find() !== undefined, `${name} in the waiting room`);
    return find()!;
  }

  /** Resolves once the socket is closed (at most 10 s); returns the close code. */
  async closed(): Promise<number> {
    await this.until(() => this.closeCode !== null, 'the socket to close');
    return this.closeCode!;
  }

  close(): void {
    this.ws.close();
  }

  /** Waits (at most `ms`) until `condition` holds, re-checking whenever a frame arrives. */
  until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!condition()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`timed out waiting for ${what}`));
      }, ms);
      this.waiters.add(check);
    });
  }

  private changed(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}

/** A socket credential from the room page's API of a test server (a guest unless `body` carries a host or invite token). */
export async function roomCredential(
  t: TestServer,
  code: string,
  body: Record<string, unknown> = { name: 'Guest' },
): Promise<JoinCredential> {
  const res = await t.request('POST', `/rooms/v1/${code}/credentials`, { body });
  if (res.status !== 201) throw new Error(`credential refused: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as JoinCredential;
}

/** A host's socket credential, through a new host link made with `key`, redeemed by a new browser secret (`holder`). */
export async function hostRoomCredential(
  t: TestServer,
  key: string,
  meeting: { id: string; code: string },
  name = 'Host',
): Promise<JoinCredential> {
  const link = await t.request('POST', `/api/v1/public/meetings/${meeting.id}/host-links`, { key, body: {} });
  return roomCredential(t, meeting.code, { name, host: new URL(link.body.url).searchParams.get('host'), holder: newHolderSecret() });
}

/** A browser secret as the room page makes one: it binds the host links it redeems to this holder. */
export function newHolderSecret(): string {
  return randomBytes(24).toString('base64url');
}

/** Connects and joins; fails unless the peer is let straight in. */
export async function joinRoom(credential: JoinCredential): Promise<{ client: RoomClient; state: RoomState }> {
  const { client, answer } = await RoomClient.join(credential);
  if (!answer.ok || answer.data.status !== 'joined') throw new Error(`join failed: ${JSON.stringify(answer)}`);
  return { client, state: answer.data.state };
}
