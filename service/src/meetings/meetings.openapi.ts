import {
  ref,
  json,
  page,
  idParam,
  pageParams,
  idempotencyKey,
  errors,
  badRequest,
  notFound,
  conflict,
  bodyErrors,
  op,
  type OpenApiFragment,
} from '../shared/openapi.parts';
import { createMeetingSchema, meetingSchema, reopenMeetingSchema, updateMeetingSchema } from './meetings.schemas';

/** The meetings part of the OpenAPI document. */
export const meetingsOpenApi: OpenApiFragment = {
  paths: {
    '/meetings': {
      get: op('meetings:read', {
        operationId: 'listMeetings',
        tags: ['Meetings'],
        summary: 'List meetings, newest first',
        parameters: [
          {
            name: 'status',
            in: 'query',
            description: 'Only meetings in this state.',
            schema: { type: 'string', enum: ['scheduled', 'live', 'ended', 'cancelled'] },
          },
          ...pageParams,
        ],
        responses: { '200': json('A page of meetings.', page('Meeting')), '400': badRequest, ...errors('meetings:read') },
      }),
      post: op('meetings:write', {
        operationId: 'createMeeting',
        tags: ['Meetings'],
        summary: 'Create a meeting or webinar',
        parameters: [idempotencyKey],
        requestBody: { required: true, content: { 'application/json': { schema: ref('CreateMeeting') } } },
        responses: {
          '201': json('The new meeting.', ref('Meeting'), {
            'Idempotent-Replayed': { $ref: '#/components/headers/Idempotent-Replayed' },
          }),
          ...bodyErrors,
          '409': conflict,
          ...errors('meetings:write'),
        },
      }),
    },
    '/meetings/{id}': {
      parameters: [idParam],
      get: op('meetings:read', {
        operationId: 'getMeeting',
        tags: ['Meetings'],
        summary: 'Get a meeting by id or code',
        responses: { '200': json('The meeting.', ref('Meeting')), '404': notFound, ...errors('meetings:read') },
      }),
      patch: op('meetings:write', {
        operationId: 'updateMeeting',
        tags: ['Meetings'],
        summary: 'Change a meeting, or end a live one with {"status": "ended"}',
        requestBody: { required: true, content: { 'application/json': { schema: ref('UpdateMeeting') } } },
        responses: {
          '200': json('The changed meeting.', ref('Meeting')),
          ...bodyErrors,
          '404': notFound,
          '409': conflict,
          ...errors('meetings:write'),
        },
      }),
      delete: op('meetings:write', {
        operationId: 'cancelMeeting',
        tags: ['Meetings'],
        summary: 'Cancel a scheduled meeting (the record stays, with status cancelled)',
        responses: {
          '200': json('The cancelled meeting.', ref('Meeting')),
          '404': notFound,
          '409': conflict,
          ...errors('meetings:write'),
        },
      }),
    },
    '/meetings/{id}/reopen': {
      parameters: [idParam],
      post: op('meetings:write', {
        operationId: 'reopenMeeting',
        tags: ['Meetings'],
        summary: 'Open an ended or cancelled meeting again',
        description:
          'Puts an ended or cancelled meeting back to `scheduled` with the same id, code, join link, webinar slug and registrations; it goes live (and emits `meeting.started`) when someone joins, and ends again as any meeting does. A meeting that is scheduled or live already is returned unchanged. No event is emitted for the reopening itself. Change its time afterwards with PATCH. Supports `Idempotency-Key`.',
        parameters: [idempotencyKey],
        requestBody: { required: false, content: { 'application/json': { schema: ref('ReopenMeeting') } } },
        responses: {
          '200': json('The reopened meeting.', ref('Meeting'), {
            'Idempotent-Replayed': { $ref: '#/components/headers/Idempotent-Replayed' },
          }),
          ...bodyErrors,
          '404': notFound,
          '409': conflict,
          ...errors('meetings:write'),
        },
      }),
    },
  },
  schemas: {
    Meeting: meetingSchema,
    ReopenMeeting: reopenMeetingSchema,
    CreateMeeting: createMeetingSchema,
    UpdateMeeting: updateMeetingSchema,
  },
};
