import { placeOf } from '../../search/ask.service';
import { matchExpression } from '../../search/search.service';
import { AppError } from '../../shared/errors';
import { defineTool } from '../mcp.tool';
import { meetingArgument, pageArguments, pageOutputFields, passageFields, passageRequired, passageTime } from '../mcp.views';

/** search_content: full-text search over transcripts and chat, best match first, with meeting, time and snippet per hit. */
export const searchContentTool = defineTool<{ query: string; meeting?: string; limit?: number; cursor?: string }>({
  name: 'search_content',
  title: 'Search transcripts and chat',
  description:
    'Full-text search over what was said (transcripts) and written (chat) in the meetings this API key can read, best match ' +
    'first. Every word of `query` must occur (case and accents are ignored; no operators, no stemming: "budget" does not find ' +
    '"budgets"), so use a few distinctive words. Each hit names the meeting, who spoke, when (m:ss into the recording for ' +
    'transcripts, the send time for chat) and a snippet with the matching words in [brackets]; get_transcript with the ' +
    'meeting shows the context. `meeting` limits the search to one meeting. To have a question answered with citations, ' +
    'use ask_meetings instead. Chat is searched only when the key also has meetings:read. Up to `limit` hits (default 10); ' +
    'when `has_more` is true, call again with `cursor` set to `next_cursor`.',
  scope: 'transcripts:read',
  annotations: { readOnlyHint: true, openWorldHint: false },
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['query'],
    properties: {
      query: { type: 'string', minLength: 1, maxLength: 500, description: 'The words to find, e.g. "travel budget".' },
      meeting: { ...meetingArgument, description: 'Only this meeting: its id (mtg_...) or join code (abc-defg-hij).' },
      ...pageArguments('hits'),
    },
  },
  outputSchema: {
    type: 'object',
    required: ['hits', 'has_more', 'next_cursor'],
    properties: {
      hits: {
        type: 'array',
        items: {
          type: 'object',
          required: [...passageRequired, 'snippet'],
          properties: {
            ...passageFields,
            snippet: { type: 'string', description: 'The text around the match, matching words in [brackets], cuts marked with …' },
          },
        },
      },
      ...pageOutputFields,
    },
  },
  run({ principal, services }, { query, meeting, limit = 10, cursor }) {
    if (!matchExpression(query)) throw AppError.invalid([{ param: 'query', message: 'must contain at least one word' }]);
    const page = services.search.search(principal, { q: query, meeting, limit, cursor });
    const hits = page.data.map((hit) => ({
      meeting: hit.meeting,
      source: hit.source,
      speaker: hit.speaker,
      participant_id: hit.participant_id,
      time: passageTime(hit),
      start_seconds: hit.start_seconds,
      segment_index: hit.segment_index,
      chat_message_id: hit.chat_message_id,
      at: hit.at,
      text: hit.text,
      snippet: hit.snippet,
    }));
    const lines = page.data.map((hit, i) => `${i + 1}. ${placeOf(hit)}, ${hit.speaker ?? 'unknown speaker'}: ${hit.snippet}`);
    const more = page.has_more ? `\nMore hits: call again with cursor "${page.next_cursor}".` : '';
    const text = hits.length === 0 ? `No transcript or chat passage contains every word of "${query}".` : `${lines.join('\n')}${more}`;
    return { structured: { hits, has_more: page.has_more, next_cursor: page.next_cursor }, text };
  },
});
