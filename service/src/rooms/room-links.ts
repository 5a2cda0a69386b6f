import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Principal } from '../identity/identity.service';
import type { MeetingRow } from '../meetings/meetings.repo';
import type { MeetingsService } from '../meetings/meetings.service';
import { isoAt, type Clock } from '../shared/clock';
import { AppError } from '../shared/errors';
import type { SignedTokens } from '../shared/signed-tokens';
import type { HostLinkHoldersRepo } from './host-link-holders.repo';

/** How long a host link works unless asked otherwise, and the bounds of `ttl_seconds`. */
export const HOST_LINK_TTL = { defaultSeconds: 2 * 60 * 60, minSeconds: 60, maxSeconds: 24 * 60 * 60 } as const;
/** A registrant's personal link works until this long after the webinar's planned end. */
const REGISTRANT_LINK_GRACE_MS = 30 * 24 * 60 * 60 * 1000;

/** A signed, short-lived link that makes whoever opens it a host of the meeting. */
export interface HostLink {
  url: string;
  expires_at: string;
}

/** What a join link lets its holder do in a meeting's room. */
export type JoinGrant =
  { meetingId: string; role: 'host'; identity: string } | { meetingId: string; role: 'guest'; registrationId: string; identity: string };

type LinkClaims = { m: string; r: 'host'; i: string } | { m: string; r: 'registrant'; g: string };

/** Signed join links: host links (`?host=`) and webinar registrants' personal links (`?invite=`). */
export class RoomLinks {
  constructor(
    private readonly tokens: SignedTokens,
    private readonly meetings: MeetingsService,
    private readonly holders: HostLinkHoldersRepo,
    private readonly clock: Clock,
    private readonly baseUrl: string,
  ) {}

  /** A host link to a meeting the principal can change that has not ended or been cancelled. */
  hostLink(principal: Principal, meetingIdOrCode: string, ttlSeconds: number = HOST_LINK_TTL.defaultSeconds): HostLink {
    const meeting = this.meetings.find(principal, meetingIdOrCode);
    if (meeting.status === 'ended' || meeting.status === 'cancelled') {
      throw AppError.conflict(`Meeting ${meeting.code} is ${meeting.status}; nobody can join it`);
    }
    const expiresAt = this.clock.now() + ttlSeconds * 1000;
    const claims: LinkClaims = { m: meeting.id, r: 'host', i: `host-${randomBytes(6).toString('hex')}` };
    const token = this.tokens.sign('room-join', claims, expiresAt);
    return { url: `${this.baseUrl}/m/${meeting.code}?host=${token}`, expires_at: isoAt(Math.floor(expiresAt / 1000) * 1000) };
  }

  /** The personal join link of a webinar registration; the same registration always gets the same link. */
  registrantJoinUrl(webinar: MeetingRow, registrationId: string, registeredAt: string): string {
    const plannedEnd = webinar.scheduled_at_ms + webinar.duration_minutes * 60_000;
    const expiresAt = Math.max(plannedEnd, Date.parse(registeredAt)) + REGISTRANT_LINK_GRACE_MS;
    const claims: LinkClaims = { m: webinar.id, r: 'registrant', g: registrationId };
    return `${this.baseUrl}/m/${webinar.code}?invite=${this.tokens.sign('room-join', claims, expiresAt)}`;
  }

  /**
   * Redeems a host link for the browser whose secret is `holder`: the first browser to redeem it owns it
   * (its secret stored as a SHA-256), the same browser may redeem it again (reload, reconnect), any other
   * is refused with forbidden (`reason: host_link_taken`), so a link copied from an address bar makes
   * nobody else a host.
   */
  redeemHostLink(grant: JoinGrant & { role: 'host' }, holder: string): void {
    const offered = createHash('sha256').update(holder).digest();
    const bound = this.holders.bindOnce(grant.meetingId, grant.identity, offered.toString('hex'), isoAt(this.clock.now()));
    if (!timingSafeEqual(Buffer.from(bound, 'hex'), offered)) {
      throw new AppError('forbidden', 'This host link was already used in another browser; ask the organizer for a host link of your own', {
        reason: 'host_link_taken',
      });
    }
  }

  /** What a host or invite token grants, checked for signature and expiry; unauthorized otherwise. */
  grantOf(token: string): JoinGrant {
    const claims = this.tokens.verify<LinkClaims>('room-join', token, this.clock.now());
    if (claims.r === 'host') return { meetingId: claims.m, role: 'host', identity: claims.i };
    return { meetingId: claims.m, role: 'guest', registrationId: claims.g, identity: `registrant-${claims.g}` };
  }
}
