import { h } from '../../dom';
import { t } from '../../i18n';
import type { Caption } from '../../protocol';
import type { RoomSession } from '../../room-session';
import { icon } from '../../ui/icons';
import { Cleanup, sessionListener, type Dispose, type RoomSlot } from '../slot';
import { CaptionLines } from './caption-lines';

/**
 * Live captions: the CC button (hosts turn captions on and off for everyone; while they are on, anyone can hide
 * or show them for themselves) and the captions bar above the toolbar with the last two lines, each with its
 * speaker's name.
 */
export function mount(session: RoomSession, slot: RoomSlot): Dispose {
  const cleanup = new Cleanup();
  const on = sessionListener(session, cleanup);
  const lines = new CaptionLines(2);
  let active = false;
  let hidden = false;
  let busy = false;
  const label = h('span', { class: 'tool-label' }, t('captions.button'));
  const button = h(
    'button',
    { type: 'button', class: 'tool', 'data-testid': 'toggle-captions', 'aria-pressed': 'false', onclick: () => void toggle() },
    icon('cc'),
    label,
  );
  const text = h('div', { class: 'captions-lines', 'data-testid': 'captions-lines' });
  const bar = h(
    'section',
    { class: 'captions', 'data-testid': 'captions', hidden: true, role: 'log', 'aria-live': 'polite', 'aria-label': t('captions.region') },
    text,
  );
  slot.tools.add(button);
  slot.aside.add(bar);
  cleanup.remove(button, bar);

  const isHost = () => session.state?.self.role === 'host';

  function render(): void {
    button.hidden = !isHost() && !active;
    button.disabled = busy;
    const showing = active && !hidden;
    button.classList.toggle('active', showing);
    button.setAttribute('aria-pressed', String(showing));
    const action = isHost() ? (active ? 'captions.turnOff' : 'captions.turnOn') : hidden ? 'captions.show' : 'captions.hide';
    button.setAttribute('aria-label', t(action));
    button.title = t(action);
    bar.hidden = !showing;
    const shown = lines.list();
    text.replaceChildren(
      ...(shown.length === 0
        ? [h('p', { class: 'caption-line waiting' }, t('captions.listening'))]
        : shown.map((line) =>
            h(
              'p',
              { class: `caption-line${line.final ? '' : ' partial'}`, 'data-testid': 'caption-line' },
              h('span', { class: 'caption-speaker' }, `${line.speaker ?? t('captions.unknownSpeaker')}: `),
              line.text,
            ),
          )),
    );
  }

  async function toggle(): Promise<void> {
    if (!isHost()) {
      hidden = !hidden;
      return render();
    }
    if (busy) return;
    busy = true;
    render();
    try {
      await session.call('setCaptions', { on: !active });
      hidden = false;
    } catch (err) {
      slot.toast(t('captions.failed', { error: err instanceof Error ? err.message : String(err) }));
    } finally {
      busy = false;
      render();
    }
  }

  on('joined', ({ state }) => {
    active = state.captions ?? false;
    render();
  });
  on('captions', (data) => {
    active = data.active;
    if (!active) lines.clear();
    render();
    slot.toast(t(active ? 'captions.started' : 'captions.stopped'));
  });
  on('caption', (caption: Caption) => {
    lines.add(caption);
    render();
  });
  active = session.state?.captions ?? false;
  render();
  return cleanup.dispose;
}
