/**
 * The embed postMessage protocol, version 1: what the room iframe and the host page say to each other.
 * The room page (web/room) and the SDKs both compile against this file; a page that does not use our SDK
 * follows docs/embed-protocol.md, which describes the same messages.
 */

/** `source` of every message of the protocol. */
export const EMBED_SOURCE = 'svc-embed';

/** `v` of every message of this version of the protocol. */
export const EMBED_PROTOCOL_VERSION = 1;

/** The room's colour scheme; `system` follows the viewer's `prefers-color-scheme`, live. */
export type EmbedTheme = 'light' | 'dark' | 'system';

/** The languages the room speaks; anything else falls back to English. */
export const EMBED_LOCALES = ['en', 'de', 'fr'] as const;

/** A language of the room. */
export type EmbedLocale = (typeof EMBED_LOCALES)[number];

/** Parts of the room an embedder may switch off (all on unless set to false). */
export interface EmbedFeatures {
  /** The chat panel. */
  chat?: boolean;
  /** The participants panel. */
  participants?: boolean;
  /** The screen-share button. */
  screenshare?: boolean;
}

/** Why the room is not available: the meeting does not exist, has ended or was cancelled; or the embed itself was refused. */
export type EmbedErrorReason = 'not_found' | 'ended' | 'cancelled' | 'token_invalid' | 'token_expired' | 'origin_not_allowed';

/**
 * Errors only the SDK reports (the room cannot post them): `timeout` when the room has not said `ready` within the
 * `readyTimeoutMs` option. (`origin_not_allowed` and `token_invalid` for a frame the browser refused also come from the
 * SDK, which asks the service; they keep the room's names.)
 */
export type EmbedSdkErrorReason = 'timeout';

/** Why the local participant left the room. */
export type EmbedLeftReason = 'left' | 'removed' | 'meeting-ended' | 'denied' | 'replaced';

/** The events the room posts to its parent page, by type. */
export interface EmbedEventMap {
  /** The page is started and accepts commands. */
  ready: Record<string, never>;
  joined: { participant: { identity: string; name: string; role: 'host' | 'guest' }; meeting: { code: string; title: string } };
  left: { reason: EmbedLeftReason };
  /** How many people are in the room. */
  'participant-count': { count: number };
  recording: { active: boolean; mode: 'started' | 'stopped' };
  /** A live caption while a host has captions on: what `speaker` (null when unknown) said; `final` once the utterance ended. */
  caption: { speaker: string | null; participant_id: string | null; text: string; final: boolean; at: string };
  /** The local microphone (`audio`) or camera (`video`) was switched on or off. */
  media: { kind: 'audio' | 'video'; on: boolean };
  /** The room is not available or the embed was refused (from the room, or from the SDK when the room cannot say). */
  error: { reason: EmbedErrorReason | EmbedSdkErrorReason; message: string };
  /** A host opened a poll, or closed it (`votes` per option are null while it is open, unless this participant is a host). */
  poll: { action: 'opened' | 'closed'; poll: EmbedPoll };
  /** Someone raised their hand (`self`: this participant); `order` is its place in the queue (1 went up first). */
  'hand-raised': { participant: EmbedParticipant; order: number; self: boolean };
  /** A raised hand went down: lowered by its owner, by a host (`by`: the host's name), or its owner left. */
  'hand-lowered': { participant: EmbedParticipant; self: boolean; by: string | null };
  /** Someone reacted with one of the fixed emoji (shown on their tile for a few seconds). */
  reaction: { participant: EmbedParticipant; emoji: EmbedReaction; self: boolean };
  /** This participant moved into a breakout room (`joined`) or back to the main room from one (`left`). */
  breakout: { action: 'joined' | 'left'; room: { id: string; name: string } };
}

/** Someone in the room as the hand and reaction events name them (`id`: their peer id in this room). */
export interface EmbedParticipant {
  id: string;
  name: string;
}

/** The reactions a participant may send (`sendReaction`), the same fixed set as the room's buttons. */
export const EMBED_REACTIONS = ['👍', '👏', '😂', '❤️', '🎉', '😮'] as const;

/** One of the reactions. */
export type EmbedReaction = (typeof EMBED_REACTIONS)[number];

/** A poll as the `poll` event carries it. */
export interface EmbedPoll {
  id: string;
  question: string;
  multiple: boolean;
  anonymous: boolean;
  options: { id: string; text: string; votes: number | null }[];
}

/** An event type. */
export type EmbedEventType = keyof EmbedEventMap;

/** An event as it travels: the envelope plus the event's fields. */
export type EmbedEvent<T extends EmbedEventType = EmbedEventType> = {
  [K in T]: { source: typeof EMBED_SOURCE; v: typeof EMBED_PROTOCOL_VERSION; dir: 'event'; type: K } & EmbedEventMap[K];
}[T];

/** The commands a host page may send to the room, by type. */
export interface EmbedCommandMap {
  /** Mutes the microphone, or the camera with `kind: 'video'`. */
  mute: { kind?: 'audio' | 'video' };
  unmute: { kind?: 'audio' | 'video' };
  leave: Record<string, never>;
  /** Opens or closes the chat panel. */
  toggleChat: Record<string, never>;
  setTheme: { theme: EmbedTheme };
  /** Joins from the pre-join screen as if its Join button was pressed (for pages that already asked for the devices). */
  join: Record<string, never>;
  /** Raises or lowers this participant's hand (in the room). */
  raiseHand: Record<string, never>;
  lowerHand: Record<string, never>;
  /** Sends a reaction; more than 5 in 5 seconds are dropped (the room shows why). */
  sendReaction: { emoji: EmbedReaction };
}

/** A command type. */
export type EmbedCommandType = keyof EmbedCommandMap;

/** A command as it travels. */
export type EmbedCommand<T extends EmbedCommandType = EmbedCommandType> = {
  [K in T]: { source: typeof EMBED_SOURCE; v: typeof EMBED_PROTOCOL_VERSION; dir: 'command'; type: K } & EmbedCommandMap[K];
}[T];

/** The event types, in the order the protocol lists them. */
export const EMBED_EVENT_TYPES: readonly EmbedEventType[] = [
  'ready',
  'joined',
  'left',
  'participant-count',
  'recording',
  'media',
  'caption',
  'error',
  'poll',
  'breakout',
  'hand-raised',
  'hand-lowered',
  'reaction',
];

/** The command types. */
export const EMBED_COMMAND_TYPES: readonly EmbedCommandType[] = [
  'mute',
  'unmute',
  'leave',
  'toggleChat',
  'setTheme',
  'join',
  'raiseHand',
  'lowerHand',
  'sendReaction',
];

/** Whether `data` is a message of this protocol and version going in direction `dir` (anything else is ignored). */
export function isEmbedMessage(data: unknown, dir: 'event' | 'command'): data is { source: string; v: number; dir: string; type: string } {
  if (typeof data !== 'object' || data === null) return false;
  const message = data as Record<string, unknown>;
  return message.source === EMBED_SOURCE && message.v === EMBED_PROTOCOL_VERSION && message.dir === dir && typeof message.type === 'string';
}
