import type { MediaSource } from './protocol';
import type { ReceiveStats } from './receive-stats';
import type { RoomSession } from './room-session';
import type { RoomEvents } from './room-events';

/**
 * `window.__svcRoom`: a test and debugging handle (not an API for embedders, who use RoomEvents through
 * the embed wrapper). Browser tests read receive statistics and timings through it.
 */
export interface SvcRoomHandle {
  /** The local peer's id in the room, or null before joining. */
  peerId(): string | null;
  /** Inbound RTP totals of the receive transport (bytes per kind, video frames decoded). */
  receiveStats(): Promise<ReceiveStats>;
  /** performance.now() of the Join click and of the first remote video frame rendered after it (null until then). */
  timings(): { joinClickedAt: number | null; firstRemoteFrameAt: number | null };
  /** The session's phase: prejoin, connecting, waiting, joined, reconnecting, ended. */
  phase(): string;
  /** The sources the page sends to the room (those with a producer). */
  sending(): MediaSource[];
  /** Drops the signalling socket as a network blip would; the page reconnects on its own. */
  dropSocket(): void;
  events: RoomEvents;
}

declare global {
  interface Window {
    __svcRoom?: SvcRoomHandle;
  }
}

/** What the handle reads from the page. */
export interface DebugSource {
  session: RoomSession | null;
  joinClickedAt: number | null;
  firstRemoteFrameAt: number | null;
}

/** Installs `window.__svcRoom` over `source` (read at each call, so it follows rejoins). */
export function installDebugHandle(source: DebugSource, events: RoomEvents): void {
  window.__svcRoom = {
    peerId: () => source.session?.selfId ?? null,
    receiveStats: async () =>
      source.session
        ? source.session.receiveStats()
        : {
            peerId: null,
            transportId: null,
            audio: { bytesReceived: 0, packetsReceived: 0, streams: 0 },
            video: { bytesReceived: 0, framesDecoded: 0, streams: 0, frameWidth: 0 },
          },
    timings: () => ({ joinClickedAt: source.joinClickedAt, firstRemoteFrameAt: source.firstRemoteFrameAt }),
    phase: () => source.session?.phase ?? 'prejoin',
    sending: () => source.session?.sendingSources ?? [],
    dropSocket: () => source.session?.dropSocket(),
    events,
  };
}
