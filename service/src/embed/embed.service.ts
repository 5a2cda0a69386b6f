import type { Principal } from '../identity/identity.service';
import type { MeetingRow } from '../meetings/meetings.repo';
import type { MeetingsService } from '../meetings/meetings.service';
import { isoAt, type Clock } from '../shared/clock';
import { AppError } from '../shared/errors';
import { browserOrigin, embedOriginAllowed, frameAncestors, normalizeEmbedOrigin } from './embed-origins';
import type { EmbedPageConfig, EmbedPageError } from './embed-page.protocol';
import type { EmbedRepo } from './embed.repo';
import type { CreateEmbedTokenInput, EmbedOriginsInput } from './embed.schemas';
import { EMBED_TOKEN_LIMITS, featureSet, type EmbedFeatureSet, type EmbedTokens } from '../rooms/embed-tokens';

/** The answer of POST /embed/tokens. */
export interface EmbedTokenRecord {
  token: string;
  expires_at: string;
  embed_url: string;
  embeddable: boolean;
}

/** How to answer a request for the embed page: status, the frame-ancestors directive and the page's config. */
export interface EmbedPage {
  status: number;
  frameAncestors: string;
  config: EmbedPageConfig;
}

/** What the embed page request carries besides the token or code. */
export interface EmbedPageRequest {
  /** The parent origin the SDK declared (`?origin=`), else the Referer's origin. */
  parentOrigin: string | null;
  /** Features switched off in the URL (bare-code embeds only; a token fixes its own). */
  features?: Partial<EmbedFeatureSet>;
  name?: string;
}

/** Whether the embed page would let a page at some origin frame it (`GET /embed/frame-check`, asked by the SDK). */
export interface EmbedFrameCheck {
  framable: boolean;
  /** Why not: the SDK reports it as its `error` event, since a refused frame can post nothing itself. */
  reason: Extract<EmbedPageError, 'origin_not_allowed' | 'token_invalid'> | null;
}

/** Embedding: each meeting's allowed parent origins, embed tokens, and what the embed page may show to whom. */
export class EmbedService {
  constructor(
    private readonly repo: EmbedRepo,
    private readonly meetings: MeetingsService,
    private readonly tokens: EmbedTokens,
    private readonly clock: Clock,
    private readonly baseUrl: string,
  ) {}

  /** The meeting's allowed parent origins. */
  origins(principal: Principal, meetingIdOrCode: string): EmbedOriginsInput {
    return { origins: this.repo.origins(this.meetings.find(principal, meetingIdOrCode).id) };
  }

  /** Replaces the meeting's list after checking every entry (one bad entry: 400, nothing changed). */
  replaceOrigins(principal: Principal, meetingIdOrCode: string, input: EmbedOriginsInput): EmbedOriginsInput {
    const meeting = this.meetings.find(principal, meetingIdOrCode);
    const origins: string[] = [];
    const errors: { param: string; message: string }[] = [];
    input.origins.forEach((entry, index) => {
      const normalized = normalizeEmbedOrigin(entry);
      if ('error' in normalized) errors.push({ param: `origins[${index}]`, message: normalized.error });
      else if (!origins.includes(normalized.origin)) origins.push(normalized.origin);
    });
    if (errors.length > 0) throw AppError.invalid(errors);
    this.repo.replace(meeting.id, origins, isoAt(this.clock.now()));
    return { origins };
  }

  /** A token that lets a browser join the meeting as the named guest, from an allowed parent page, until it expires. */
  issueToken(principal: Principal, input: CreateEmbedTokenInput): EmbedTokenRecord {
    const meeting = this.meetings.find(principal, input.meeting);
    assertOpen(meeting);
    const ttlSeconds = input.ttl_seconds ?? EMBED_TOKEN_LIMITS.defaultTtlSeconds;
    const expiresAt = Math.floor(this.clock.now() / 1000) * 1000 + ttlSeconds * 1000;
    const token = this.tokens.sign({ meetingId: meeting.id, name: input.name.trim(), features: featureSet(input.features), expiresAt });
    return {
      token,
      expires_at: isoAt(expiresAt),
      embed_url: `${this.baseUrl}/${input.locale ?? 'en'}/embed/${token}`,
      embeddable: this.repo.origins(meeting.id).length > 0,
    };
  }

  /** The embed page for a token: a tampered or foreign token gets a page nobody can frame; an expired one says so in the frame. */
  pageForToken(token: string, request: EmbedPageRequest): EmbedPage {
    let inspected: ReturnType<EmbedTokens['inspect']>;
    try {
      inspected = this.tokens.inspect(token);
    } catch {
      return { status: 401, frameAncestors: "'none'", config: { ...NO_ROOM, error: 'token_invalid' } };
    }
    const { grant, expired } = inspected;
    const meeting = this.meetings.findAnywhere(grant.meetingId);
    const allowed = this.repo.origins(meeting.id);
    const config: EmbedPageConfig = {
      code: meeting.code,
      token,
      name: grant.name,
      nameFixed: true,
      features: grant.features,
      parentOrigin: allowedParent(request.parentOrigin, allowed),
      error: expired ? 'token_expired' : unavailability(meeting),
    };
    return this.page(allowed, config, expired ? 401 : 200);
  }

  /** The embed page for a bare meeting code: the guest types a name (or has one suggested). */
  pageForCode(code: string, request: EmbedPageRequest): EmbedPage {
    let meeting: MeetingRow;
    try {
      meeting = this.meetings.findByCode(code);
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'not_found')) throw error;
      // No meeting, nothing to protect (GET /rooms/v1/{code} says as much): any page may show the error.
      const parentOrigin = request.parentOrigin && browserOrigin(request.parentOrigin) ? request.parentOrigin : null;
      return { status: 404, frameAncestors: '*', config: { ...NO_ROOM, parentOrigin, error: 'not_found' } };
    }
    const allowed = this.repo.origins(meeting.id);
    const config: EmbedPageConfig = {
      code: meeting.code,
      token: null,
      name: request.name ?? null,
      nameFixed: false,
      features: featureSet(request.features),
      parentOrigin: allowedParent(request.parentOrigin, allowed),
      error: unavailability(meeting),
    };
    return this.page(allowed, config, 200);
  }

  /**
   * Whether a page at `origin` may frame the embed page of `target` (the same decision as its frame-ancestors):
   * a browser refuses a frame silently, so the SDK asks this to tell its host page why nothing shows.
   */
  frameCheck(target: { code: string } | { token: string }, origin: string | null): EmbedFrameCheck {
    const request = { parentOrigin: origin };
    const page = 'token' in target ? this.pageForToken(target.token, request) : this.pageForCode(target.code, request);
    if (page.config.error === 'token_invalid') return { framable: false, reason: 'token_invalid' };
    if (page.frameAncestors === '*' || page.config.parentOrigin !== null) return { framable: true, reason: null };
    return { framable: false, reason: 'origin_not_allowed' };
  }

  private page(allowed: string[], config: EmbedPageConfig, status: number): EmbedPage {
    if (!config.error && !config.parentOrigin) config.error = 'origin_not_allowed';
    return { status, frameAncestors: frameAncestors(allowed), config };
  }
}

const NO_ROOM: EmbedPageConfig = {
  code: null,
  token: null,
  name: null,
  nameFixed: false,
  features: featureSet(undefined),
  parentOrigin: null,
  error: null,
};

function allowedParent(origin: string | null, allowed: string[]): string | null {
  return origin && embedOriginAllowed(origin, allowed) ? origin : null;
}

function unavailability(meeting: MeetingRow): EmbedPageError | null {
  return meeting.status === 'ended' || meeting.status === 'cancelled' ? meeting.status : null;
}

function assertOpen(meeting: MeetingRow): void {
  const reason = unavailability(meeting);
  if (reason) throw new AppError('meeting_unavailable', `Meeting ${meeting.code} is ${reason}; nobody can join it`, { reason });
}
