/** What every host page shares: its settings from the query, and the records the browser tests read on `window`. */
import type { EmbedEvent } from '@svc/embed';
import type { SvcMeetingHandle } from '@svc/embed-react';

/** A message the host page received, whoever sent it. */
export interface ReceivedMessage {
  origin: string;
  data: unknown;
  /** Whether it came from the window of the meeting's iframe. */
  fromMeetingFrame: boolean;
}

/** The commands of a meeting: the instance (script tag, ES module) and the React ref handle both offer them. */
export type MeetingCommands = SvcMeetingHandle;

/** What a host page puts on `window` for the tests. */
export interface HostPageGlobals {
  /** Every event the meeting delivered (`onEvent`). */
  __events: EmbedEvent[];
  /** Every message the page received, delivered to the meeting or not. */
  __messages: ReceivedMessage[];
  /** The instance (or the React ref handle) once created. */
  __meeting?: MeetingCommands;
  /** Why creating the meeting failed, if it did. */
  __createError?: string;
  /** How many `message` listeners others (the SDK) have added to the window and not removed. */
  __messageListenerCount(): number;
}

/** The page's settings: `?service=<service URL>&options=<JSON of the SvcMeeting options>`. */
export interface HostPageQuery {
  serviceUrl: string;
  options: Record<string, unknown>;
}

/** The host page's window with its records. */
export function hostWindow(): Window & HostPageGlobals {
  return window as unknown as Window & HostPageGlobals;
}

/** Reads the settings from the query and starts the records; call before creating the meeting. */
export function startHostPage(): HostPageQuery {
  const query = new URLSearchParams(window.location.search);
  const settings = { serviceUrl: query.get('service') ?? '', options: JSON.parse(query.get('options') ?? '{}') as Record<string, unknown> };
  const host = hostWindow();
  host.__events = [];
  host.__messages = [];
  window.addEventListener('message', (message) => {
    const frame = document.querySelector('#meeting iframe') as HTMLIFrameElement | null;
    host.__messages.push({
      origin: message.origin,
      data: message.data,
      fromMeetingFrame: message.source !== null && message.source === frame?.contentWindow,
    });
  });
  countMessageListeners(host);
  return settings;
}

/** Records an event the meeting delivered. */
export function recordEvent(event: EmbedEvent): void {
  hostWindow().__events.push(event);
}

/** Wraps the window's add/removeEventListener to count the `message` listeners added from now on. */
function countMessageListeners(host: Window & HostPageGlobals): void {
  const listeners = new Set<unknown>();
  const add = window.addEventListener.bind(window);
  const remove = window.removeEventListener.bind(window);
  window.addEventListener = ((type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions) => {
    if (type === 'message') listeners.add(listener);
    add(type, listener, options);
  }) as typeof window.addEventListener;
  window.removeEventListener = ((type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions) => {
    if (type === 'message') listeners.delete(listener);
    remove(type, listener, options);
  }) as typeof window.removeEventListener;
  host.__messageListenerCount = () => listeners.size;
}

/** Runs `create`, keeping its error message for the tests instead of only logging it. */
export function createRecordingErrors(create: () => MeetingCommands): void {
  try {
    hostWindow().__meeting = create();
  } catch (error) {
    hostWindow().__createError = error instanceof Error ? error.message : String(error);
    throw error;
  }
}
