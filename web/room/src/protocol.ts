/** The room wire protocol as the page uses it: the service's types, and its published limits. */
export type {
  Caption,
  ChatMessage,
  ClientRequest,
  GuestPermissions,
  RaisedHand,
  Reaction,
  ConsumerOptions,
  CredentialRequest,
  JoinCredential,
  LeaveReason,
  MediaSource,
  ParticipantRole,
  PeerInfo,
  RoomError,
  RoomInfo,
  RoomMethod,
  RoomMethods,
  RoomNotification,
  RoomNotifications,
  RoomState,
  ServerNotificationFrame,
  ServerResponse,
  TransportOptions,
  UnavailableReason,
  WaitingPeer,
} from '../../../service/src/rooms/room.protocol';
export { REACTIONS, ROOM_LIMITS } from '../../../service/src/rooms/room.protocol';
export type { NewPoll, RoomPoll } from '../../../service/src/polls/polls.protocol';
export { POLL_LIMITS } from '../../../service/src/polls/polls.protocol';
export type { BreakoutMove, BreakoutState } from '../../../service/src/breakouts/breakouts.protocol';
export { BREAKOUT_LIMITS } from '../../../service/src/breakouts/breakouts.protocol';
