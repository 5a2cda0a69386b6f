import type { EmbedFeatures, EmbedTheme } from './protocol.js';

/** What the room iframe's address is made of. */
export interface EmbedUrlParts {
  /** The service's base URL, without a trailing slash. */
  baseUrl: string;
  locale: string;
  theme: EmbedTheme;
  /** The host page's origin, which the room posts its events to. */
  hostOrigin: string;
  meetingCode?: string;
  joinToken?: string;
  name?: string;
  features?: EmbedFeatures;
}

/** The features in the order their query parameters appear. */
const FEATURE_NAMES = ['chat', 'participants', 'screenshare'] as const;

/**
 * The room iframe's address: `{baseUrl}/{locale}/embed/{joinToken}?origin&theme` with a token, or
 * `{baseUrl}/{locale}/embed/m/{meetingCode}?origin&theme[&name][&chat=0&participants=0&screenshare=0]` with a code.
 */
export function embedUrl(parts: EmbedUrlParts): string {
  const query = [`origin=${encodeURIComponent(parts.hostOrigin)}`, `theme=${encodeURIComponent(parts.theme)}`];
  const locale = encodeURIComponent(parts.locale);
  if (parts.joinToken !== undefined) return `${parts.baseUrl}/${locale}/embed/${encodeURIComponent(parts.joinToken)}?${query.join('&')}`;
  if (parts.name !== undefined) query.push(`name=${encodeURIComponent(parts.name)}`);
  for (const feature of FEATURE_NAMES) if (parts.features?.[feature] === false) query.push(`${feature}=0`);
  return `${parts.baseUrl}/${locale}/embed/m/${encodeURIComponent(parts.meetingCode ?? '')}?${query.join('&')}`;
}

/**
 * The service's answer to whether this page may frame the room: `{baseUrl}/embed/frame-check?code=|token=&origin=`.
 * The browser's `Origin` header decides; `origin` is used only when a same-origin request carries none.
 */
export function frameCheckUrl(parts: Pick<EmbedUrlParts, 'baseUrl' | 'hostOrigin' | 'meetingCode' | 'joinToken'>): string {
  const target =
    parts.joinToken !== undefined ? `token=${encodeURIComponent(parts.joinToken)}` : `code=${encodeURIComponent(parts.meetingCode ?? '')}`;
  return `${parts.baseUrl}/embed/frame-check?${target}&origin=${encodeURIComponent(parts.hostOrigin)}`;
}
