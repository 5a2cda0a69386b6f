import { Emitter } from './emitter';
import type { EmbedEventMap } from './embed-protocol';
import type { Caption, LeaveReason, ParticipantRole } from './protocol';

/** What happens in the room, as an embedding page may want to hear it (forwarded with postMessage by the embed wrapper). */
export interface RoomEventMap {
  joined: { participant: { identity: string; name: string; role: ParticipantRole }; meeting: { code: string; title: string } };
  left: { reason: LeaveReason };
  'participant-count': { count: number };
  recording: { active: boolean };
  /** The local microphone (audio) or camera (video) was switched on or off. */
  media: { kind: 'audio' | 'video'; on: boolean };
  /** A live caption (while captions are on). */
  caption: Caption;
  /** A poll opened or closed (with its results). */
  poll: EmbedEventMap['poll'];
  /** Moved into or back from a breakout room. */
  breakout: EmbedEventMap['breakout'];
  /** Someone raised or lowered their hand, or reacted. */
  'hand-raised': EmbedEventMap['hand-raised'];
  'hand-lowered': EmbedEventMap['hand-lowered'];
  reaction: EmbedEventMap['reaction'];
}

/** A room event name. */
export type RoomEventType = keyof RoomEventMap;

/** The page's typed room events; one instance per page. */
export class RoomEvents extends Emitter<RoomEventMap> {}
