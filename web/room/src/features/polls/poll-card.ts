import { h } from '../../dom';
import { t } from '../../i18n';
import type { RoomPoll } from '../../protocol';

/** What a poll card can do: vote (everyone) and close (hosts). */
export interface PollActions {
  host: boolean;
  vote(poll: RoomPoll, optionIds: string[]): void;
  close(poll: RoomPoll): void;
}

/**
 * One poll: its question, whether it is open, a vote form while it is open, and the results (bars with counts,
 * names in a named poll) for hosts and, once closed, for everyone.
 */
export function pollCard(poll: RoomPoll, actions: PollActions): HTMLElement {
  const open = poll.status === 'open';
  const withResults = poll.options.every((option) => option.votes !== null);
  const meta = [
    t(poll.multiple ? 'polls.multipleChoice' : 'polls.singleChoice'),
    t(poll.anonymous ? 'polls.isAnonymous' : 'polls.isNamed'),
    ...(withResults ? [t('polls.voterCount', { count: poll.voters })] : []),
  ].join(' · ');
  const card = h(
    'article',
    {
      class: 'poll-card',
      'data-testid': 'poll-card',
      'data-poll-id': poll.id,
      'data-status': poll.status,
      'aria-labelledby': `q-${poll.id}`,
    },
    h(
      'header',
      { class: 'poll-head' },
      h('h3', { id: `q-${poll.id}`, class: 'poll-question' }, poll.question),
      h('span', { class: `poll-status ${poll.status}` }, t(open ? 'polls.open' : 'polls.closed')),
    ),
    h('p', { class: 'muted poll-meta' }, meta),
  );
  if (open) card.append(voteForm(poll, actions));
  if (withResults) card.append(results(poll));
  if (open && actions.host) {
    card.append(
      h(
        'button',
        { type: 'button', class: 'btn secondary small', 'data-testid': 'poll-close', onclick: () => actions.close(poll) },
        t('polls.close'),
      ),
    );
  }
  return card;
}

function voteForm(poll: RoomPoll, actions: PollActions): HTMLFormElement {
  const type = poll.multiple ? 'checkbox' : 'radio';
  const form = h(
    'form',
    { class: 'poll-vote', 'data-testid': 'poll-vote-form' },
    h(
      'fieldset',
      { class: 'poll-fieldset' },
      h('legend', { class: 'sr-only' }, poll.question),
      ...poll.options.map((option) =>
        h(
          'label',
          { class: 'check' },
          h('input', {
            type,
            name: `vote-${poll.id}`,
            value: option.id,
            checked: poll.mine.includes(option.id),
            'data-testid': 'poll-choice',
          }),
          option.text,
        ),
      ),
    ),
    h(
      'button',
      { type: 'submit', class: 'btn primary small', 'data-testid': 'poll-vote' },
      t(poll.mine.length ? 'polls.changeVote' : 'polls.vote'),
    ),
    poll.mine.length ? h('p', { class: 'muted', 'data-testid': 'poll-voted' }, t('polls.voted')) : null,
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const chosen = [...form.querySelectorAll('input:checked')].map((input) => (input as HTMLInputElement).value);
    if (chosen.length) actions.vote(poll, chosen);
  });
  return form;
}

function results(poll: RoomPoll): HTMLElement {
  const total = Math.max(1, poll.voters);
  return h(
    'ol',
    { class: 'poll-results', 'data-testid': 'poll-results' },
    ...poll.options.map((option) => {
      const votes = option.votes ?? 0;
      const percent = Math.round((votes / total) * 100);
      return h(
        'li',
        { class: poll.mine.includes(option.id) ? 'mine' : null, 'data-testid': 'poll-result', 'data-votes': votes },
        h(
          'div',
          { class: 'poll-result-line' },
          h('span', { class: 'poll-option-text' }, option.text),
          h('span', { class: 'poll-count' }, t('polls.votes', { count: votes, percent })),
        ),
        h('div', { class: 'poll-bar', role: 'presentation' }, bar(percent)),
        option.voters?.length ? h('p', { class: 'muted poll-voters' }, option.voters.map((voter) => voter.name).join(', ')) : null,
      );
    }),
  );
}

/** The filled part of a result bar (set through the CSSOM: the page's CSP allows no style attributes). */
function bar(percent: number): HTMLSpanElement {
  const fill = h('span');
  fill.style.width = `${percent}%`;
  return fill;
}
