import { AppError } from '../shared/errors';
import type { GuestPermissions } from './room.protocol';

/** The refusal of someone new at a locked meeting (credential request or join). */
export function meetingLocked(): AppError {
  return new AppError('forbidden', 'This meeting is locked: a host has to unlock it before anyone new can join', {
    reason: 'meeting_locked',
  });
}

/**
 * A room's host controls: whether it is locked and what guests may do. They live with the room (not the
 * meeting row): a room that closes (everyone left) opens again unlocked with every permission granted.
 */
export class RoomControls {
  locked = false;
  permissions: GuestPermissions = { unmute: true, video: true, screen: true };
  /** Identities that were in the room: a locked room still lets them back (a reconnect, a second tab). */
  private readonly members = new Set<string>();

  /** Remembers that `identity` was let into the room. */
  remember(identity: string): void {
    this.members.add(identity);
  }

  /** True when `identity` was in the room before. */
  wasMember(identity: string): boolean {
    return this.members.has(identity);
  }
}
