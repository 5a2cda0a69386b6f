import { TokenBucket } from '../shared/token-bucket';
import { AppError } from '../shared/errors';
import type { PeerInRoom } from './room';
import { REACTION_LIMIT, REACTIONS, type Reaction } from './room.protocol';

/** Reactions: one of a fixed set, shown to everyone on the sender's tile, at most `REACTION_LIMIT` per peer. */
export class RoomReactions {
  private readonly allowances = new WeakMap<object, TokenBucket>();

  constructor(private readonly now: () => number) {}

  /** Sends `emoji` from the session's peer to everyone in the room (the sender included). */
  send({ room, peer }: PeerInRoom, emoji: Reaction): void {
    if (!REACTIONS.includes(emoji)) throw AppError.invalid([{ param: 'emoji', message: `must be one of ${REACTIONS.join(' ')}` }]);
    if (!this.allowanceOf(peer).take(this.now())) {
      throw new AppError(
        'rate_limited',
        `At most ${REACTION_LIMIT.burst} reactions per ${REACTION_LIMIT.perSeconds} seconds; wait a moment`,
      );
    }
    room.broadcast('reaction', { peerId: peer.id, emoji });
  }

  private allowanceOf(peer: object): TokenBucket {
    let allowance = this.allowances.get(peer);
    if (!allowance) {
      allowance = new TokenBucket(REACTION_LIMIT.burst, REACTION_LIMIT.burst / REACTION_LIMIT.perSeconds, this.now());
      this.allowances.set(peer, allowance);
    }
    return allowance;
  }
}
