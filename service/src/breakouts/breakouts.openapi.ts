import { errors, idParam, json, notFound, op, ref, type OpenApiFragment } from '../shared/openapi.parts';

/** The breakout rooms part of the OpenAPI document. */
export const breakoutsOpenApi: OpenApiFragment = {
  paths: {
    '/meetings/{id}/breakout-rooms': {
      parameters: [idParam],
      get: op('meetings:read', {
        operationId: 'listBreakoutRooms',
        tags: ['Meetings'],
        summary: 'The breakout rooms hosts opened in the meeting, oldest set first, with who was assigned to each',
        responses: {
          '200': json('The breakout rooms.', {
            type: 'object',
            required: ['data'],
            properties: { data: { type: 'array', items: ref('BreakoutRoom') } },
          }),
          '404': notFound,
          ...errors('meetings:read'),
        },
      }),
    },
  },
  schemas: {
    BreakoutRoom: {
      type: 'object',
      required: ['id', 'name', 'status', 'participants', 'recording_ids', 'transcript'],
      properties: {
        id: { type: 'string', description: 'brk_...' },
        name: { type: 'string' },
        status: {
          type: 'string',
          enum: ['draft', 'open', 'closing', 'closed'],
          description: 'draft: prepared, not open yet; closing: everyone goes back to the main room when the 30-second countdown ends.',
        },
        participants: {
          type: 'array',
          description: 'Who was assigned to the room.',
          items: {
            type: 'object',
            required: ['participant_id', 'name'],
            properties: { participant_id: { type: 'string' }, name: { type: 'string' } },
          },
        },
        recording_ids: {
          type: 'array',
          items: { type: 'string' },
          description:
            'The recordings made in the room (its `tracks` recording and its composite), oldest first: a breakout room of a recorded meeting is recorded on its own. GET /meetings/{id}/recordings lists them with this `breakout_room_id`.',
        },
        transcript: {
          type: ['object', 'null'],
          description:
            "The room's own transcript (a meeting with `settings.transcription_auto` transcribes each breakout room's recording on its own); null when none was made or asked for. The meeting's transcript and summary cover its main room only.",
          required: ['status', 'url'],
          properties: {
            status: {
              type: 'string',
              enum: ['processing', 'ready', 'failed'],
              description:
                "As the meeting's transcript status in the dashboard: processing: its newest transcribe job is queued or running (a re-run too); " +
                'failed: that job failed after the stored transcript, if any (see the dashboard or `svc jobs list`); ready: stored.',
            },
            url: {
              type: 'string',
              format: 'uri',
              description: 'GET /meetings/{id}/breakout-rooms/{room_id}/transcript (transcripts:read); 404 until it is ready.',
            },
          },
        },
      },
    },
  },
};
