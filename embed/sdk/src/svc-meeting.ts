import { embedUrl, frameCheckUrl } from './embed-url.js';
import {
  EMBED_EVENT_TYPES,
  EMBED_PROTOCOL_VERSION,
  EMBED_SOURCE,
  isEmbedMessage,
  type EmbedCommand,
  type EmbedCommandMap,
  type EmbedCommandType,
  type EmbedErrorReason,
  type EmbedEvent,
  type EmbedEventType,
  type EmbedFeatures,
  type EmbedLocale,
  type EmbedReaction,
  type EmbedTheme,
  EMBED_REACTIONS,
} from './protocol.js';

/** The options of a `SvcMeeting`: where to put the room, which meeting, and how it looks. */
export interface SvcMeetingOptions {
  /** The service's base URL, e.g. `https://meet.example.com` (the script-tag build defaults it to where the script came from). */
  baseUrl: string;
  /** Where the iframe is placed: a CSS selector or an element. */
  container: string | HTMLElement;
  /** A meeting code such as `abc-defg-hij`; the guest types a name unless `name` is given. Use this or `joinToken`. */
  meetingCode?: string;
  /** An embed token (`svc_et_...`) minted on your server with `POST /embed/tokens`; it fixes the name and features. */
  joinToken?: string;
  /** The pre-filled guest name (with `meetingCode` only; a token carries its own). */
  name?: string;
  /** The room's language, `en` by default; unknown languages fall back to English. */
  locale?: EmbedLocale | (string & {});
  /** `light`, `dark` or `system` (the default, following the viewer's colour scheme). */
  theme?: EmbedTheme;
  /** Parts of the room to switch off (with `meetingCode` only; a token carries its own). */
  features?: EmbedFeatures;
  /** Receives every event the room posts, and the `error` events the SDK itself reports. */
  onEvent?: (event: EmbedEvent) => void;
  /**
   * How long to wait for the room's `ready` before reporting `error` with reason `timeout`, in milliseconds
   * (default 15000; 0 never reports it).
   */
  readyTimeoutMs?: number;
  /**
   * Joins as soon as the room is ready, without its pre-join screen (the `join` command): for pages that already
   * asked for the camera and microphone, so the room opens them without a prompt. A guest needs a name (`name` or a token).
   */
  autoJoin?: boolean;
}

/** A handler of one event type. */
export type EmbedEventHandler<T extends EmbedEventType = EmbedEventType> = (event: EmbedEvent<T>) => void;

/** What `allow` grants the room: devices, screen sharing, sound without a click, fullscreen. */
export const IFRAME_ALLOW = 'camera; microphone; display-capture; autoplay; fullscreen';

/** The room's colour schemes. */
const THEMES: readonly EmbedTheme[] = ['light', 'dark', 'system'];

/** How long `ready` may take by default before the SDK reports `timeout`. */
export const DEFAULT_READY_TIMEOUT_MS = 15_000;

/** The refusals the service's frame check can name (a refused frame itself shows only the browser's error page). */
const FRAME_REFUSALS: readonly EmbedErrorReason[] = ['origin_not_allowed', 'token_invalid'];

/** A meeting room shown in an iframe inside `container`, and the channel to it (postMessage protocol v1). */
export class SvcMeeting {
  /** The room's iframe (removed from the page by `destroy()`). */
  readonly iframe: HTMLIFrameElement;
  readonly #roomOrigin: string;
  readonly #onEvent: ((event: EmbedEvent) => void) | undefined;
  readonly #handlers = new Map<EmbedEventType, Set<EmbedEventHandler>>();
  #pendingCommands: EmbedCommand[] = [];
  #ready = false;
  #destroyed = false;
  /** Whether the room has posted anything yet, or the SDK reported an error of its own: no further SDK error then. */
  #settled = false;
  #readyTimer: ReturnType<typeof setTimeout> | undefined;

  /** Checks the options, adds the iframe to the container and starts listening to the room. Throws on invalid options. */
  constructor(options: SvcMeetingOptions) {
    if (typeof options !== 'object' || options === null) throw new TypeError('SvcMeeting: options must be an object');
    const container = resolveContainer(options.container);
    const baseUrl = normalizeBaseUrl(options.baseUrl);
    const { meetingCode, joinToken } = checkMeeting(options);
    const theme = options.theme ?? 'system';
    checkTheme(theme);
    const locale = options.locale ?? 'en';
    if (typeof locale !== 'string' || locale === '') throw new TypeError('SvcMeeting: locale must be a language code such as "en"');
    if (options.name !== undefined && typeof options.name !== 'string') throw new TypeError('SvcMeeting: name must be a string');
    checkFeatures(options.features);
    if (options.onEvent !== undefined && typeof options.onEvent !== 'function')
      throw new TypeError('SvcMeeting: onEvent must be a function');
    const readyTimeoutMs = options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
    if (typeof readyTimeoutMs !== 'number' || !Number.isFinite(readyTimeoutMs) || readyTimeoutMs < 0)
      throw new TypeError('SvcMeeting: readyTimeoutMs must be a number of milliseconds, 0 or more');

    this.#roomOrigin = new URL(baseUrl).origin;
    this.#onEvent = options.onEvent;
    const iframe = document.createElement('iframe');
    iframe.src = embedUrl({
      baseUrl,
      locale,
      theme,
      hostOrigin: window.location.origin,
      meetingCode,
      joinToken,
      name: options.name,
      features: options.features,
    });
    iframe.allow = IFRAME_ALLOW;
    iframe.title = 'Meeting room';
    iframe.style.width = '100%';
    iframe.style.height = '100%';
    iframe.style.border = '0';
    this.iframe = iframe;
    window.addEventListener('message', this.#receive);
    container.appendChild(iframe);
    if (readyTimeoutMs > 0) {
      const seconds = Math.round(readyTimeoutMs / 100) / 10;
      this.#readyTimer = setTimeout(
        () => this.#reportError('timeout', `The meeting room did not load within ${seconds} s (no "ready" from ${this.#roomOrigin}).`),
        readyTimeoutMs,
      );
    }
    if (options.autoJoin !== undefined && typeof options.autoJoin !== 'boolean')
      throw new TypeError('SvcMeeting: autoJoin must be a boolean');
    if (options.autoJoin) this.join();
    this.#checkFrame(frameCheckUrl({ baseUrl, hostOrigin: window.location.origin, meetingCode, joinToken }));
  }

  /** Calls `handler` with each event of `type`; returns a function that stops it. */
  on<T extends EmbedEventType>(type: T, handler: EmbedEventHandler<T>): () => void {
    let handlers = this.#handlers.get(type);
    if (!handlers) this.#handlers.set(type, (handlers = new Set()));
    handlers.add(handler as EmbedEventHandler);
    return () => this.off(type, handler);
  }

  /** Stops calling `handler` for events of `type`. */
  off<T extends EmbedEventType>(type: T, handler: EmbedEventHandler<T>): void {
    this.#handlers.get(type)?.delete(handler as EmbedEventHandler);
  }

  /** Mutes the microphone, or the camera with `'video'`. */
  mute(kind?: 'audio' | 'video'): void {
    this.#send('mute', kind === undefined ? {} : { kind: checkKind(kind) });
  }

  /** Unmutes the microphone, or the camera with `'video'`. */
  unmute(kind?: 'audio' | 'video'): void {
    this.#send('unmute', kind === undefined ? {} : { kind: checkKind(kind) });
  }

  /** Leaves the room (the room then posts `left`). */
  leave(): void {
    this.#send('leave', {});
  }

  /** Joins from the pre-join screen, as its Join button does (sent once the room is ready). */
  join(): void {
    this.#send('join', {});
  }

  /** Raises this participant's hand (in the room). */
  raiseHand(): void {
    this.#send('raiseHand', {});
  }

  /** Lowers this participant's hand. */
  lowerHand(): void {
    this.#send('lowerHand', {});
  }

  /** Sends a reaction: one of 👍 👏 😂 ❤️ 🎉 😮 (the room drops more than 5 in 5 seconds). */
  sendReaction(emoji: EmbedReaction): void {
    if (!(EMBED_REACTIONS as readonly string[]).includes(emoji))
      throw new TypeError(`SvcMeeting: emoji must be one of ${EMBED_REACTIONS.join(' ')}`);
    this.#send('sendReaction', { emoji });
  }

  /** Opens or closes the chat panel. */
  toggleChat(): void {
    this.#send('toggleChat', {});
  }

  /** Switches the room to `light`, `dark` or `system`. */
  setTheme(theme: EmbedTheme): void {
    checkTheme(theme);
    this.#send('setTheme', { theme });
  }

  /** Removes the iframe and stops listening; later commands do nothing. Safe to call twice. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    window.removeEventListener('message', this.#receive);
    clearTimeout(this.#readyTimer);
    this.iframe.remove();
    this.#handlers.clear();
    this.#pendingCommands = [];
  }

  /** Sends a command now if the room said `ready`, else queues it until it does. */
  #send<T extends EmbedCommandType>(type: T, fields: EmbedCommandMap[T]): void {
    if (this.#destroyed) return;
    const command = { ...fields, source: EMBED_SOURCE, v: EMBED_PROTOCOL_VERSION, dir: 'command', type } as EmbedCommand;
    if (this.#ready) this.#post(command);
    else this.#pendingCommands.push(command);
  }

  #post(command: EmbedCommand): void {
    this.iframe.contentWindow?.postMessage(command, this.#roomOrigin);
  }

  /** Accepts only protocol v1 events from our own iframe's window at the service's origin; everything else is ignored. */
  readonly #receive = (message: MessageEvent): void => {
    if (message.source === null || message.source !== this.iframe.contentWindow) return;
    if (message.origin !== this.#roomOrigin) return;
    if (!isEmbedMessage(message.data, 'event') || !EMBED_EVENT_TYPES.includes(message.data.type as EmbedEventType)) return;
    const event = message.data as EmbedEvent;
    this.#settled = true;
    clearTimeout(this.#readyTimer);
    if (event.type === 'ready') {
      this.#ready = true;
      const pending = this.#pendingCommands;
      this.#pendingCommands = [];
      for (const command of pending) this.#post(command);
    }
    this.#deliver(event);
  };

  /**
   * A browser refuses a frame its page may not show without telling the parent, so the SDK asks the service the same
   * question (one small CORS request) and reports a refusal as `error`. Any failure of the check itself is ignored:
   * the room's own events, or the timeout, still speak.
   */
  #checkFrame(url: string): void {
    if (typeof fetch !== 'function') return;
    fetch(url, { mode: 'cors', credentials: 'omit', cache: 'no-store' })
      .then((response) => (response.ok ? response.json() : null))
      .then((check: { framable?: unknown; reason?: unknown } | null) => {
        if (check?.framable !== false || !FRAME_REFUSALS.includes(check.reason as EmbedErrorReason)) return;
        const reason = check.reason as 'origin_not_allowed' | 'token_invalid';
        this.#reportError(
          reason,
          reason === 'origin_not_allowed'
            ? `This page's origin (${window.location.origin}) is not on the meeting's allowed embed origins; add it with PUT /meetings/{code}/embed-origins.`
            : 'The embed token is not valid (changed, cut short, or signed by another service).',
        );
      })
      .catch(() => undefined);
  }

  /** Delivers an `error` event of the SDK's own, once, unless the room has spoken or the instance is destroyed. */
  #reportError(reason: EmbedErrorReason | 'timeout', message: string): void {
    if (this.#destroyed || this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#readyTimer);
    this.#deliver({ source: EMBED_SOURCE, v: EMBED_PROTOCOL_VERSION, dir: 'event', type: 'error', reason, message });
  }

  /** Calls `onEvent` and the handlers of the event's type; a throwing handler is reported and does not stop the others. */
  #deliver(event: EmbedEvent): void {
    const handlers = [...(this.#onEvent ? [this.#onEvent] : []), ...(this.#handlers.get(event.type) ?? [])];
    for (const handler of handlers) {
      try {
        handler(event);
      } catch (error) {
        reportError(error);
      }
    }
  }
}

function resolveContainer(container: unknown): HTMLElement {
  if (typeof container === 'string') {
    let element: Element | null;
    try {
      element = document.querySelector(container);
    } catch {
      throw new TypeError(`SvcMeeting: container "${container}" is not a valid CSS selector`);
    }
    if (!element) throw new Error(`SvcMeeting: no element matches the container selector "${container}"`);
    return element as HTMLElement;
  }
  if (typeof container === 'object' && container !== null && (container as Node).nodeType === Node.ELEMENT_NODE)
    return container as HTMLElement;
  throw new TypeError('SvcMeeting: container must be a CSS selector or an element');
}

function normalizeBaseUrl(baseUrl: unknown): string {
  if (typeof baseUrl !== 'string' || baseUrl === '')
    throw new TypeError("SvcMeeting: baseUrl is required: the service's URL, e.g. https://meet.example.com");
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`SvcMeeting: baseUrl "${baseUrl}" is not an absolute URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError(`SvcMeeting: baseUrl "${baseUrl}" must be an http(s) URL`);
  return url.origin + url.pathname.replace(/\/+$/, '');
}

function checkMeeting(options: SvcMeetingOptions): { meetingCode?: string; joinToken?: string } {
  const { meetingCode, joinToken } = options;
  if (meetingCode !== undefined && joinToken !== undefined)
    throw new TypeError('SvcMeeting: give either meetingCode or joinToken, not both');
  if (meetingCode === undefined && joinToken === undefined) throw new TypeError('SvcMeeting: meetingCode or joinToken is required');
  if (meetingCode !== undefined && (typeof meetingCode !== 'string' || meetingCode === ''))
    throw new TypeError('SvcMeeting: meetingCode must be a non-empty string');
  if (joinToken !== undefined && (typeof joinToken !== 'string' || joinToken === ''))
    throw new TypeError('SvcMeeting: joinToken must be a non-empty string');
  return { meetingCode, joinToken };
}

function checkTheme(theme: unknown): asserts theme is EmbedTheme {
  if (!THEMES.includes(theme as EmbedTheme))
    throw new TypeError(`SvcMeeting: theme must be one of ${THEMES.join(', ')}, not ${JSON.stringify(theme)}`);
}

function checkKind(kind: unknown): 'audio' | 'video' {
  if (kind !== 'audio' && kind !== 'video') throw new TypeError(`SvcMeeting: kind must be 'audio' or 'video', not ${JSON.stringify(kind)}`);
  return kind;
}

function checkFeatures(features: unknown): void {
  if (features === undefined) return;
  if (typeof features !== 'object' || features === null) throw new TypeError('SvcMeeting: features must be an object of booleans');
  for (const [feature, on] of Object.entries(features))
    if (typeof on !== 'boolean') throw new TypeError(`SvcMeeting: features.${feature} must be true or false`);
}
