import { h } from '../dom';
import { t } from '../i18n';
import type { UnavailableReason } from '../protocol';
import type { SessionEnd } from '../session-events';

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

/**
 * Why the room cannot be joined, with no Join button: an unknown, ended or cancelled meeting, or (embedded) a
 * bad or expired embed token or a parent site not on the meeting's list.
 */
export function unavailableScreen(reason: UnavailableReason | 'token_invalid' | 'token_expired' | 'origin_not_allowed'): HTMLElement {
  const el = card('unavailable', t(`unavailable.${reason}.title`), t(`unavailable.${reason}.text`));
  el.dataset.reason = reason;
  return el;
}

/**
 * Why a page opened over plain http on a host that is not loopback cannot hold a room (browsers give camera,
 * microphone and WebRTC only to secure pages), with the https address of the same page to try instead.
 */
export function insecureScreen(page: Location): HTMLElement {
  const httpsUrl = `https://${page.hostname}${page.pathname}${page.search}`;
  const open = h('a', { class: 'btn primary', href: httpsUrl, 'data-testid': 'open-https' }, t('insecure.open'));
  return card('insecure', t('insecure.title'), t('insecure.text', { host: page.host }), open);
}

/** The waiting room, until a host admits or turns the guest away; `preview` shows the guest's own camera meanwhile. */
export function waitingScreen(title: string, onLeave: () => void, preview: HTMLElement | null = null): HTMLElement {
  return h(
    'section',
    { class: 'screen', 'data-testid': 'waiting' },
    h(
      'div',
      { class: 'card message-card' },
      preview,
      h('div', { class: 'pulse', 'aria-hidden': 'true' }),
      h('h1', { class: 'screen-title', tabindex: '-1' }, t('waiting.title')),
      h('p', { class: 'muted' }, t('waiting.text', { title })),
      h('div', { class: 'actions' }, h('button', { class: 'btn secondary', type: 'button', onclick: onLeave }, t('room.leave'))),
    ),
  );
}

/** Out of the room: why, and a way back in when that makes sense. */
export function endedScreen(end: SessionEnd, onRejoin: (() => void) | null): HTMLElement {
  const title =
    end.kind === 'left'
      ? t(`left.${end.reason}`)
      : end.kind === 'unavailable'
        ? t(`unavailable.${end.reason}.title`)
        : t('left.disconnected');
  const text =
    end.kind === 'error'
      ? end.message
      : end.kind === 'left' && (end.reason === 'left' || end.reason === 'replaced')
        ? t('left.canRejoin')
        : t('left.canClose');
  const actions = onRejoin ? [h('button', { class: 'btn primary', type: 'button', onclick: onRejoin }, t('left.rejoin'))] : [];
  const el = card('left', title, text, ...actions);
  el.querySelector('h1')!.dataset.testid = 'left-reason';
  el.dataset.reason = end.kind === 'left' ? end.reason : end.kind === 'unavailable' ? end.reason : 'error';
  return el;
}

/** Moves focus to a screen's heading so screen readers announce the change. */
export function focusTitle(screen: HTMLElement): void {
  screen.querySelector<HTMLElement>('.screen-title')?.focus();
}
