import { h } from './dom';
import { fetchRoomInfo } from './http-api';
import { formatLocales, t } from './i18n';
import type { RoomInfo, UnavailableReason } from './protocol';

/** The first wait between two looks at whether the meeting opened, and the longest. */
const POLL_FIRST_MS = 2_000;
const POLL_MAX_MS = 30_000;

/** "Starts at 10:30 (your time)", with the date when the meeting is not today, in the viewer's zone and language. */
export function startsAtText(startsAt: string, now = new Date()): string {
  const start = new Date(startsAt);
  const time = start.toLocaleTimeString(formatLocales(), { hour: '2-digit', minute: '2-digit' });
  if (start.toDateString() === now.toDateString()) return t('early.startsAt', { time });
  const date = start.toLocaleDateString(formatLocales(), { weekday: 'short', day: 'numeric', month: 'short' });
  return t('early.startsOnAt', { date, time });
}

/** The pre-join screen's line for a meeting guests cannot join yet: when it starts, and that Join waits for it. */
export function startsAtNotice(info: RoomInfo): HTMLElement {
  return h(
    'div',
    { class: 'starts-at', 'data-testid': 'starts-at', role: 'status' },
    h('strong', {}, startsAtText(info.starts_at)),
    h('span', { class: 'muted' }, t('early.prejoinHint')),
  );
}

/** While the meeting has not opened: when it starts, that the page joins by itself, and a way to stop waiting. */
export function notOpenScreen(title: string, startsAt: string, onStop: () => void): HTMLElement {
  return h(
    'section',
    { class: 'screen', 'data-testid': 'not-open' },
    h(
      'div',
      { class: 'card message-card' },
      h('div', { class: 'pulse', 'aria-hidden': 'true' }),
      h('h1', { class: 'screen-title', tabindex: '-1' }, t('early.title', { title })),
      h('p', { class: 'starts-at-big', 'data-testid': 'starts-at' }, startsAtText(startsAt)),
      h('p', { class: 'muted' }, t('early.autoJoin')),
      h('div', { class: 'actions' }, h('button', { class: 'btn secondary', type: 'button', onclick: onStop }, t('early.stopWaiting'))),
    ),
  );
}

/** How a wait for the meeting to open ended. */
export type OpeningOutcome = { kind: 'open' } | { kind: 'unavailable'; reason: UnavailableReason } | { kind: 'stopped' };

/**
 * Looks at the room info until guests may join (the meeting opened, or a host let people in early), the
 * meeting became unavailable, or `stop` is aborted (then at once). Waits 2 s, doubling to 30 s, never past the
 * announced opening; a failed look counts as "not yet".
 */
export async function waitForOpening(code: string, opensAt: string, stop: AbortSignal): Promise<OpeningOutcome> {
  let delay = POLL_FIRST_MS;
  for (;;) {
    const untilOpening = Date.parse(opensAt) - Date.now();
    await sleep(untilOpening > 0 ? Math.min(delay, untilOpening + 250) : delay, stop);
    if (stop.aborted) return { kind: 'stopped' };
    const looked = await fetchRoomInfo(code).catch(() => null);
    if (stop.aborted) return { kind: 'stopped' };
    if (looked && !looked.ok) return { kind: 'unavailable', reason: looked.reason };
    if (looked?.ok && looked.info.open) return { kind: 'open' };
    if (looked?.ok) opensAt = looked.info.opens_at;
    delay = Math.min(delay * 2, POLL_MAX_MS);
  }
}

function sleep(ms: number, stop: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = window.setTimeout(resolve, ms);
    stop.addEventListener(
      'abort',
      () => {
        window.clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
