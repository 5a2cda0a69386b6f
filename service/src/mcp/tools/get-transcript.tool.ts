import { meetingArgument, meetingRefOf, meetingRefSchema, transcriptText } from '../mcp.views';
import { defineTool } from '../mcp.tool';

/** get_transcript: a meeting's transcript as plain text with timed segments; translation only where an engine is configured. */
export const getTranscriptTool = defineTool<{ meeting: string; translate_to?: string }>({
  name: 'get_transcript',
  title: 'Get a transcript',
  description:
    'Returns what was said in a meeting: the transcript as plain text, one line per segment as "[m:ss] Speaker: words" (time from ' +
    'the start of the recording), plus the same segments as data. Only meetings that were recorded and transcribed have one; ' +
    'otherwise the tool says so. `translate_to` (a language code such as "de") asks for a translation: this server has no ' +
    'translation engine configured, so it is refused unless it names the language the transcript is already in.',
  scope: 'transcripts:read',
  annotations: { readOnlyHint: true, openWorldHint: false },
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['meeting'],
    properties: {
      meeting: meetingArgument,
      translate_to: {
        type: 'string',
        pattern: '^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$',
        description: 'Language code (BCP 47, e.g. "en", "de", "pt-BR") to translate the transcript into.',
      },
    },
  },
  outputSchema: {
    type: 'object',
    required: ['meeting', 'language', 'status', 'text', 'segments'],
    properties: {
      meeting: meetingRefSchema,
      language: { type: 'string' },
      status: { type: 'string', enum: ['processing', 'ready', 'failed'] },
      text: { type: 'string', description: 'One line per segment: "[m:ss] Speaker: words".' },
      segments: {
        type: 'array',
        items: {
          type: 'object',
          required: ['index', 'start', 'end', 'speaker', 'participant_id', 'text'],
          properties: {
            index: { type: 'integer', description: 'Position in the transcript; summaries cite segments by it.' },
            start: { type: 'number', description: 'Seconds from the start of the recording.' },
            end: { type: 'number' },
            speaker: {
              type: ['string', 'null'],
              description: 'Whose microphone it was recorded from (their name then); null when unknown.',
            },
            participant_id: {
              type: ['string', 'null'],
              description: "That participant's id (the meeting's participants list in the REST API); null when unknown.",
            },
            text: { type: 'string' },
          },
        },
      },
    },
  },
  run({ principal, services }, { meeting, translate_to }) {
    const found = services.meetings.get(principal, meeting);
    const transcript = services.transcripts.find(principal, found.id, { translateTo: translate_to });
    const text = transcriptText(transcript);
    const segments = transcript.segments.map((s, index) => ({ index, ...s }));
    return {
      structured: { meeting: meetingRefOf(found), language: transcript.language, status: transcript.status, text, segments },
      text: `Transcript of "${found.title}" (${found.code}), language ${transcript.language}:\n${text}`,
    };
  },
});
