import { createHash } from 'node:crypto';
import type { Clock } from '../shared/clock';
import { AppError } from '../shared/errors';
import type { SignedTokens } from '../shared/signed-tokens';

/** The prefix of every embed token. */
export const EMBED_TOKEN_PREFIX = 'svc_et_';

/** Bounds of an embed token's lifetime and of the guest name it fixes. */
export const EMBED_TOKEN_LIMITS = { defaultTtlSeconds: 900, minTtlSeconds: 60, maxTtlSeconds: 86_400, maxNameLength: 80 } as const;

/** A locale in an embed URL (`de`, `pt-BR`); the room speaks en, de and fr and falls back to English. */
export const EMBED_LOCALE_PATTERN = '^[a-z]{2}(-[A-Za-z]{2})?$';

/** The parts of the room an embedder can switch off; each is on unless set to false. */
export const EMBED_FEATURES = ['chat', 'participants', 'screenshare'] as const;

/** One switchable part of the embedded room. */
export type EmbedFeature = (typeof EMBED_FEATURES)[number];

/** Every feature, on or off. */
export type EmbedFeatureSet = Record<EmbedFeature, boolean>;

/** What a valid embed token grants: a guest with a fixed name in one meeting, with these features, until `expiresAt`. */
export interface EmbedGrant {
  meetingId: string;
  name: string;
  features: EmbedFeatureSet;
  /** Epoch ms. */
  expiresAt: number;
}

/** A grant read from a token, with the token's id (a digest of its signed part: the same however often it is used). */
export interface TokenGrant extends EmbedGrant {
  id: string;
}

type EmbedClaims = { m: string; n: string; f: EmbedFeatureSet };

/** Signs and checks embed tokens (`svc_et_...`), HMAC-signed under their own derived key. */
export class EmbedTokens {
  constructor(
    private readonly tokens: SignedTokens,
    private readonly clock: Clock,
  ) {}

  /** A token for `grant`. */
  sign(grant: EmbedGrant): string {
    const claims: EmbedClaims = { m: grant.meetingId, n: grant.name, f: grant.features };
    return this.tokens.sign('embed', claims, grant.expiresAt, EMBED_TOKEN_PREFIX);
  }

  /** What a token grants now; unauthorized when it is tampered with, foreign or expired. */
  grantOf(token: string): TokenGrant {
    const inspected = this.inspect(token);
    if (inspected.expired) throw new AppError('unauthorized', 'The embed token has expired; the embedding page must fetch a new one');
    return inspected.grant;
  }

  /** What a genuine token grants and whether it has expired (the embed page says so inside the frame); unauthorized when not genuine. */
  inspect(token: string): { grant: TokenGrant; expired: boolean } {
    const claims = this.tokens.signedClaims<EmbedClaims>('embed', token, EMBED_TOKEN_PREFIX);
    const expiresAt = claims.exp * 1000;
    const id = createHash('sha256').update(token.split('.')[0]!).digest('base64url').slice(0, 22);
    return { grant: { id, meetingId: claims.m, name: claims.n, features: claims.f, expiresAt }, expired: expiresAt <= this.clock.now() };
  }
}

/** Features as given (missing ones on). */
export function featureSet(features: Partial<EmbedFeatureSet> | undefined): EmbedFeatureSet {
  return { chat: features?.chat ?? true, participants: features?.participants ?? true, screenshare: features?.screenshare ?? true };
}
