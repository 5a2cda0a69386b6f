import { h } from '../../dom';
import { t } from '../../i18n';
import type { RoomSession } from '../../room-session';
import { icon } from '../../ui/icons';
import { Cleanup, sessionListener, type Dispose, type RoomSlot } from '../slot';

/** Recording: the REC badge in the header for everyone, and the hosts' Record / Stop recording button. */
export function mount(session: RoomSession, slot: RoomSlot): Dispose {
  const cleanup = new Cleanup();
  const on = sessionListener(session, cleanup);
  let recording = false;
  let busy = false;
  const badge = h('span', { class: 'rec-badge', hidden: true, role: 'status' }, icon('rec'), t('room.recording'));
  // Labelled on phones too: a bare red dot does not say what it does.
  const label = h('span', { class: 'tool-label' }, t('room.record'));
  const button = h(
    'button',
    { type: 'button', class: 'tool labelled', 'data-testid': 'toggle-recording', onclick: () => void toggle() },
    icon('rec'),
    label,
  );
  slot.headerBadges.add(badge);
  slot.tools.add(button);
  cleanup.remove(badge, button);

  function render(): void {
    badge.hidden = !recording;
    button.hidden = session.state?.self.role !== 'host';
    button.classList.toggle('active', recording);
    button.disabled = busy;
    label.textContent = t(recording ? 'room.stopRecording' : 'room.record');
  }

  async function toggle(): Promise<void> {
    if (busy) return;
    busy = true;
    render();
    try {
      await (recording ? session.stopRecording() : session.startRecording());
    } catch (err) {
      slot.toast(t('error.recording', { error: String(err) }));
    } finally {
      busy = false;
      render();
    }
  }

  on('joined', ({ state }) => {
    recording = state.recording;
    render();
  });
  on('recording', ({ active }) => {
    recording = active;
    render();
    slot.toast(t(active ? 'room.recordingStarted' : 'room.recordingStopped'));
  });
  recording = session.state?.recording ?? false;
  render();
  return cleanup.dispose;
}
