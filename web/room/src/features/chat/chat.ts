import { clockTime, h } from '../../dom';
import { t } from '../../i18n';
import { ROOM_LIMITS, type ChatMessage } from '../../protocol';
import type { RoomSession } from '../../room-session';
import { chatNodes } from '../../ui/chat-links';
import { icon } from '../../ui/icons';
import { Cleanup, sessionListener, type Dispose, type RoomSlot } from '../slot';

/** The chat panel: the room's messages (links made clickable), the message field, and an unread count on its toolbar button. */
export function mount(session: RoomSession, slot: RoomSlot): Dispose {
  const cleanup = new Cleanup();
  const on = sessionListener(session, cleanup);
  const shown = new Set<string>();
  let unread = 0;

  const list = h('ol', { class: 'chat-list', 'data-testid': 'chat-list', 'aria-live': 'polite' });
  const empty = h('p', { class: 'muted chat-empty' }, t('chat.empty'));
  const input = h('textarea', {
    id: 'chat-input',
    'data-testid': 'chat-input',
    rows: 1,
    maxlength: ROOM_LIMITS.maxChatLength,
    placeholder: t('chat.placeholder'),
    'aria-describedby': 'chat-hint',
  });
  const send = h('button', { type: 'submit', class: 'icon-btn', 'aria-label': t('chat.send'), 'data-testid': 'chat-send' }, icon('send'));
  const form = h(
    'form',
    { class: 'chat-form' },
    h('label', { for: 'chat-input', class: 'sr-only' }, t('chat.message')),
    input,
    send,
    h('span', { id: 'chat-hint', class: 'sr-only' }, t('chat.hint')),
  );
  const body = h(
    'section',
    { class: 'panel-body chat', 'aria-labelledby': 'chat-heading' },
    h('h2', { id: 'chat-heading' }, t('chat.title')),
    empty,
    list,
    form,
  );
  const button = h(
    'button',
    { type: 'button', class: 'tool', 'data-testid': 'open-chat', onclick: () => slot.panels.toggle('chat') },
    icon('chat'),
    h('span', { class: 'tool-label' }, t('chat.title')),
  );
  const badge = h('span', { class: 'badge unread', hidden: true });
  button.append(badge);
  slot.tools.add(button);
  cleanup.remove(button, body);
  cleanup.add(
    slot.panels.add({
      name: 'chat',
      button,
      body,
      opened: () => {
        unread = 0;
        badge.hidden = true;
        button.setAttribute('aria-label', t('chat.title'));
        list.scrollTop = list.scrollHeight;
        input.focus();
      },
    }),
  );

  function add(message: ChatMessage): void {
    if (shown.has(message.id)) return;
    shown.add(message.id);
    empty.hidden = true;
    const mine = message.participant_id === session.selfId || message.sender_identity === session.state?.self.identity;
    list.append(
      h(
        'li',
        { class: mine ? 'mine' : null, 'data-testid': 'chat-message', 'data-message-id': message.id },
        h(
          'div',
          { class: 'chat-meta' },
          h('span', { class: 'chat-sender' }, mine ? t('room.you') : message.sender_name),
          h('time', { datetime: message.sent_at }, clockTime(message.sent_at)),
        ),
        h('p', { class: 'chat-text' }, ...chatNodes(message.text)),
      ),
    );
    list.scrollTop = list.scrollHeight;
    if (!slot.panels.isOpen('chat') && !mine) {
      unread++;
      badge.hidden = false;
      badge.textContent = String(unread);
      button.setAttribute('aria-label', t('chat.unread', { count: unread }));
    }
  }

  input.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) {
      ev.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    input.value = '';
    session.sendChat(text).then(add, (err) => {
      input.value = text;
      slot.toast(t('error.chatNotSent', { error: err instanceof Error ? err.message : String(err) }));
    });
  });
  on('joined', ({ state }) => state.chat.forEach(add));
  on('chat', ({ message }) => add(message));
  session.state?.chat.forEach(add);
  return cleanup.dispose;
}
