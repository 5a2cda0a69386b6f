import { h } from '../../dom';
import { t } from '../../i18n';
import { listDevices } from '../../local-media';
import type { RoomSession } from '../../room-session';
import { icon } from '../../ui/icons';
import { Cleanup, sessionListener, type Dispose, type RoomSlot } from '../slot';

/** The settings panel: which camera and microphone to use (for those who send media). */
export function mount(session: RoomSession, slot: RoomSlot): Dispose {
  const cleanup = new Cleanup();
  const on = sessionListener(session, cleanup);
  const cameraSelect = h('select', { id: 'room-camera-select' });
  const micSelect = h('select', { id: 'room-microphone-select' });
  const body = h(
    'section',
    { class: 'panel-body', 'aria-labelledby': 'settings-heading' },
    h('h2', { id: 'settings-heading' }, t('room.settings')),
    h('label', { for: 'room-camera-select' }, t('device.camera')),
    cameraSelect,
    h('label', { for: 'room-microphone-select' }, t('device.microphone')),
    micSelect,
  );
  const button = h(
    'button',
    { type: 'button', class: 'tool', 'data-testid': 'open-settings', onclick: () => slot.panels.toggle('settings') },
    icon('settings'),
    h('span', { class: 'tool-label' }, t('room.settings')),
  );
  slot.tools.add(button);
  cleanup.remove(button, body);
  cleanup.add(slot.panels.add({ name: 'settings', button, body, opened: () => void fillDevices() }));

  async function fillDevices(): Promise<void> {
    const { cameras, microphones } = await listDevices();
    const fill = (select: HTMLSelectElement, list: MediaDeviceInfo[], kind: 'camera' | 'microphone') => {
      const current = select.value;
      select.replaceChildren(
        ...list.map((d, i) =>
          h('option', { value: d.deviceId, selected: d.deviceId === current }, d.label || t(`device.${kind}Number`, { number: i + 1 })),
        ),
      );
      select.disabled = !session.state?.canSendMedia || list.length === 0;
    };
    fill(cameraSelect, cameras, 'camera');
    fill(micSelect, microphones, 'microphone');
  }

  cameraSelect.addEventListener(
    'change',
    () => void session.switchDevice('camera', cameraSelect.value).catch((err) => slot.toast(String(err))),
  );
  micSelect.addEventListener(
    'change',
    () => void session.switchDevice('microphone', micSelect.value).catch((err) => slot.toast(String(err))),
  );
  const render = () => (button.hidden = !session.state?.canSendMedia);
  on('joined', render);
  render();
  return cleanup.dispose;
}
