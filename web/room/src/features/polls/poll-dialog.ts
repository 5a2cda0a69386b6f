import { h } from '../../dom';
import { t } from '../../i18n';
import { POLL_LIMITS, type NewPoll } from '../../protocol';

/** Hosts: the "New poll" dialog (question, 2-10 options, multiple choice, anonymous); `create` sends it and rejects with the reason. */
export function newPollDialog(create: (poll: NewPoll) => Promise<void>): { el: HTMLDialogElement; open(): void } {
  const question = h('input', {
    id: 'poll-question',
    type: 'text',
    required: true,
    maxlength: POLL_LIMITS.maxQuestionLength,
    'data-testid': 'poll-question',
  });
  const options = h('ol', { class: 'poll-option-fields' });
  const addOption = h('button', { type: 'button', class: 'btn secondary small', 'data-testid': 'poll-add-option' }, t('polls.addOption'));
  const multiple = h('input', { id: 'poll-multiple', type: 'checkbox', 'data-testid': 'poll-multiple' });
  const anonymous = h('input', { id: 'poll-anonymous', type: 'checkbox', 'data-testid': 'poll-anonymous' });
  const error = h('p', { class: 'form-error', role: 'alert', hidden: true });
  const submit = h('button', { type: 'submit', class: 'btn primary', 'data-testid': 'poll-create' }, t('polls.create'));
  const el: HTMLDialogElement = h(
    'dialog',
    { class: 'dialog poll-dialog', 'aria-labelledby': 'poll-dialog-title', 'data-testid': 'poll-dialog' },
    h(
      'form',
      { class: 'poll-form', method: 'dialog' },
      h('h2', { id: 'poll-dialog-title' }, t('polls.newTitle')),
      h('label', { for: 'poll-question' }, t('polls.question')),
      question,
      h('fieldset', { class: 'poll-fieldset' }, h('legend', {}, t('polls.options')), options, addOption),
      h('label', { class: 'check' }, multiple, t('polls.multiple')),
      h('label', { class: 'check' }, anonymous, t('polls.anonymous')),
      error,
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'button', class: 'btn secondary', onclick: () => el.close() }, t('room.cancel')),
        submit,
      ),
    ),
  );

  function optionField(): HTMLLIElement {
    const index = options.children.length + 1;
    const input = h('input', {
      type: 'text',
      required: true,
      maxlength: POLL_LIMITS.maxOptionLength,
      'aria-label': t('polls.optionLabel', { number: index }),
      'data-testid': 'poll-option-input',
    });
    const remove = h(
      'button',
      { type: 'button', class: 'btn secondary small', 'aria-label': t('polls.removeOption', { number: index }) },
      '×',
    );
    const item = h('li', {}, input, remove);
    remove.addEventListener('click', () => {
      item.remove();
      renumber();
    });
    return item;
  }

  function renumber(): void {
    [...options.children].forEach((item, i) => {
      const [input, remove] = [...item.children] as [HTMLInputElement, HTMLButtonElement];
      input.setAttribute('aria-label', t('polls.optionLabel', { number: i + 1 }));
      remove.setAttribute('aria-label', t('polls.removeOption', { number: i + 1 }));
      remove.hidden = options.children.length <= POLL_LIMITS.minOptions;
    });
    addOption.hidden = options.children.length >= POLL_LIMITS.maxOptions;
  }

  addOption.addEventListener('click', () => {
    options.append(optionField());
    renumber();
    (options.lastElementChild?.firstElementChild as HTMLInputElement | null)?.focus();
  });

  el.querySelector('form')!.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const texts = [...options.querySelectorAll('input')].map((input) => input.value.trim());
    submit.disabled = true;
    error.hidden = true;
    create({ question: question.value.trim(), options: texts, multiple: multiple.checked, anonymous: anonymous.checked })
      .then(() => el.close())
      .catch((err: unknown) => {
        error.textContent = err instanceof Error ? err.message : String(err);
        error.hidden = false;
      })
      .finally(() => (submit.disabled = false));
  });

  return {
    el,
    open() {
      question.value = '';
      multiple.checked = false;
      anonymous.checked = false;
      error.hidden = true;
      options.replaceChildren(optionField(), optionField());
      renumber();
      el.showModal();
      question.focus();
    },
  };
}
