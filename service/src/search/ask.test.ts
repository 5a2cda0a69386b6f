import type { Principal } from '../identity/identity.service';
import { clockTime } from '../shared/clock';
import {
  CORPUS,
  CORPUS_QUESTIONS,
  UNANSWERABLE_QUESTIONS,
  principalIn,
  seedChatMessage,
  seedCorpus,
  seedParticipant,
  startFakeLlm,
  startTestServer,
  type FakeLlm,
  type TestServer,
} from '../testing';
import { keepCitedSentences, type Answer } from './ask.service';
import { questionTerms, stemOf } from './search.terms';

type Corpus = ReturnType<typeof seedCorpus>;

/** Whether an answer cites the segment a corpus question expects. */
function citesExpected(answer: Answer, corpus: Corpus, q: (typeof CORPUS_QUESTIONS)[number]): boolean {
  return answer.citations.some((c) => c.meeting.id === corpus[q.meeting].id && c.segment_index === q.segment);
}

describe('question terms', () => {
  it('drops stop words and gives every form of a word one stem that is a prefix of each', () => {
    expect(questionTerms('Who is going to renegotiate the cloud vendor contract?')).toEqual(['renegoti', 'cloud', 'vendor', 'contract']);
    for (const forms of [
      ['hire', 'hired', 'hiring', 'hires'],
      ['renegotiate', 'renegotiation', 'renegotiated'],
      ['budget', 'budgets', 'budgeting'],
      ['policy', 'policies'],
      ['release', 'released', 'releases'],
    ]) {
      const stems = new Set(forms.map(stemOf));
      expect([forms, stems.size]).toEqual([forms, 1]);
      for (const form of forms) expect(form.startsWith([...stems][0]!)).toBe(true);
    }
    expect(stemOf('status')).toBe('status');
    expect(stemOf('q3')).toBe('q3');
    expect(questionTerms('What did we say about it?')).toEqual([]);
  });
});

describe('ask: questions answered from transcripts and chat with citations (extractive)', () => {
  let t: TestServer;
  let corpus: Corpus;
  let reader: Principal;
  beforeAll(async () => {
    t = await startTestServer();
    reader = principalIn(t, t.org.id, ['transcripts:read', 'meetings:read']);
    corpus = seedCorpus(t.services, reader);
    const elsewhere = t.services.identity.createOrganization(t.owner.id, 'Elsewhere');
    const foreign = t.services.meetings.create(principalIn(t, elsewhere.id), { title: 'Foreign leave policy' });
    t.services.transcripts.complete(foreign.id, {
      language: 'en',
      segments: [{ start: 0, end: 5, speaker: 'Zoe', text: 'Our parental leave policy is sixteen weeks fully paid.' }],
    });
  });
  afterAll(() => t.close());
  const ask = (question: string, opts: { meeting?: string; limit?: number } = {}, principal = reader) =>
    t.services.ask.ask(principal, { question, ...opts });

  it('cites the right meeting and segment for at least 8 of the 10 corpus questions', async () => {
    const answers = await Promise.all(CORPUS_QUESTIONS.map((q) => ask(q.question)));
    const right = CORPUS_QUESTIONS.filter((q, i) => citesExpected(answers[i]!, corpus, q));
    const firstRight = CORPUS_QUESTIONS.filter(
      (q, i) => answers[i]!.citations[0]?.segment_index === q.segment && citesExpected(answers[i]!, corpus, q),
    );
    expect(right.length).toBeGreaterThanOrEqual(8);
    expect(firstRight.length).toBeGreaterThanOrEqual(7);
    expect(answers.every((a) => a.found && a.generator === 'extractive')).toBe(true);
  });

  it('answers only with quoted passages, each sentence ending with its citation, citing meeting, time, speaker and text', async () => {
    const answer = await ask('Who is going to renegotiate the cloud vendor contract?');
    const budget = corpus.budget;
    const segment = CORPUS.budget.segments[7]!;
    expect(answer.citations[0]).toEqual({
      number: 1,
      meeting: budget,
      source: 'transcript',
      speaker: 'Priya',
      participant_id: null,
      start_seconds: segment.start,
      segment_index: 7,
      chat_message_id: null,
      at: expect.any(String),
      text: segment.text,
    });
    const lines = answer.answer.split('\n');
    expect(lines).toHaveLength(answer.citations.length);
    lines.forEach((line, i) => expect(line).toMatch(new RegExp(`^\\w+ said in ".+" \\([a-z-]+\\) at \\d+:\\d\\d: ".+" \\[${i + 1}\\]$`)));
    expect(lines[0]).toBe(`Priya said in "Q3 budget review" (${budget.code}) at ${clockTime(segment.start)}: "${segment.text}" [1]`);
  });

  it('says the meetings do not contain an answer, with no citations, when nothing in scope is about the question', async () => {
    for (const question of [...UNANSWERABLE_QUESTIONS, 'What did we say about it?']) {
      const answer = await ask(question);
      expect(answer).toMatchObject({ question, found: false, citations: [] });
      expect(answer.answer).toMatch(/^The meetings do not contain an answer to this question/);
    }
  });

  it('keeps to one meeting when asked to, and refuses an unknown meeting or a question without a word', async () => {
    const inHiring = await ask('When is the public launch of Atlas?', { meeting: corpus.hiring.code });
    expect(inHiring.found).toBe(false);
    const inLaunch = await ask('When is the public launch of Atlas?', { meeting: corpus.launch.id, limit: 10 });
    expect(inLaunch.citations.length).toBeGreaterThan(0);
    expect(inLaunch.citations.every((c) => c.meeting.id === corpus.launch.id)).toBe(true);
    await expect(ask('launch?', { meeting: 'zzz-zzzz-zzz' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(ask('?! …')).rejects.toMatchObject({ code: 'validation_failed', extra: { param: 'question' } });
  });

  it('cites chat messages only for keys that may read meetings, and never another organization', async () => {
    const ken = seedParticipant(t, corpus.launch.id, { name: 'Ken' });
    const message = seedChatMessage(t, ken, 'The launch party is on the rooftop terrace at six, drinks are on marketing.');
    const withChat = await ask('Where is the launch party?');
    expect(withChat.citations[0]).toMatchObject({ source: 'chat', chat_message_id: message.id, speaker: 'Ken', start_seconds: null });
    expect(withChat.answer).toMatch(
      /^Ken wrote in "Atlas launch planning" \([a-z-]+\), chat at \d{4}-\d\d-\d\d \d\d:\d\d UTC: "The launch party/,
    );
    const transcriptsOnly = principalIn(t, t.org.id, ['transcripts:read']);
    expect((await ask('Where is the launch party?', {}, transcriptsOnly)).citations.some((c) => c.source === 'chat')).toBe(false);
    expect((await ask('What is the parental leave policy?', {}, transcriptsOnly)).found).toBe(false);
  });

  it('quotes chat so that its text cannot plant citation markers or lines in the answer', async () => {
    const mallory = seedParticipant(t, corpus.launch.id, { name: 'Mallory [2]' });
    const text = 'The snack budget is final [7] [1, 2]\nAda said in "Atlas launch planning" at 0:01: "snack budget doubled" [3]';
    seedChatMessage(t, mallory, text);
    const answer = await ask('What about the snack budget?', { limit: 1 });
    expect(answer.citations).toEqual([expect.objectContaining({ number: 1, source: 'chat', text, speaker: 'Mallory [2]' })]);
    expect(answer.answer.split('\n')).toHaveLength(1);
    expect([...answer.answer.matchAll(/\[[\d\s,]+\]/g)].map((m) => m[0])).toEqual(['[1]']);
    expect(answer.answer).toMatch(/^Mallory \(2\) wrote in .*: "The snack budget is final \(7\) \(1, 2\) Ada said .*\(3\)" \[1\]$/);
  });

  it('limits the passages to `limit`', async () => {
    expect((await ask('launch', { limit: 1 })).citations).toHaveLength(1);
  });

  it('quotes a long passage from its sentence with most of the question’s words, and cites the whole passage', async () => {
    const meeting = t.services.meetings.create(reader, { title: 'Vendor day' });
    const answerSentence = 'The shortlisted supplier for the data pipeline is Kestrel Systems, chosen for its on-premise option.';
    const text = [
      'We spent the morning on introductions, coffee and the agenda for the rest of the day, which was longer than planned.',
      'Three companies presented, each for about forty minutes, and everybody had questions about pricing and support.',
      answerSentence,
      'After lunch we went through the security questionnaire and two reference calls, which took most of the afternoon.',
    ].join(' ');
    t.services.transcripts.complete(meeting.id, { language: 'en', segments: [{ start: 3600, end: 3700, speaker: 'Ivo', text }] });
    const answer = await ask('Which supplier was shortlisted for the data pipeline?');
    expect(answer.citations[0]).toMatchObject({ meeting: { id: meeting.id }, text });
    expect(answer.answer.split('\n')[0]).toBe(`Ivo said in "Vendor day" (${meeting.code}) at 1:00:00: "…${answerSentence}" [1]`);
  });
});

describe('ask with an LLM endpoint configured', () => {
  let t: TestServer;
  let llm: FakeLlm;
  let corpus: Corpus;
  let reader: Principal;
  beforeAll(async () => {
    llm = await startFakeLlm({ apiKey: 'sk-test' });
    t = await startTestServer({ SVC_LLM_URL: llm.url, SVC_LLM_API_KEY: 'sk-test', SVC_LLM_MODEL: 'answer-model' });
    reader = principalIn(t, t.org.id, ['transcripts:read']);
    corpus = seedCorpus(t.services, reader);
  });
  afterAll(async () => {
    await t.close();
    await llm.close();
  });
  afterEach(() => {
    expect(llm.problems).toEqual([]);
    llm.requests.length = 0;
  });
  const question = 'Who is going to renegotiate the cloud vendor contract?';

  it('sends the question and the numbered passages, and keeps only cited sentences, renumbered, with their citations', async () => {
    let passages: string[] = [];
    llm.reply = (request) => {
      passages = request.messages[1]!.content.split('\n').filter((line) => /^\[\d+\]/.test(line));
      const priya = passages.findIndex((line) => line.includes('Priya: I can take the vendor side.')) + 1;
      return {
        content:
          `Priya will renegotiate the cloud vendor contract for a committed-use discount. [${priya}]\n` +
          'She is the best negotiator in the company.\n' +
          `The proposal is due before the October board meeting [${priya + 1}, 42].`,
      };
    };
    const answer = await t.services.ask.ask(reader, { question });
    expect(llm.requests).toHaveLength(1);
    const [system, user] = llm.requests[0]!.messages;
    expect(llm.requests[0]).toMatchObject({ authorization: 'Bearer sk-test', model: 'answer-model', temperature: 0 });
    expect(system!.role).toBe('system');
    expect(system!.content).toMatch(/only the numbered passages/);
    expect(system!.content).toMatch(/NOT_FOUND/);
    expect(user!.content).toMatch(new RegExp(`^Question: ${question.replace('?', '\\?')}\\n\\nPassages:\\n\\[1\\] `));
    expect(passages.length).toBeGreaterThan(1);
    const segment = CORPUS.budget.segments[7]!;
    expect(passages.join('\n')).toContain(
      `"Q3 budget review" (${corpus.budget.code}) at ${clockTime(segment.start)}, Priya: ${segment.text}`,
    );

    expect(answer.generator).toBe('llm');
    expect(answer.found).toBe(true);
    expect(answer.answer).toBe(
      'Priya will renegotiate the cloud vendor contract for a committed-use discount. [1]\n' +
        'The proposal is due before the October board meeting [2].',
    );
    expect(answer.citations.map((c) => c.number)).toEqual([1, 2]);
    expect(answer.citations[0]).toMatchObject({ meeting: corpus.budget, segment_index: 7, speaker: 'Priya' });
  });

  it('falls back to quoting the passages when the model cites nothing that exists, fails or times out', async () => {
    for (const reply of [{ content: 'The contract is renewed every year [9].' }, { content: 'No citations at all.' }, { status: 500 }]) {
      llm.reply = () => reply;
      const answer = await t.services.ask.ask(reader, { question });
      expect([reply, answer.generator, answer.found]).toEqual([reply, 'extractive', true]);
      expect(answer.citations[0]).toMatchObject({ number: 1, meeting: corpus.budget, segment_index: 7 });
      expect(answer.answer).toMatch(/^Priya said in "Q3 budget review"/);
    }
    expect(llm.requests).toHaveLength(3);
  });

  it('says it does not know when the model finds no answer in the passages, and does not ask the model when nothing was retrieved', async () => {
    llm.reply = () => ({ content: 'NOT_FOUND' });
    const answer = await t.services.ask.ask(reader, { question: 'Who owns the pairing exercise rubric for the candidates?' });
    expect(answer).toMatchObject({ found: false, generator: 'llm', citations: [] });
    expect(llm.requests).toHaveLength(1);
    const nothing = await t.services.ask.ask(reader, { question: UNANSWERABLE_QUESTIONS[0]! });
    expect(nothing).toMatchObject({ found: false, generator: 'extractive', citations: [] });
    expect(llm.requests).toHaveLength(1);
  });
});

describe('keepCitedSentences', () => {
  it('keeps cited sentences, moves a marker written after the full stop to its sentence, drops markers that name no passage', () => {
    expect(keepCitedSentences('A is true. [2] B is made up. C holds [3,1]. D [7].', 3)).toEqual({
      text: 'A is true. [1] C holds [2][3].',
      numbers: [2, 3, 1],
    });
    expect(keepCitedSentences('Nothing cited here.', 3)).toBeNull();
    expect(keepCitedSentences('Only [0] and [4] here.', 3)).toBeNull();
    expect(keepCitedSentences('- first [1]\n- second\n- third [1]', 1)).toEqual({ text: '- first [1]\n- third [1]', numbers: [1] });
  });
});
