import { LlmClient } from '../llm/llm.client';
import { createLogger } from '../shared/logger';
import { startFakeLlm, type FakeLlm } from '../testing/fake-llm';
import { dueDate, summarizeExtractive, type SummaryInput } from './extractive';
import { Summarizer, validateLlmSummary } from './summarizer';

// A transcript as pocketsphinx writes one: lowercase, no punctuation, one utterance per segment; 2026-11-23 is a Monday.
const MEETING: SummaryInput = {
  meetingDate: '2026-11-23T15:00:00.000Z',
  participants: ['Alice Smith', 'Bob Jones'],
  segments: [
    'good morning everyone thanks for joining the release planning meeting',
    'the release candidate passed all the tests on staging last night',
    'we decided to ship the release on friday',
    'the search page is still too slow for large teams with many meetings',
    'alice will write the release notes by wednesday',
    'bob is going to fix the search performance next week',
    'i will send the release summary to the customers tomorrow',
    'thanks everyone see you next time',
  ].map((text, i) => ({ start: i * 4, end: i * 4 + 3.5, speaker: i === 6 ? 'Carol' : null, participant_id: null, text })),
};

describe('summarizeExtractive', () => {
  const summary = summarizeExtractive(MEETING);

  it('finds the decision by its cue phrase and cites its segment', () => {
    expect(summary.decisions).toEqual([{ text: 'We decided to ship the release on friday.', cite: [2], start_seconds: 8 }]);
  });

  it('finds the action items with owners matched to participants (or the speaker of "I will") and due dates against the meeting date', () => {
    expect(summary.action_items).toEqual([
      { text: 'Alice will write the release notes by wednesday.', owner: 'Alice Smith', due: '2026-11-25', cite: [4], start_seconds: 16 },
      {
        text: 'Bob is going to fix the search performance next week.',
        owner: 'Bob Jones',
        due: '2026-11-30',
        cite: [5],
        start_seconds: 20,
      },
      {
        text: 'I will send the release summary to the customers tomorrow.',
        owner: 'Carol',
        due: '2026-11-24',
        cite: [6],
        start_seconds: 24,
      },
    ]);
  });

  it('writes a TL;DR of the most central sentences in spoken order, leaving out the small talk', () => {
    const sentences = summary.tldr.split(/(?<=\.) /);
    expect(sentences).toHaveLength(3);
    const spoken = MEETING.segments.map((s) => `${s.text.charAt(0).toUpperCase()}${s.text.slice(1)}.`);
    const order = sentences.map((s) => spoken.indexOf(s));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(summary.tldr).not.toContain('see you next time');
  });

  it('summarizes an empty transcript as nothing', () => {
    expect(summarizeExtractive({ ...MEETING, segments: [] })).toEqual({ tldr: '', decisions: [], action_items: [] });
  });
});

describe('dueDate', () => {
  const monday = '2026-11-23T09:00:00Z';
  it.each([
    ['please do it by friday', '2026-11-27'],
    ['by monday', '2026-11-30'],
    ['before next friday', '2026-12-04'],
    ['due 2026-12-01 at noon', '2026-12-01'],
    ['due 2026-02-30, no such day', null],
    ['by tomorrow', '2026-11-24'],
    ['by the end of the week', '2026-11-27'],
    ['by the end of the month', '2026-11-30'],
    ['some day', null],
  ])('%s -> %s', (text, due) => expect(dueDate(text, monday)).toBe(due));
});

describe('Summarizer with an LLM endpoint', () => {
  let llm: FakeLlm;
  const warnings: string[] = [];
  const logger = { ...createLogger('silent'), warn: (message: string) => warnings.push(message) };
  beforeAll(async () => {
    llm = await startFakeLlm({ apiKey: 'k' });
  });
  afterAll(() => llm.close());
  const summarizer = () => new Summarizer(new LlmClient({ url: llm.url, apiKey: 'k', model: 'm', timeoutMs: 5_000 }), logger);
  const good = {
    tldr: 'The release ships on Friday.',
    decisions: [{ text: 'Ship on Friday', cite: [2] }],
    action_items: [{ text: 'Write the release notes', owner: 'Alice Smith', due: '2026-11-25', cite: [4] }],
  };

  it('uses the model when its answer cites segments that exist, sending the numbered transcript and participants', async () => {
    llm.reply = () => ({ content: '```json\n' + JSON.stringify(good) + '\n```' });
    expect(await summarizer().summarize(MEETING)).toEqual({ ...good, generator: 'llm' });
    const prompt = llm.requests.at(-1)!.messages.at(-1)!.content;
    expect(prompt).toContain('[4] unknown: alice will write the release notes by wednesday');
    expect(prompt).toContain('Participants: Alice Smith, Bob Jones');
    expect(llm.problems).toEqual([]);
  });

  it.each([
    ['a cite of a segment that does not exist', () => ({ content: JSON.stringify({ ...good, decisions: [{ text: 'x', cite: [8] }] }) })],
    ['prose instead of JSON', () => ({ content: 'The team will ship on Friday.' })],
    ['an HTTP error', () => ({ status: 500 })],
  ])('falls back to the extractive summary on %s', async (_what, reply) => {
    llm.reply = reply as FakeLlm['reply'];
    warnings.length = 0;
    expect(await summarizer().summarize(MEETING)).toEqual({ ...summarizeExtractive(MEETING), generator: 'extractive' });
    expect(warnings).toEqual(['LLM summary unusable; summarizing extractively']);
  });

  it('validates owners and dates too', () => {
    const bad = { ...good, action_items: [{ ...good.action_items[0], due: 'Friday' }] };
    expect(() => validateLlmSummary(JSON.stringify(bad), 8)).toThrow('action_items[0].due is not a YYYY-MM-DD date');
    expect(() => validateLlmSummary(JSON.stringify({ ...good, decisions: [{ text: 'x', cite: [] }] }), 8)).toThrow('cites no segment');
  });
});
