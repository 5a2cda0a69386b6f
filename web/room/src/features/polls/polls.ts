import './polls.css';
import { h } from '../../dom';
import { t } from '../../i18n';
import type { RoomPoll } from '../../protocol';
import type { RoomSession } from '../../room-session';
import { icon } from '../../ui/icons';
import { Cleanup, sessionListener, type Dispose, type RoomSlot } from '../slot';
import { pollCard } from './poll-card';
import { newPollDialog } from './poll-dialog';

/**
 * Polls: a toolbar button and side panel listing the meeting's polls, newest first. Hosts open a poll with
 * "New poll", watch the results come in and close it; everyone votes while it is open and sees the results
 * once it is closed. A new poll is announced with a toast and a badge on the button.
 */
export function mount(session: RoomSession, slot: RoomSlot): Dispose {
  const cleanup = new Cleanup();
  const on = sessionListener(session, cleanup);
  const polls = new Map<string, RoomPoll>();
  const isHost = () => session.state?.self.role === 'host';

  const list = h('div', { class: 'poll-list', 'data-testid': 'poll-list', 'aria-live': 'polite' });
  const empty = h('p', { class: 'muted' }, t('polls.empty'));
  const dialog = newPollDialog(async (poll) => {
    const created = await session.call('createPoll', poll);
    upsert(created.poll);
  });
  const newPoll = h(
    'button',
    { type: 'button', class: 'btn primary small', 'data-testid': 'new-poll', onclick: () => dialog.open() },
    t('polls.new'),
  );
  const body = h(
    'section',
    { class: 'panel-body polls', 'aria-labelledby': 'polls-heading', 'data-testid': 'polls-panel' },
    h('h2', { id: 'polls-heading' }, t('polls.title')),
    newPoll,
    empty,
    list,
  );
  const badge = h('span', { class: 'badge unread', hidden: true }, '!');
  const button = h(
    'button',
    {
      type: 'button',
      class: 'tool',
      'data-testid': 'open-polls',
      'aria-label': t('polls.title'),
      onclick: () => slot.panels.toggle('polls'),
    },
    icon('poll'),
    h('span', { class: 'tool-label' }, t('polls.title')),
    badge,
  );
  slot.tools.add(button);
  slot.end.add(dialog.el);
  cleanup.remove(button, body, dialog.el);
  cleanup.add(
    slot.panels.add({
      name: 'polls',
      button,
      body,
      opened: () => {
        badge.hidden = true;
        button.setAttribute('aria-label', t('polls.title'));
      },
    }),
  );

  function upsert(poll: RoomPoll): void {
    polls.set(poll.id, poll);
    render();
  }

  function render(): void {
    newPoll.hidden = !isHost();
    empty.hidden = polls.size > 0;
    const actions = { host: isHost(), vote, close };
    list.replaceChildren(...[...polls.values()].reverse().map((poll) => pollCard(poll, actions)));
  }

  function vote(poll: RoomPoll, optionIds: string[]): void {
    session.call('votePoll', { pollId: poll.id, optionIds }).then(
      (answer) => upsert(answer.poll),
      (err: unknown) => slot.toast(t('polls.failed', { error: err instanceof Error ? err.message : String(err) })),
    );
  }

  function close(poll: RoomPoll): void {
    session.call('closePoll', { pollId: poll.id }).then(
      (answer) => upsert(answer.poll),
      (err: unknown) => slot.toast(t('polls.failed', { error: err instanceof Error ? err.message : String(err) })),
    );
  }

  function announce(text: string): void {
    slot.toast(text, 'poll-toast');
    if (slot.panels.isOpen('polls')) return;
    badge.hidden = false;
    button.setAttribute('aria-label', t('polls.titleNew'));
  }

  async function load(): Promise<void> {
    try {
      const answer = await session.call('listPolls', {});
      polls.clear();
      for (const poll of answer.polls) polls.set(poll.id, poll);
      render();
    } catch {
      // A room without polls support (or a dropped socket) shows the empty list; the next join asks again.
    }
  }

  on('joined', () => void load());
  on('poll', ({ change, poll }) => {
    upsert(poll);
    if (change === 'pollOpened') announce(t('polls.opened', { question: poll.question }));
    if (change === 'pollClosed') announce(t('polls.closedToast', { question: poll.question }));
  });
  render();
  if (session.phase === 'joined') void load();
  return cleanup.dispose;
}
