import {
  EMBED_PROTOCOL_VERSION,
  EMBED_REACTIONS,
  EMBED_SOURCE,
  isEmbedMessage,
  type EmbedCommand,
  type EmbedEventMap,
  type EmbedEventType,
  type EmbedReaction,
  type EmbedTheme,
} from './embed-protocol';
import type { RoomEvents } from './room-events';

/** What the room does when the host page sends a command. */
export interface EmbedCommandHandlers {
  setMuted(kind: 'audio' | 'video', muted: boolean): void;
  leave(): void;
  toggleChat(): void;
  setTheme(theme: EmbedTheme): void;
  /** Joins from the pre-join screen (as its Join button). */
  join(): void;
  /** Raises (true) or lowers this participant's hand. */
  setHand(raised: boolean): void;
  /** Sends a reaction of the fixed set. */
  react(emoji: EmbedReaction): void;
}

const THEMES: readonly string[] = ['light', 'dark', 'system'];

/**
 * The room's side of the embed protocol: posts events to the one validated parent origin (never '*') and
 * accepts commands only from the parent window at that origin; anything else, or another version, is ignored.
 */
export class EmbedBridge {
  private readonly onMessage = (event: MessageEvent): void => this.receive(event);

  constructor(
    private readonly parentOrigin: string,
    private readonly handlers: EmbedCommandHandlers,
  ) {
    window.addEventListener('message', this.onMessage);
  }

  /** Posts one event to the parent page. */
  post<T extends EmbedEventType>(type: T, fields: EmbedEventMap[T]): void {
    if (window.parent === window) return;
    window.parent.postMessage({ source: EMBED_SOURCE, v: EMBED_PROTOCOL_VERSION, dir: 'event', type, ...fields }, this.parentOrigin);
  }

  /** Forwards the room's events (joined, left, participant count, recording, media). */
  forward(events: RoomEvents): void {
    events.on('joined', (e) => this.post('joined', e));
    events.on('left', (e) => this.post('left', e));
    events.on('participant-count', (e) => this.post('participant-count', e));
    events.on('recording', ({ active }) => this.post('recording', { active, mode: active ? 'started' : 'stopped' }));
    events.on('media', (e) => this.post('media', e));
    events.on('caption', (e) => this.post('caption', e));
    events.on('poll', (e) => this.post('poll', e));
    events.on('breakout', (e) => this.post('breakout', e));
    events.on('hand-raised', (e) => this.post('hand-raised', e));
    events.on('hand-lowered', (e) => this.post('hand-lowered', e));
    events.on('reaction', (e) => this.post('reaction', e));
  }

  private receive(event: MessageEvent): void {
    if (event.source !== window.parent || event.origin !== this.parentOrigin || !isEmbedMessage(event.data, 'command')) return;
    const command = event.data as EmbedCommand;
    switch (command.type) {
      case 'mute':
      case 'unmute':
        this.handlers.setMuted(command.kind === 'video' ? 'video' : 'audio', command.type === 'mute');
        break;
      case 'leave':
        this.handlers.leave();
        break;
      case 'toggleChat':
        this.handlers.toggleChat();
        break;
      case 'setTheme':
        if (THEMES.includes(command.theme)) this.handlers.setTheme(command.theme);
        break;
      case 'join':
        this.handlers.join();
        break;
      case 'raiseHand':
      case 'lowerHand':
        this.handlers.setHand(command.type === 'raiseHand');
        break;
      case 'sendReaction':
        if ((EMBED_REACTIONS as readonly string[]).includes(command.emoji)) this.handlers.react(command.emoji);
        break;
    }
  }
}
