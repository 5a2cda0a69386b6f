import { h } from '../dom';
import type { LeaveReason, UnavailableReason } from '../protocol';
import type { SessionEnd } from '../room-session';

const UNAVAILABLE: Record<UnavailableReason, { title: string; text: string }> = {
  not_found: { title: 'This meeting link doesn’t exist', text: 'Check the link, or ask the organiser to send it again.' },
  ended: { title: 'This meeting has ended', text: 'The host ended the meeting. You can close this page.' },
  cancelled: { title: 'This meeting was cancelled', text: 'The organiser cancelled it. You can close this page.' },
};

const LEFT: Record<LeaveReason, string> = {
  left: 'You left the meeting',
  removed: 'A host removed you from the meeting',
  'meeting-ended': 'The meeting has ended',
  denied: 'A host did not let you in',
  replaced: 'You joined this meeting from another tab or device',
};

/** A centred card with a heading, a sentence and optional actions. */
function card(testId: string, title: string, text: string, ...actions: HTMLElement[]): HTMLElement {
  return h(
    'section',
    { class: 'screen', 'data-testid': testId },
    h(
      'div',
      { class: 'card message-card' },
      h('h1', { class: 'screen-title', tabindex: '-1' }, title),
      h('p', { class: 'muted' }, text),
      actions.length ? h('div', { class: 'actions' }, ...actions) : null,
    ),
  );
}

/** Why a meeting cannot be joined (unknown code, ended, cancelled); there is no Join button. */
export function unavailableScreen(reason: UnavailableReason): HTMLElement {
  const m = UNAVAILABLE[reason];
  const el = card('unavailable', m.title, m.text);
  el.dataset.reason = reason;
  return el;
}

const EMBED_REFUSED: Record<'token_invalid' | 'token_expired' | 'origin_not_allowed', { title: string; text: string }> = {
  token_invalid: { title: 'This meeting link is not valid', text: 'Reload the page; if that does not help, tell the site’s owner.' },
  token_expired: { title: 'This meeting link has expired', text: 'Reload the page to get a new one.' },
  origin_not_allowed: { title: 'This site may not show the meeting', text: 'The organiser has not allowed this site to embed it.' },
};

/** Why the embedded room refused this page (a bad or expired embed token, or a parent site not on the meeting's list). */
export function embedRefusedScreen(reason: keyof typeof EMBED_REFUSED): HTMLElement {
  const m = EMBED_REFUSED[reason];
  const el = card('unavailable', m.title, m.text);
  el.dataset.reason = reason;
  return el;
}

/** The waiting room, until a host admits or turns the guest away. */
export function waitingScreen(title: string, onLeave: () => void): HTMLElement {
  return h(
    'section',
    { class: 'screen', 'data-testid': 'waiting' },
    h(
      'div',
      { class: 'card message-card' },
      h('div', { class: 'pulse', 'aria-hidden': 'true' }),
      h('h1', { class: 'screen-title', tabindex: '-1' }, 'Waiting for the host to let you in'),
      h('p', { class: 'muted' }, `You’ll join “${title}” as soon as a host admits you. Keep this page open.`),
      h('div', { class: 'actions' }, h('button', { class: 'btn secondary', type: 'button', onclick: onLeave }, 'Leave')),
    ),
  );
}

/** Out of the room: why, and a way back in when that makes sense. */
export function endedScreen(end: SessionEnd, onRejoin: (() => void) | null): HTMLElement {
  const title = end.kind === 'left' ? LEFT[end.reason] : end.kind === 'unavailable' ? UNAVAILABLE[end.reason].title : 'Disconnected';
  const text =
    end.kind === 'error'
      ? end.message
      : end.kind === 'left' && (end.reason === 'left' || end.reason === 'replaced')
        ? 'You can rejoin while the meeting is going on.'
        : 'You can close this page.';
  const actions = onRejoin ? [h('button', { class: 'btn primary', type: 'button', onclick: onRejoin }, 'Rejoin')] : [];
  const el = card('left', title, text, ...actions);
  el.querySelector('h1')!.dataset.testid = 'left-reason';
  el.dataset.reason = end.kind === 'left' ? end.reason : end.kind === 'unavailable' ? end.reason : 'error';
  return el;
}

/** Moves focus to a screen's heading so screen readers announce the change. */
export function focusTitle(screen: HTMLElement): void {
  screen.querySelector<HTMLElement>('.screen-title')?.focus();
}
