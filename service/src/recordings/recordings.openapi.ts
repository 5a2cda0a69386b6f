import {
  json,
  rateLimitHeaderRefs,
  page,
  idParam,
  pageParams,
  errors,
  badRequest,
  notFound,
  op,
  problem,
  type OpenApiFragment,
} from '../shared/openapi.parts';

/** A recording's bytes, as the download answers them (whole or a range). */
const WEBM_FILE = {
  headers: rateLimitHeaderRefs,
  content: {
    'video/mp4': { schema: { type: 'string', contentMediaType: 'video/mp4' } },
    'video/x-matroska': { schema: { type: 'string', contentMediaType: 'video/x-matroska' } },
    'video/webm': { schema: { type: 'string', contentMediaType: 'video/webm' } },
    'audio/webm': { schema: { type: 'string', contentMediaType: 'audio/webm' } },
  },
};

const RANGE_NOT_SATISFIABLE = {
  ...problem('The Range asks for bytes outside the file (`range_not_satisfiable`).'),
  headers: { 'Content-Range': { description: '`bytes */SIZE`: the size of the file.', schema: { type: 'string' } } },
};

/** The recordings part of the OpenAPI document. */
export const recordingsOpenApi: OpenApiFragment = {
  paths: {
    '/meetings/{id}/recordings': {
      parameters: [idParam],
      get: op('recordings:read', {
        operationId: 'listRecordings',
        tags: ['Recordings'],
        summary: 'Recordings of the meeting, newest first',
        parameters: pageParams,
        responses: {
          '200': json('A page of recordings.', page('Recording')),
          '400': badRequest,
          '404': notFound,
          ...errors('recordings:read'),
        },
      }),
    },
    '/recordings/{recording_id}/download': {
      parameters: [{ name: 'recording_id', in: 'path', required: true, schema: { type: 'string' } }],
      get: op('recordings:read', {
        operationId: 'downloadRecording',
        tags: ['Recordings'],
        summary: 'Download the file of a ready recording',
        description:
          "With the API key, or without one through the recording's signed `download_url` (`?token=`), which expires " +
          '(SVC_RECORDING_URL_TTL_SECONDS, 24 h by default). Range requests are answered with 206, a range outside the file with 416.',
        parameters: [
          {
            name: 'token',
            in: 'query',
            required: false,
            schema: { type: 'string' },
            description: 'The signed token of `download_url`; replaces the API key.',
          },
        ],
        responses: {
          '200': { ...WEBM_FILE, description: 'The file.' },
          '206': { ...WEBM_FILE, description: 'The requested byte range (`Range: bytes=start-end`), with `Content-Range`.' },
          '404': notFound,
          '416': RANGE_NOT_SATISFIABLE,
          ...errors('recordings:read'),
        },
      }),
    },
  },
  schemas: {
    Recording: {
      type: 'object',
      required: ['id', 'meeting_id', 'kind', 'status', 'duration_seconds', 'download_url', 'created_at'],
      properties: {
        id: { type: 'string' },
        meeting_id: { type: 'string' },
        kind: {
          type: 'string',
          enum: ['video', 'tracks', 'audio'],
          description:
            "A meeting recorded in the room gives two recordings. `video` (the composite): one MP4 (H.264 + AAC) anyone can play, every microphone mixed, the active speaker or a grid (the meeting's `settings.recording_layout`), the screen share on stage while shared, names on the tiles; rendered after the meeting, `recording.ready` fires for it. `tracks`: the per-track source it is rendered from (Matroska: each microphone, camera and screen share on its own track, aligned), for transcription (one speaker per track; automatic transcription starts as soon as it is ready, whether or not the composite renders) and editing; ready first, without an event. Recordings made before this split (one webm, a track per microphone) are `tracks`.",
        },
        status: { type: 'string', enum: ['processing', 'ready', 'failed'] },
        duration_seconds: { type: ['integer', 'null'] },
        size_bytes: { type: ['integer', 'null'] },
        content_type: { type: ['string', 'null'] },
        download_url: {
          type: ['string', 'null'],
          format: 'uri',
          description: 'Set once the recording is ready: a signed link that downloads the file without an API key until it expires (24 h).',
        },
        created_at: { type: 'string', format: 'date-time' },
        ready_at: { type: ['string', 'null'], format: 'date-time' },
        failure_reason: { type: ['string', 'null'], description: 'Why the recording failed (status failed); null otherwise.' },
        source_recording_id: { type: ['string', 'null'], description: "A composite's `tracks` recording; null for other kinds." },
        breakout_room_id: {
          type: ['string', 'null'],
          description:
            'The breakout room (`GET /meetings/{id}/breakout-rooms`) this recording was made in: while the meeting is recorded, each open breakout room is recorded on its own; null for the main room.',
        },
        tracks: {
          type: ['array', 'null'],
          description:
            "A `tracks` recording's tracks in the file's order (audio first): whose, which source, when each starts and ends (seconds into the file); null for other kinds.",
          items: {
            type: 'object',
            required: ['kind', 'source', 'participant_id', 'name', 'offset_seconds', 'end_seconds'],
            properties: {
              kind: { type: 'string', enum: ['audio', 'video'] },
              source: { type: 'string', description: 'microphone, camera or screen.' },
              participant_id: { type: ['string', 'null'] },
              name: { type: ['string', 'null'] },
              offset_seconds: { type: 'number' },
              end_seconds: { type: 'number' },
            },
          },
        },
      },
    },
  },
};
