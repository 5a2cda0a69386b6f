import { seedChatMessage, seedMeeting, seedParticipant, startTestServer, type TestServer } from '@svc/service/testing';
import { matchExpression, RANKED_WINDOW } from './search.service';
import { snippetOf } from './search.terms';

describe('search over transcripts and chat', () => {
  let t: TestServer;
  let key: string;
  let planning: { id: string; code: string };
  let cleo: ReturnType<typeof seedParticipant>;
  beforeAll(async () => {
    t = await startTestServer();
    key = t.key();
    planning = seedMeeting(t, { title: 'Budget planning' });
    t.services.transcripts.complete(planning.id, {
      language: 'en',
      segments: [
        { start: 0, end: 4.5, speaker: 'Ann', text: 'Welcome everyone, let us look at the budget for next year.' },
        { start: 4.5, end: 9, speaker: 'Bob', text: 'We decided to move the launch to the café in March.' },
        { start: 9, end: 12, speaker: 'Ann', participant_id: 'prt_ann', text: 'Bob will send the budget numbers by Friday.' },
      ],
    });
    cleo = seedParticipant(t, planning.id, { name: 'Cleo' });
    seedChatMessage(t, cleo, 'Link to the budget sheet: https://example.com/b');
    const elsewhere = t.services.identity.createOrganization(t.owner.id, 'Elsewhere');
    const secret = seedMeeting(t, { title: 'Secret budget' }, elsewhere.id);
    t.services.transcripts.complete(secret.id, {
      language: 'en',
      segments: [{ start: 0, end: 1, speaker: null, text: 'The budget is secret.' }],
    });
  });
  afterAll(() => t.close());
  const search = (query: string, k = key) => t.request('GET', `/api/v1/public/search?${query}`, { key: k });

  it('finds transcript segments and chat messages with a snippet, the meeting, who (name and participant) and when', async () => {
    const res = await search(`q=budget&meeting=${planning.code}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(3);
    const segment = res.body.data.find((h: { segment_index: number | null }) => h.segment_index === 2);
    expect(segment).toMatchObject({
      meeting: { id: planning.id, code: planning.code, title: 'Budget planning' },
      source: 'transcript',
      speaker: 'Ann',
      participant_id: 'prt_ann',
      start_seconds: 9,
      chat_message_id: null,
      text: 'Bob will send the budget numbers by Friday.',
    });
    expect(segment.snippet).toContain('[budget]');
    const welcome = res.body.data.find((h: { segment_index: number | null }) => h.segment_index === 0);
    expect(welcome).toMatchObject({ speaker: 'Ann', participant_id: null });
    const chat = res.body.data.find((h: { source: string }) => h.source === 'chat');
    expect(chat).toMatchObject({
      speaker: 'Cleo',
      participant_id: cleo.id,
      start_seconds: null,
      segment_index: null,
      chat_message_id: expect.stringMatching(/^msg_/),
    });
  });

  it('needs every word, ignores accents and case, and ranks the best match first', async () => {
    expect((await search('q=BUDGET%20friday')).body.data.map((h: { segment_index: number }) => h.segment_index)).toEqual([2]);
    expect((await search('q=cafe')).body.data[0].text).toContain('café');
    expect((await search('q=budget%20unicorn')).body.data).toEqual([]);
  });

  it('never fails on FTS syntax in the query, and refuses a query without a word', async () => {
    for (const hostile of [
      'budget"',
      'AND OR NOT',
      'budget*',
      '(budget',
      'NEAR(budget launch)',
      "budget's",
      '^budget',
      'budget -secret',
      '🙂 budget',
    ]) {
      const res = await search(`q=${encodeURIComponent(hostile)}`);
      expect([hostile, res.status]).toEqual([hostile, 200]);
    }
    expect(matchExpression('text:"budget" OR x*')).toBe('"text" "budget" "OR" "x"');
    const empty = await search('q=%22%20*%20(');
    expect(empty.status).toBe(400);
    expect(empty.body.errors[0].param).toBe('q');
    expect((await search('')).status).toBe(400);
    expect((await search(`q=${'a'.repeat(501)}`)).status).toBe(400);
  });

  it("keeps to the key's organizations and scopes", async () => {
    const titles = async (k: string) => (await search('q=budget', k)).body.data.map((h: { meeting: { title: string } }) => h.meeting.title);
    expect(await titles(key)).toContain('Secret budget');
    expect(await titles(t.key(undefined, { org: t.org.id }))).not.toContain('Secret budget');
    const transcriptsOnly = t.key(['transcripts:read']);
    expect((await search('q=budget', transcriptsOnly)).body.data.every((h: { source: string }) => h.source === 'transcript')).toBe(true);
    expect((await search('q=budget', t.key(['meetings:read']))).status).toBe(403);
  });

  it('pages with a cursor', async () => {
    const first = await search('q=budget&limit=2');
    expect(first.body).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
    const second = await search(`q=budget&limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.has_more).toBe(false);
    const texts = [...first.body.data, ...second.body.data].map((h: { text: string }) => h.text);
    expect(new Set(texts).size).toBe(4);
    expect((await search('q=budget&cursor=bogus')).status).toBe(400);
  });

  it('replaces a meeting’s transcript in the index when it is transcribed again', async () => {
    t.services.transcripts.complete(planning.id, {
      language: 'en',
      segments: [{ start: 0, end: 2, speaker: 'Ann', text: 'Only the roadmap.' }],
    });
    expect((await search(`q=roadmap&meeting=${planning.id}`)).body.data).toHaveLength(1);
    expect((await search(`q=friday&meeting=${planning.id}`)).body.data).toEqual([]);
  });

  it('ranks a word said in more entries than the window among its newest matches, best first', async () => {
    const standups = seedMeeting(t, { title: 'Daily standups' });
    // The oldest segment would win on BM25 (the word three times in four words); every other says it once.
    const segments = [{ start: 0, end: 1, speaker: 'Ann', text: 'Standup, standup, standup again.' }];
    for (let i = 1; i <= RANKED_WINDOW + 20; i++) {
      segments.push({
        start: i,
        end: i + 1,
        speaker: 'Bob',
        text: `Standup number ${i} covered the ${i % 2 ? 'backend' : 'frontend'} work.`,
      });
    }
    segments.push({ start: 9999, end: 10000, speaker: 'Cleo', text: 'Standup standup.' });
    t.services.transcripts.complete(standups.id, { language: 'en', segments });
    const hits: { segment_index: number; text: string }[] = (await search(`q=standup&meeting=${standups.code}&limit=3`)).body.data;
    expect(hits[0]!.text).toBe('Standup standup.');
    expect(hits.every((h) => h.segment_index > segments.length - 1 - RANKED_WINDOW)).toBe(true);
    // A more specific query has fewer matches than the window, and ranks them all: the oldest segment is found.
    expect(
      (await search(`q=standup%20again&meeting=${standups.code}`)).body.data.map((h: { segment_index: number }) => h.segment_index),
    ).toEqual([0]);
  });
});

describe('snippets', () => {
  it('show the matches in brackets with their own spelling, cut around the most matches with ellipses', () => {
    expect(snippetOf('We moved the launch to the Café in March.', ['cafe'])).toBe('We moved the launch to the [Café] in March.');
    const long = `${'intro '.repeat(20)}the budget for Friday is the budget we agreed, ${'outro '.repeat(20)}end.`;
    const snippet = snippetOf(long, ['budget', 'friday']);
    expect(snippet).toMatch(/^…/);
    expect(snippet).toMatch(/…$/);
    expect(snippet).toContain('the [budget] for [Friday] is the [budget] we agreed,');
    expect(snippet.replace(/[[\]…]/g, '').match(/\w+/g)).toHaveLength(16);
    expect(snippetOf('No match here.', ['budget'])).toBe('No match here.');
  });
});
