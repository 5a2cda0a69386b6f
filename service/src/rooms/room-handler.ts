import type { JsonSchema } from '../shared/validation';
import type { PeerInRoom } from './room';
import type { RoomMethod, RoomMethods } from './room.protocol';
import type { RoomsService } from './rooms.service';

/** One signalling method: validates its data, acts for the session's peer, returns the result. */
export interface RoomHandler<M extends RoomMethod> {
  schema: JsonSchema;
  /** True for methods a peer may call before it is in the room. */
  beforeJoin?: boolean;
  run(session: PeerInRoom, data: RoomMethods[M]['data'], rooms: RoomsService): RoomMethods[M]['result'] | Promise<RoomMethods[M]['result']>;
}

/** An id in a request (a peer, transport, producer or consumer). */
export const id = { type: 'string', minLength: 1, maxLength: 100 } as const;
/** Parameters mediasoup-client produces (checked by mediasoup itself). */
export const params = { type: 'object' } as const;
/** No data. */
export const empty: JsonSchema = { type: 'object', additionalProperties: false, properties: {} };
/** An object with exactly these properties, `required` among them. */
export const fields = (required: string[], properties: Record<string, unknown>): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  required,
  properties,
});
