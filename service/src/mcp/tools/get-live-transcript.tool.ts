import { meetingArgument, meetingRefOf, meetingRefSchema } from '../mcp.views';
import { defineTool } from '../mcp.tool';

/** get_live_transcript: the live captions of a meeting so far (finals, in memory, bounded), while it runs or shortly after. */
export const getLiveTranscriptTool = defineTool<{ meeting: string }>({
  name: 'get_live_transcript',
  title: 'Get the live transcript of a running meeting',
  description:
    'Returns what has been said in a meeting while it runs, from its live captions: one line per finished utterance as ' +
    '"Speaker: words", plus the same lines as data with the speaker\'s participant id and the time. Only meetings whose host ' +
    'turned captions on have lines; the service keeps the latest 500 lines of the 100 meetings captioned most recently, in ' +
    'memory. For a finished meeting that was recorded, get_transcript has the full transcript.',
  scope: 'transcripts:read',
  annotations: { readOnlyHint: true, openWorldHint: false },
  inputSchema: { type: 'object', additionalProperties: false, required: ['meeting'], properties: { meeting: meetingArgument } },
  outputSchema: {
    type: 'object',
    required: ['meeting', 'captions_on', 'text', 'lines'],
    properties: {
      meeting: meetingRefSchema,
      captions_on: { type: 'boolean', description: 'True while captions are on in the meeting room.' },
      text: { type: 'string', description: 'One line per utterance: "Speaker: words".' },
      lines: {
        type: 'array',
        items: {
          type: 'object',
          required: ['participant_id', 'speaker', 'text', 'at'],
          properties: {
            participant_id: { type: ['string', 'null'], description: "The speaker's participant id; null when unknown." },
            speaker: { type: ['string', 'null'], description: "The speaker's name; null when unknown." },
            text: { type: 'string' },
            at: { type: 'string', format: 'date-time', description: 'When it was recognized.' },
          },
        },
      },
    },
  },
  run({ principal, services }, { meeting }) {
    const found = services.meetings.get(principal, meeting);
    const live = services.rooms.captions?.transcript(found.id) ?? { captions_on: false, lines: [] };
    const lines = live.lines.map(({ participant_id, speaker, text, at }) => ({ participant_id, speaker, text, at }));
    const text = lines.map((line) => `${line.speaker ?? 'Unknown'}: ${line.text}`).join('\n');
    return {
      structured: { meeting: meetingRefOf(found), captions_on: live.captions_on, text, lines },
      text: `Live transcript of "${found.title}" (${found.code}), captions ${live.captions_on ? 'on' : 'off'}:\n${text || '(nothing captioned)'}`,
    };
  },
});
