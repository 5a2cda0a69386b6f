import { h } from '../../dom';
import { t } from '../../i18n';
import type { RoomSession } from '../../room-session';
import { copyToClipboard, guestLink } from '../../ui/invite';

/** Hosts: "End the meeting for everyone?" with Cancel and End meeting. */
export function endMeetingDialog(session: RoomSession, toast: (text: string) => void): HTMLDialogElement {
  const dialog: HTMLDialogElement = h(
    'dialog',
    { class: 'dialog', 'aria-labelledby': 'end-title', 'data-testid': 'end-dialog' },
    h('h2', { id: 'end-title' }, t('room.endTitle')),
    h('p', { class: 'muted' }, t('room.endText')),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', class: 'btn secondary', onclick: () => dialog.close() }, t('room.cancel')),
      h(
        'button',
        {
          type: 'button',
          class: 'btn danger',
          'data-testid': 'confirm-end-meeting',
          onclick: () => {
            dialog.close();
            session.endMeeting().catch((err) => toast(t('error.endMeeting', { error: String(err) })));
          },
        },
        t('room.endMeeting'),
      ),
    ),
  );
  return dialog;
}

/** Invite: copies the guest link, or shows it to copy by hand when the clipboard is refused. */
export function inviteDialog(
  session: RoomSession,
  toast: (text: string, testId?: string) => void,
): { el: HTMLDialogElement; open(): Promise<void> } {
  const field = h('input', {
    type: 'text',
    readonly: true,
    class: 'invite-field',
    'data-testid': 'invite-link',
    'aria-labelledby': 'invite-title',
  });
  const el: HTMLDialogElement = h(
    'dialog',
    { class: 'dialog', 'aria-labelledby': 'invite-title', 'data-testid': 'invite-dialog' },
    h('h2', { id: 'invite-title' }, t('room.inviteTitle')),
    h('p', { class: 'muted' }, t('room.inviteText')),
    field,
    h('div', { class: 'actions' }, h('button', { type: 'button', class: 'btn primary', onclick: () => el.close() }, t('room.done'))),
  );
  return {
    el,
    async open() {
      const link = guestLink(location, session.state!.meeting.code);
      if (await copyToClipboard(link)) return toast(t('room.linkCopied'), 'link-copied');
      field.value = link;
      el.showModal();
      field.select();
    },
  };
}
