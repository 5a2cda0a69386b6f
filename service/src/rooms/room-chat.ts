import type { Principal } from '../identity/identity.service';
import type { MeetingsService } from '../meetings/meetings.service';
import type { SearchService } from '../search/search.service';
import { isoAt, type Clock } from '../shared/clock';
import { AppError } from '../shared/errors';
import type { IdGenerator } from '../shared/ids';
import { toPage, type Page, type PageRequest } from '../shared/paging';
import type { Transaction } from '../shared/transaction';
import type { ChatRepo } from './chat.repo';
import type { PeerInRoom } from './room';
import type { ChatMessage } from './room.protocol';

/** Chat messages a joining peer sees. */
const CHAT_HISTORY = 100;

/** What RoomChat works with. */
export interface RoomChatDeps {
  repo: ChatRepo;
  meetings: MeetingsService;
  search: Pick<SearchService, 'indexChat'>;
  transaction: Transaction;
  ids: IdGenerator;
  clock: Clock;
}

/** The chat of rooms: messages sent in a room (stored, indexed for search, shown to the others) and the meeting's chat log. */
export class RoomChat {
  constructor(private readonly deps: RoomChatDeps) {}

  /** Stores a chat message of a joined peer and shows it to everyone else in the room. */
  send({ room, peer }: PeerInRoom, text: string): ChatMessage {
    if (peer.state !== 'joined' || !peer.participantId) throw AppError.conflict('Join the room before you chat');
    if (peer.admission.switchedOff.includes('chat')) throw new AppError('forbidden', 'Chat is switched off for this embedded room');
    if (!/\S/.test(text)) throw AppError.invalid([{ param: 'text', message: 'must not be blank' }]);
    if (!peer.takeChatAllowance(this.deps.clock.now()))
      throw new AppError('rate_limited', 'You are sending messages too fast; wait a moment');
    const message = this.save(room.meeting.id, peer.participantId, peer.name, peer.admission.identity, text);
    room.broadcast('chatMessage', { message }, peer);
    return message;
  }

  /** Stores a chat message of a participant in the meeting's chat log (and the search index). */
  save(meetingId: string, participantId: string, senderName: string, senderIdentity: string, text: string): ChatMessage {
    const message: ChatMessage = {
      id: this.deps.ids.next('msg'),
      meeting_id: meetingId,
      participant_id: participantId,
      sender_name: senderName,
      sender_identity: senderIdentity,
      text,
      sent_at: isoAt(this.deps.clock.now()),
    };
    const organizationId = this.deps.meetings.findAnywhere(meetingId).organization_id;
    this.deps.transaction(() => {
      this.deps.repo.insert(message);
      this.deps.search.indexChat(message, organizationId);
    });
    return message;
  }

  /** One page of a meeting's chat log, newest first. */
  list(principal: Principal, meetingIdOrCode: string, page: PageRequest): Page<ChatMessage> {
    const meeting = this.deps.meetings.find(principal, meetingIdOrCode);
    return toPage(this.deps.repo.list(meeting.id, page.after, page.limit + 1), page.limit, (row) => row);
  }

  /** The latest messages of a meeting, oldest first: what a joining peer sees. */
  history(meetingId: string): ChatMessage[] {
    return this.deps.repo.latest(meetingId, CHAT_HISTORY);
  }
}
