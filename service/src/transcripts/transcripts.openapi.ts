import { ref, json, idParam, errors, notFound, conflict, op, type OpenApiFragment } from '../shared/openapi.parts';

/** The transcripts part of the OpenAPI document. */
export const transcriptsOpenApi: OpenApiFragment = {
  paths: {
    '/meetings/{id}/transcript': {
      parameters: [idParam],
      get: op('transcripts:read', {
        operationId: 'getTranscript',
        tags: ['Transcripts'],
        summary: 'The transcript of the meeting (404 until there is one)',
        responses: { '200': json('The transcript.', ref('Transcript')), '404': notFound, ...errors('transcripts:read') },
      }),
      post: op('meetings:write', {
        operationId: 'requestTranscript',
        tags: ['Transcripts'],
        summary: 'Transcribe the newest ready recording of the meeting (again)',
        description:
          'Queues a `transcribe` job; when it finishes, the transcript is replaced, `transcript.ready` is sent, and a summary follows (`summary.ready`). Meetings with `settings.transcription_auto` are transcribed without asking.',
        responses: {
          '202': json('The queued job.', ref('Job')),
          '404': notFound,
          '409': conflict,
          ...errors('meetings:write'),
        },
      }),
    },
    '/meetings/{id}/breakout-rooms/{room_id}/transcript': {
      parameters: [
        idParam,
        {
          name: 'room_id',
          in: 'path',
          required: true,
          description: 'The breakout room (brk_...), as GET /meetings/{id}/breakout-rooms lists it.',
          schema: { type: 'string' },
        },
      ],
      get: op('transcripts:read', {
        operationId: 'getBreakoutRoomTranscript',
        tags: ['Transcripts'],
        summary: "The transcript of one breakout room of the meeting (404 until there is one, or for another meeting's room)",
        description:
          "When a meeting with `settings.transcription_auto` is recorded, each breakout room is recorded on its own and its recording is transcribed into the room's own transcript (`breakout_room_id` set), speakers named as in the meeting's. The meeting's transcript (GET /meetings/{id}/transcript), its summary and search cover the main room only.",
        responses: { '200': json("The breakout room's transcript.", ref('Transcript')), '404': notFound, ...errors('transcripts:read') },
      }),
    },
  },
  schemas: {
    Job: {
      type: 'object',
      description: 'A durable background job (transcribe, summarize), retried with back-off up to 5 attempts.',
      required: ['id', 'kind', 'status', 'attempt_count', 'last_error', 'next_run_at', 'created_at', 'completed_at'],
      properties: {
        id: { type: 'string' },
        kind: { type: 'string', examples: ['transcribe', 'summarize'] },
        status: { type: 'string', enum: ['pending', 'running', 'succeeded', 'failed'] },
        attempt_count: { type: 'integer', minimum: 0 },
        last_error: { type: ['string', 'null'], description: 'Why the last attempt failed.' },
        next_run_at: { type: ['string', 'null'], format: 'date-time', description: 'When a pending job runs next.' },
        created_at: { type: 'string', format: 'date-time' },
        completed_at: { type: ['string', 'null'], format: 'date-time' },
      },
    },
    Transcript: {
      type: 'object',
      required: ['meeting_id', 'language', 'status', 'text', 'segments'],
      properties: {
        meeting_id: { type: 'string' },
        breakout_room_id: {
          type: 'string',
          description:
            "Only on a breakout room's own transcript (GET /meetings/{id}/breakout-rooms/{room_id}/transcript): that room (brk_...). The meeting's transcript has no such field.",
        },
        language: { type: 'string', examples: ['en'] },
        status: { type: 'string', enum: ['processing', 'ready', 'failed'] },
        text: { type: 'string' },
        segments: {
          type: 'array',
          items: {
            type: 'object',
            required: ['start', 'end', 'speaker', 'participant_id', 'text'],
            properties: {
              start: { type: 'number', description: 'Seconds from the start of the recording.' },
              end: { type: 'number' },
              speaker: {
                type: ['string', 'null'],
                description:
                  'The name of the participant whose microphone the segment was recorded from, as it was then; null when unknown.',
                examples: ['Ada Lovelace'],
              },
              participant_id: {
                type: ['string', 'null'],
                description: 'That participant, as listed by GET /meetings/{id}/participants; null when unknown.',
              },
              text: { type: 'string' },
            },
          },
        },
        created_at: { type: 'string', format: 'date-time' },
        updated_at: { type: 'string', format: 'date-time' },
      },
    },
  },
};
