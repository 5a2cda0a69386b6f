import { DEFAULT_PASSAGES, placeOf, unmarked } from '../../search/ask.service';
import { defineTool } from '../mcp.tool';
import { meetingArgument, passageFields, passageRequired, passageTime } from '../mcp.views';

/** ask_meetings: a question answered from transcripts and chat, every sentence citing the passage it comes from. */
export const askMeetingsTool = defineTool<{ question: string; meeting?: string; limit?: number }>({
  name: 'ask_meetings',
  title: 'Ask a question about meetings',
  description:
    'Answers a natural-language question (e.g. "Who owns the vendor contract renegotiation?") from what was said and written ' +
    'in the meetings this API key can read. It retrieves the transcript segments and chat messages most relevant to the ' +
    'question and answers only from them: every sentence of `answer` ends with a citation [n] whose entry in `citations` ' +
    'gives the meeting, the time (m:ss into the recording, or the chat time), the speaker and the full passage. When ' +
    'nothing in the meetings answers the question, `found` is false, there are no citations, and the answer says so: do ' +
    'not guess then. Answers quote the passages unless the server has a language model configured (`generator` says ' +
    'which). `meeting` restricts the question to one meeting; `limit` is the most passages to draw on (default 3).',
  scope: 'transcripts:read',
  annotations: { readOnlyHint: true, openWorldHint: false },
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['question'],
    properties: {
      question: { type: 'string', minLength: 1, maxLength: 1000, description: 'The question, in plain words.' },
      meeting: { ...meetingArgument, description: 'Only this meeting: its id (mtg_...) or join code (abc-defg-hij).' },
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: 10,
        default: DEFAULT_PASSAGES,
        description: `The most passages the answer draws on (1-10, default ${DEFAULT_PASSAGES}).`,
      },
    },
  },
  outputSchema: {
    type: 'object',
    required: ['question', 'found', 'answer', 'generator', 'citations'],
    properties: {
      question: { type: 'string' },
      found: {
        type: 'boolean',
        description: 'False when the meetings do not contain an answer; the answer then says so and cites nothing.',
      },
      answer: { type: 'string', description: 'Sentences each ending with citations like [1], numbering the entries of `citations`.' },
      generator: {
        type: 'string',
        enum: ['extractive', 'llm'],
        description: 'extractive: the passages quoted; llm: written by a model from the cited passages only.',
      },
      citations: {
        type: 'array',
        items: {
          type: 'object',
          required: ['number', ...passageRequired],
          properties: { number: { type: 'integer', minimum: 1, description: 'The n of [n] in the answer.' }, ...passageFields },
        },
      },
    },
  },
  async run({ principal, services }, args) {
    const answer = await services.ask.ask(principal, args);
    const citations = answer.citations.map((c) => ({ ...c, time: passageTime(c) }));
    const sources = answer.citations.map((c) => `[${c.number}] ${unmarked(`${placeOf(c)}, ${c.speaker ?? 'unknown speaker'}: ${c.text}`)}`);
    const text = sources.length === 0 ? answer.answer : `${answer.answer}\n\nSources:\n${sources.join('\n')}`;
    return { structured: { ...answer, citations }, text };
  },
});
