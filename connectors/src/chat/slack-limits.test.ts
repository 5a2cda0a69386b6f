import type { WebhookEvent } from '../webhooks/signature';
import { shorten, SLACK_LIMITS, slackMessageFor } from './slack';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function event(type: string, data: Record<string, unknown>): WebhookEvent {
  return { id: 'evt_1', type, created_at: '2030-01-01T10:00:00Z', data } as WebhookEvent;
}

function texts(blocks: unknown[]): { type: string; text: string }[] {
  return blocks.flatMap((b) => {
    const block = b as { type: string; text?: { text: string }; fields?: { text: string }[] };
    return [
      ...(block.text ? [{ type: block.type, text: block.text.text }] : []),
      ...(block.fields ?? []).map((f) => ({ type: 'field', text: f.text })),
    ];
  });
}

describe('Slack messages within Block Kit limits', () => {
  it('leaves short texts alone and cuts long ones with an ellipsis, at a word when one is near, never inside a surrogate pair', () => {
    expect(shorten('Weekly sync', 150)).toBe('Weekly sync');
    expect(shorten('alpha beta gamma delta', 12)).toBe('alpha beta…');
    const emoji = 'x'.repeat(148) + '😀😀';
    const cut = shorten(emoji, 150);
    expect(cut.length).toBeLessThanOrEqual(150);
    expect(cut).toMatch(/…$/);
    expect(cut).not.toMatch(LONE_SURROGATE);
  });

  it('keeps a header of at most 150 characters, a section of at most 3,000 and readable entities and bold markup', () => {
    const title = `${'Quarterly & planning '.repeat(20)}😀`;
    const tldr = '<b> & '.repeat(1000) + 'end';
    const message = slackMessageFor(event('summary.ready', { meeting: { title, code: 'abc-defg-hij' }, summary: { tldr } }), {
      meeting: 'https://meet.example.com/m/abc-defg-hij',
    });
    const [header, body, facts] = texts(message.blocks);
    expect(header!.type).toBe('header');
    expect(header!.text.length).toBeLessThanOrEqual(SLACK_LIMITS.header);
    expect(header!.text).toMatch(/^The summary of Quarterly & planning .*…$/);
    expect(body!.text.length).toBeLessThanOrEqual(SLACK_LIMITS.sectionText);
    expect(body!.text).toMatch(/^&lt;b&gt; &amp; /);
    expect(body!.text).toMatch(/…$/);
    // Every & starts a whole entity: the cut never leaves "&am" or "&l" behind.
    expect(body!.text.replace(/&(amp|lt|gt);/g, '')).not.toContain('&');
    expect(facts!.text).toBe('*Meeting code*\nabc-defg-hij');
    for (const t of texts(message.blocks)) expect(t.text).not.toMatch(LONE_SURROGATE);
    expect(message.text.length).toBeLessThanOrEqual(SLACK_LIMITS.fallbackText);
    expect(message.text).toMatch(/😀 is ready https:\/\/meet\.example\.com\/m\/abc-defg-hij$/);
  });

  it('cuts a long fact value and keeps its bold title closed', () => {
    const message = slackMessageFor(
      event('registration.created', {
        registration: { name: 'Ada', email: `${'a'.repeat(3000)}@example.com` },
        webinar: { slug: 'launch', title: 'Launch' },
      }),
      {},
    );
    const email = texts(message.blocks).find((t) => t.text.startsWith('*Email*'))!;
    expect(email.text.length).toBeLessThanOrEqual(SLACK_LIMITS.field);
    expect(email.text).toMatch(/^\*Email\*\na+…$/);
    expect(message.blocks.length).toBeLessThanOrEqual(SLACK_LIMITS.blocks);
  });
});
