import type { Room } from './room';
import type { Caption } from './room.protocol';

/** A meeting's live transcript as agents read it. */
export interface LiveTranscript {
  /** True while captions are on in the meeting's room. */
  captions_on: boolean;
  /** The latest final captions, oldest first. */
  lines: Caption[];
}

/** Live captions of rooms, as the rooms service controls them (implemented in captions/). */
export interface RoomCaptions {
  /** Turns captions on or off in `room` and tells everyone there; conflict when the service cannot caption. */
  set(room: Room, on: boolean): void;
  /** True while captions are on in the meeting's room. */
  isOn(meetingId: string): boolean;
  /** The meeting's live transcript (no lines when nothing was captioned lately). */
  transcript(meetingId: string): LiveTranscript;
}
