import type { RaisedHand } from '../../protocol';
import type { RoomEvents } from '../../room-events';
import type { RoomSession } from '../../room-session';

/** Forwards raised and lowered hands and reactions to the page's RoomEvents (the embed's hand-raised, hand-lowered and reaction events). */
export function forwardHandsAndReactions(session: RoomSession, events: RoomEvents): void {
  let before: RaisedHand[] = [];
  const nameOf = (peerId: string) => (peerId === session.selfId ? session.state?.self.name : session.peers.get(peerId)?.name) ?? '';
  session.events.on('joined', ({ state }) => (before = state.hands));
  session.events.on('hands', ({ hands, raised, lowered, by }) => {
    const self = (peerId: string) => peerId === session.selfId;
    for (const peerId of lowered ?? []) {
      const name = before.find((hand) => hand.peerId === peerId)?.name ?? nameOf(peerId);
      events.emit('hand-lowered', { participant: { id: peerId, name }, self: self(peerId), by: by ?? null });
    }
    const up = raised ? hands.find((hand) => hand.peerId === raised) : undefined;
    if (up) events.emit('hand-raised', { participant: { id: up.peerId, name: up.name }, order: up.order, self: self(up.peerId) });
    before = hands;
  });
  session.events.on('reaction', ({ peerId, emoji }) =>
    events.emit('reaction', { participant: { id: peerId, name: nameOf(peerId) }, emoji, self: peerId === session.selfId }),
  );
}
