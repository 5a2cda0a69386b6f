import { createHmac, randomBytes } from 'node:crypto';
import type { RoomSettings } from '../config';
import type { MeetingRow } from '../meetings/meetings.repo';
import { guestsMayJoinFrom, type MeetingsService } from '../meetings/meetings.service';
import { isoAt, type Clock } from '../shared/clock';
import { AppError } from '../shared/errors';
import type { SignedTokens } from '../shared/signed-tokens';
import { objectValidator } from '../shared/validation';
import { EMBED_FEATURES, type EmbedFeature, type EmbedTokens } from './embed-tokens';
import type { Admission } from './peer';
import { meetingLocked } from './room-controls';
import type { RoomLinks } from './room-links';
import { ROOM_LIMITS, type CredentialRequest, type IceServer, type JoinCredential, type RoomInfo } from './room.protocol';

/** A socket credential is good for this long: the page fetches one right before it connects. */
const CREDENTIAL_TTL_MS = 10 * 60 * 1000;
/** TURN credentials outlive a long meeting. */
const TURN_CREDENTIAL_TTL_S = 12 * 60 * 60;

/** `o`: features an embed token switched off; `e`: the embed token's id. */
type CredentialClaims = { m: string; r: 'host' | 'guest'; n: string; i: string; g: string | null; o?: EmbedFeature[]; e?: string };

const validateCredentialRequest = objectValidator<CredentialRequest>({
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: ROOM_LIMITS.maxNameLength, format: 'single-line', pattern: '\\S' },
    host: { type: 'string', minLength: 1, maxLength: 4096 },
    holder: { type: 'string', minLength: 16, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' },
    invite: { type: 'string', minLength: 1, maxLength: 4096 },
    embed: { type: 'string', minLength: 1, maxLength: 4096 },
    rejoin: { type: 'string', minLength: 1, maxLength: 4096 },
  },
});

/** How old a guest's previous credential may be for a reconnect to keep their identity. */
const REJOIN_WINDOW_MS = 12 * 60 * 60 * 1000;

/** A webinar registrant as the room needs it: the registration's id and the name they registered with. */
export interface Registrant {
  id: string;
  name: string;
}

/** The registration `registrationId` of the webinar `meetingId`, or not_found (webinars/ answers it). */
export type RegistrantLookup = (meetingId: string, registrationId: string) => Registrant;

/** A source of TURN servers that replaces the settings' ones (the service's own TURN server, SVC_TURN=embedded). */
export interface TurnServers {
  iceServers(): { urls: string[]; secret: string };
}

/** What RoomAccess works with. */
export interface RoomAccessDeps {
  meetings: MeetingsService;
  links: RoomLinks;
  findRegistrant: RegistrantLookup;
  embedTokens: EmbedTokens;
  tokens: SignedTokens;
  clock: Clock;
  settings: RoomSettings;
  /** Whether the meeting's live room is locked to this identity (RoomsService.lockedFor); nothing is locked without it. */
  isLockedFor?: (meetingId: string, identity: string) => boolean;
}

/**
 * Who may enter a room: what the pre-join screen shows, socket credentials for hosts (host links),
 * webinar registrants (invite links), embed guests (embed tokens) and named guests, the admission a
 * credential gives, and the ICE servers handed to browsers.
 */
export class RoomAccess {
  private turn: TurnServers | undefined;

  constructor(private readonly deps: RoomAccessDeps) {}

  /** Gives the rooms the service's own TURN server (SVC_TURN=embedded): its URLs and secret replace the settings' ones. */
  useTurn(turn: TurnServers): void {
    this.turn = turn;
  }

  /** What the pre-join screen shows for a join code (any organization: the code is the invitation). */
  info(code: string): RoomInfo {
    const row = this.deps.meetings.findByCode(code);
    const unavailable = row.status === 'ended' || row.status === 'cancelled' ? row.status : null;
    return {
      code: row.code,
      title: row.title,
      kind: row.kind,
      status: row.status,
      available: unavailable === null,
      unavailable_reason: unavailable,
      waiting_room: row.waiting_room === 1,
      starts_at: isoAt(row.scheduled_at_ms),
      opens_at: isoAt(guestsMayJoinFrom(row)),
      open: openToGuests(row, this.deps.clock.now()),
    };
  }

  /** A socket credential for the room of `code`: a host (host link), a registrant (invite link) or a named guest. */
  issueCredential(code: string, body: unknown, socketBase: string): JoinCredential {
    const request = validateCredentialRequest(body);
    const meeting = this.deps.meetings.findByCode(code);
    assertAvailable(meeting);
    const { claims, notAfter } = this.claimsFor(meeting, request);
    if (claims.r !== 'host') assertOpenToGuests(meeting, this.deps.clock.now());
    if (claims.r !== 'host' && this.deps.isLockedFor?.(meeting.id, claims.i)) throw meetingLocked();
    const expiresAt = Math.min(this.deps.clock.now() + CREDENTIAL_TTL_MS, notAfter);
    const credential = this.deps.tokens.sign('room-credential', claims, expiresAt);
    return {
      credential,
      expires_at: isoAt(Math.floor(expiresAt / 1000) * 1000),
      socket_url: `${socketBase}/rooms/v1/socket?credential=${credential}`,
      role: claims.r,
      name: claims.n,
      identity: claims.i,
      ice_servers: this.iceServers(claims.i),
    };
  }

  /** Who a socket credential admits, to a meeting that can still be joined; unauthorized or meeting_unavailable otherwise. */
  admissionOf(credential: string): Admission {
    const claims = this.deps.tokens.verify<CredentialClaims>('room-credential', credential, this.deps.clock.now());
    assertAvailable(this.deps.meetings.findAnywhere(claims.m));
    return {
      meetingId: claims.m,
      role: claims.r,
      name: claims.n,
      identity: claims.i,
      registrationId: claims.g,
      switchedOff: claims.o ?? [],
      embedTokenId: claims.e ?? null,
    };
  }

  /** The credential's claims, and the latest time it may expire (an embed token's own expiry). */
  private claimsFor(meeting: MeetingRow, request: CredentialRequest): { claims: CredentialClaims; notAfter: number } {
    const { links } = this.deps;
    if (request.host) {
      const grant = links.grantOf(request.host);
      if (grant.meetingId !== meeting.id || grant.role !== 'host')
        throw new AppError('unauthorized', 'This host link is for another meeting');
      if (!request.holder) {
        throw AppError.invalid([
          { param: 'holder', message: 'is required with a host link: a secret that stays in this browser (the room page makes one)' },
        ]);
      }
      links.redeemHostLink(grant, request.holder);
      return { claims: { m: meeting.id, r: 'host', n: requiredName(request), i: grant.identity, g: null }, notAfter: Infinity };
    }
    if (request.invite) {
      const grant = links.grantOf(request.invite);
      if (grant.meetingId !== meeting.id || grant.role !== 'guest')
        throw new AppError('unauthorized', 'This invitation is for another meeting');
      const registrant = this.deps.findRegistrant(meeting.id, grant.registrationId);
      const name = registrant.name.slice(0, ROOM_LIMITS.maxNameLength);
      return { claims: { m: meeting.id, r: 'guest', n: name, i: grant.identity, g: registrant.id }, notAfter: Infinity };
    }
    if (request.embed) {
      // The token fixes the name and features: whatever else the page sends is ignored.
      const grant = this.deps.embedTokens.grantOf(request.embed);
      if (grant.meetingId !== meeting.id) throw new AppError('unauthorized', 'This embed token is for another meeting');
      const switchedOff = EMBED_FEATURES.filter((feature) => !grant.features[feature]);
      const identity = `embed-${randomBytes(8).toString('hex')}`;
      const claims = { m: meeting.id, r: 'guest' as const, n: grant.name, i: identity, g: null, o: switchedOff, e: grant.id };
      return { claims, notAfter: grant.expiresAt };
    }
    const identity = this.previousGuestIdentity(meeting.id, request.rejoin) ?? `guest-${randomBytes(8).toString('hex')}`;
    return { claims: { m: meeting.id, r: 'guest', n: requiredName(request), i: identity, g: null }, notAfter: Infinity };
  }

  /** The identity of a named guest's earlier credential for this meeting (`rejoin`), if it is one and recent; else null. */
  private previousGuestIdentity(meetingId: string, rejoin: string | undefined): string | null {
    if (!rejoin) return null;
    try {
      const claims = this.deps.tokens.signedClaims<CredentialClaims>('room-credential', rejoin);
      const plainGuest = claims.r === 'guest' && claims.g === null && claims.e === undefined;
      const recent = claims.exp * 1000 > this.deps.clock.now() - REJOIN_WINDOW_MS;
      return claims.m === meetingId && plainGuest && recent ? claims.i : null;
    } catch {
      return null;
    }
  }

  private iceServers(identity: string): IceServer[] {
    const { urls: turnUrls, secret: turnSecret } = this.turn?.iceServers() ?? {
      urls: this.deps.settings.turnUrls,
      secret: this.deps.settings.turnSecret,
    };
    if (turnUrls.length === 0) return [];
    if (!turnSecret) return [{ urls: turnUrls }];
    const username = `${Math.floor(this.deps.clock.now() / 1000) + TURN_CREDENTIAL_TTL_S}:${identity}`;
    return [{ urls: turnUrls, username, credential: createHmac('sha1', turnSecret).update(username).digest('base64') }];
  }
}

/** meeting_unavailable for a meeting that has ended or was cancelled. */
export function assertAvailable(meeting: MeetingRow): void {
  if (meeting.status === 'ended' || meeting.status === 'cancelled') {
    throw new AppError('meeting_unavailable', `Meeting ${meeting.code} is ${meeting.status}`, { reason: meeting.status });
  }
}

/** Guests may join a live meeting, or a scheduled one from `join_before_start_minutes` before its start. */
export function openToGuests(meeting: MeetingRow, now: number): boolean {
  return meeting.status === 'live' || (meeting.status === 'scheduled' && now >= guestsMayJoinFrom(meeting));
}

/** meeting_unavailable (reason not_open, with the start and opening times) unless guests may join at `now`. */
export function assertOpenToGuests(meeting: MeetingRow, now: number): void {
  if (openToGuests(meeting, now)) return;
  throw new AppError('meeting_unavailable', `Meeting ${meeting.code} has not opened yet; it starts at ${meeting.scheduled_at}`, {
    reason: 'not_open',
    starts_at: isoAt(meeting.scheduled_at_ms),
    opens_at: isoAt(guestsMayJoinFrom(meeting)),
  });
}

function requiredName(request: CredentialRequest): string {
  if (!request.name) throw AppError.invalid([{ param: 'name', message: 'is required: the name others see' }]);
  return request.name.trim();
}
