/**
 * A stand-in for the service's embed page, speaking protocol v1 as the tests tell it: it records every message it
 * receives and posts what `window.__fakeRoom` is asked to (the tests drive it from outside).
 */
import { EMBED_PROTOCOL_VERSION, EMBED_SOURCE, type EmbedEventMap, type EmbedEventType } from '@svc/embed';

/** A message the fake room received. */
interface FakeRoomMessage {
  origin: string;
  data: unknown;
  fromParent: boolean;
}

/** The handle the tests use. */
interface FakeRoom {
  received: FakeRoomMessage[];
  /** Posts a protocol v1 event to the parent, at the origin the page was given (`?origin=`). */
  event<T extends EmbedEventType>(type: T, fields: EmbedEventMap[T]): void;
  /** Posts anything to the parent with any target origin. */
  post(message: unknown, targetOrigin: string): void;
}

const hostOrigin = new URLSearchParams(window.location.search).get('origin') ?? '';
const fakeRoom: FakeRoom = {
  received: [],
  event(type, fields) {
    window.parent.postMessage({ ...fields, source: EMBED_SOURCE, v: EMBED_PROTOCOL_VERSION, dir: 'event', type }, hostOrigin);
  },
  post(message, targetOrigin) {
    window.parent.postMessage(message, targetOrigin);
  },
};
window.addEventListener('message', (message) => {
  fakeRoom.received.push({ origin: message.origin, data: message.data, fromParent: message.source === window.parent });
});
(window as unknown as { __fakeRoom: FakeRoom }).__fakeRoom = fakeRoom;
