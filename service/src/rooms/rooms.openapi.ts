import {
  badRequest,
  bodyErrors,
  conflict,
  errors,
  idParam,
  json,
  notFound,
  op,
  page,
  pageParams,
  ref,
  type OpenApiFragment,
} from '../shared/openapi.parts';
import { createHostLinkSchema, hostLinkSchema } from './rooms.schemas';

/** The rooms part of the OpenAPI document. */
export const roomsOpenApi: OpenApiFragment = {
  paths: {
    '/meetings/{id}/host-links': {
      parameters: [idParam],
      post: op('meetings:write', {
        operationId: 'createHostLink',
        tags: ['Meetings'],
        summary: 'A signed, short-lived link that joins its holder as a host',
        requestBody: { required: false, content: { 'application/json': { schema: ref('CreateHostLink') } } },
        responses: {
          '201': json('The host link.', ref('HostLink')),
          ...bodyErrors,
          '404': notFound,
          '409': conflict,
          ...errors('meetings:write'),
        },
      }),
    },
    '/meetings/{id}/chat-messages': {
      parameters: [idParam],
      get: op('meetings:read', {
        operationId: 'listChatMessages',
        tags: ['Meetings'],
        summary: "The meeting room's chat log, newest first",
        parameters: pageParams,
        responses: {
          '200': json('A page of chat messages.', page('ChatMessage')),
          '400': badRequest,
          '404': notFound,
          ...errors('meetings:read'),
        },
      }),
    },
  },
  schemas: {
    CreateHostLink: createHostLinkSchema,
    HostLink: hostLinkSchema,
    ChatMessage: {
      type: 'object',
      required: ['id', 'meeting_id', 'participant_id', 'sender_name', 'sender_identity', 'text', 'sent_at'],
      properties: {
        id: { type: 'string', description: 'msg_...' },
        meeting_id: { type: 'string' },
        participant_id: { type: 'string', description: 'The sender, as listed by GET /meetings/{id}/participants.' },
        sender_name: { type: 'string' },
        sender_identity: { type: 'string' },
        text: { type: 'string', maxLength: 2000 },
        sent_at: { type: 'string', format: 'date-time' },
      },
    },
  },
};
