import type { EmbedFeatures } from '../embed-protocol';
import type { Emitter } from '../emitter';
import type { RoomSession } from '../room-session';
import type { SessionEventMap } from '../session-events';
import type { Panels } from './panels';

/** A place in the room's frame: what is added there stands in the frame's order, after what was added before. */
export interface Spot {
  add(...nodes: Node[]): void;
}

/** Where a feature puts its parts in the room's frame, and what the frame does for every feature. */
export interface RoomSlot {
  /** Right after the meeting's title (the recording badge). */
  headerBadges: Spot;
  /** The header's right end, before the participant count (the layout switch). */
  headerTools: Spot;
  /** The main area, left of the side panel. */
  stage: Spot;
  /** Between the main area and the toolbar (the waiting list). */
  aside: Spot;
  /** The toolbar's start (the media buttons). */
  toolsStart: Spot;
  /** The toolbar's middle group (invite, people, chat, settings, record). */
  tools: Spot;
  /** The toolbar's end (end meeting, leave). */
  toolsEnd: Spot;
  /** The end of the page (dialogs, audio sinks). */
  end: Spot;
  /** The side panel that people, chat and settings share. */
  panels: Panels;
  /** Shows a short message for four seconds. */
  toast(text: string, testId?: string): void;
  /** What the embedding page switched off (empty when not embedded). */
  features: EmbedFeatures;
  /** Called when a remote video frame is first rendered (the join-to-first-frame measure). */
  onRemoteFrame(): void;
}

/** Undoes what `mount` did: removes the feature's parts and stops its listeners. */
export type Dispose = () => void;

/** A spot before `anchor` (a comment node that stays where the frame put it). */
export function spotBefore(anchor: Node): Spot {
  return { add: (...nodes) => anchor.parentNode!.insertBefore(fragment(nodes), anchor) };
}

/** A spot at the end of `parent`. */
export function spotIn(parent: Element): Spot {
  return { add: (...nodes) => parent.append(...nodes) };
}

function fragment(nodes: Node[]): DocumentFragment {
  const f = document.createDocumentFragment();
  f.append(...nodes);
  return f;
}

/** Collects what a feature must undo; `dispose` runs it all once. */
export class Cleanup {
  private readonly steps: (() => void)[] = [];

  /** Runs `step` on dispose (an unsubscribe, a disconnect, a listener removal). */
  add(step: () => void): void {
    this.steps.push(step);
  }

  /** Listens to `type` on `emitter` until dispose. */
  on<E extends object, K extends keyof E>(emitter: Emitter<E>, type: K, fn: (payload: E[K]) => void): void {
    this.add(emitter.on(type, fn));
  }

  /** Removes `elements` from the page on dispose. */
  remove(...elements: ChildNode[]): void {
    this.add(() => elements.forEach((el) => el.remove()));
  }

  /** Runs every step, last first. */
  readonly dispose: Dispose = () => {
    for (const step of this.steps.splice(0).reverse()) step();
  };
}

/** A function that listens to the session's `type` events until `cleanup` disposes. */
export function sessionListener(session: RoomSession, cleanup: Cleanup) {
  return <K extends keyof SessionEventMap>(type: K, fn: (payload: SessionEventMap[K]) => void): void =>
    cleanup.on(session.events, type, fn);
}
