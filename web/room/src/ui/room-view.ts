import { h } from '../dom';
import type { EmbedFeatures } from '../embed-protocol';
import * as captions from '../features/captions/captions';
import * as chat from '../features/chat/chat';
import * as hands from '../features/hands/hands';
import * as moderation from '../features/moderation/moderation';
import { Panels } from '../features/panels';
import * as people from '../features/people/people';
import * as polls from '../features/polls/polls';
import * as breakouts from '../features/breakouts/breakouts';
import * as reactions from '../features/reactions/reactions';
import * as recording from '../features/recording/recording';
import * as settings from '../features/settings/settings';
import { Cleanup, sessionListener, spotBefore, spotIn, type RoomSlot } from '../features/slot';
import * as stage from '../features/stage/stage';
import * as toolbar from '../features/toolbar/toolbar';
import * as waitingRoom from '../features/waiting-room/waiting-room';
import { t } from '../i18n';
import type { RoomSession } from '../room-session';
import { icon } from './icons';

/** Notes for the page's own first-frame timing (the tests' join-to-first-frame measure), and the parts an embedder switched off. */
export interface RoomViewHooks {
  onRemoteFrame(): void;
  features?: EmbedFeatures;
}

/** The in-call view and what an embedding page may do to it. */
export interface RoomView {
  el: HTMLElement;
  /** Opens or closes the chat panel (nothing when chat is switched off). */
  toggleChat(): void;
}

/**
 * The in-call view: the frame (header with the title and participant count, the reconnecting banner, the side
 * panel, the toolbar, the notes) and the features mounted in it: stage, waiting room, toolbar, people, chat,
 * settings and recording. A feature the embedding page switched off (chat, participants) is not mounted at all.
 */
export function roomView(session: RoomSession, hooks: RoomViewHooks): RoomView {
  const features = hooks.features ?? {};
  const anchor = (name: string) => document.createComment(name);

  const titleEl = h('h1', { class: 'room-title' });
  const countEl = h('span', { 'data-testid': 'participant-count', class: 'count' });
  const countSr = h('span', { class: 'sr-only' });
  const countPill = h('span', { class: 'count-pill', title: t('room.participants') }, icon('people'), countEl, countSr);
  const headerBadges = anchor('header-badges');
  const headerTools = anchor('header-tools');
  const header = h('header', { class: 'topbar' }, titleEl, headerBadges, h('span', { class: 'spacer' }), headerTools, countPill);
  const banner = h('div', { class: 'banner', role: 'status', hidden: true, 'data-testid': 'reconnecting' });
  const panels = new Panels();
  const stageSpot = anchor('stage');
  const body = h('div', { class: 'room-body' }, stageSpot, panels.el);
  const toolsStart = anchor('tools-start');
  const tools = h('div', { class: 'tool-group' });
  const toolsEnd = anchor('tools-end');
  const footer = h('footer', { class: 'toolbar', role: 'toolbar', 'aria-label': t('room.controls') }, toolsStart, tools, toolsEnd);
  const toasts = h('div', { class: 'toasts', 'aria-live': 'polite' });
  const aside = anchor('aside');
  const end = anchor('end');
  const root = h('div', { class: 'room', 'data-testid': 'room' }, header, banner, body, aside, footer, toasts, end);

  const slot: RoomSlot = {
    headerBadges: spotBefore(headerBadges),
    headerTools: spotBefore(headerTools),
    stage: spotBefore(stageSpot),
    aside: spotBefore(aside),
    toolsStart: spotBefore(toolsStart),
    tools: spotIn(tools),
    toolsEnd: spotBefore(toolsEnd),
    end: spotBefore(end),
    panels,
    toast(text, testId) {
      const el = h('div', { class: 'toast', 'data-testid': testId ?? null }, text);
      toasts.append(el);
      window.setTimeout(() => el.remove(), 4000);
    },
    features,
    onRemoteFrame: hooks.onRemoteFrame,
  };

  const cleanup = new Cleanup();
  const on = sessionListener(session, cleanup);
  // Mounted in the frame's order: what shares a spot stands in mount order.
  cleanup.add(stage.mount(session, slot));
  cleanup.add(waitingRoom.mount(session, slot));
  cleanup.add(toolbar.mount(session, slot));
  cleanup.add(hands.mount(session, slot));
  cleanup.add(reactions.mount(session, slot));
  cleanup.add(moderation.mount(session, slot));
  if (features.participants !== false) cleanup.add(people.mount(session, slot));
  if (features.chat !== false) cleanup.add(chat.mount(session, slot));
  cleanup.add(settings.mount(session, slot));
  cleanup.add(recording.mount(session, slot));
  cleanup.add(captions.mount(session, slot));
  cleanup.add(polls.mount(session, slot));
  cleanup.add(breakouts.mount(session, slot));

  function renderCount(): void {
    const count = session.state?.participantCount ?? 0;
    countEl.textContent = String(count);
    countSr.textContent = t('room.participantCount', { count });
  }

  function render(): void {
    const state = session.state;
    if (!state) return;
    titleEl.textContent = state.meeting.title;
    document.title = t('page.meetingTitle', { title: state.meeting.title });
    renderCount();
  }

  on('joined', render);
  on('participantCount', renderCount);
  on('notice', ({ message }) => slot.toast(message));
  on('phase', ({ phase }) => {
    banner.hidden = phase !== 'reconnecting';
    banner.textContent = phase === 'reconnecting' ? t('room.reconnecting') : '';
    root.classList.toggle('reconnecting', phase === 'reconnecting');
  });
  // The ended screen replaces the view; the features stop listening.
  on('ended', () => cleanup.dispose());
  render();
  return { el: root, toggleChat: () => panels.toggle('chat') };
}
