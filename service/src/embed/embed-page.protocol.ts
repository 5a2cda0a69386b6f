/**
 * What the service tells the embed page (`<meta name="svc-embed">`, JSON). Types only: the room page
 * (web/room) compiles against this file too.
 */

/** Why the embedded room shows an error instead of the pre-join screen (the `error` event's reason). */
export type EmbedPageError = 'not_found' | 'ended' | 'cancelled' | 'token_invalid' | 'token_expired' | 'origin_not_allowed';

/** The embed page's config (nothing secret: the token is in the page's own URL already). */
export interface EmbedPageConfig {
  code: string | null;
  /** The embed token when the page was opened with one; the page asks for its room credential with it. */
  token: string | null;
  /** The guest name: fixed by a token, a suggestion with a bare code. */
  name: string | null;
  nameFixed: boolean;
  features: { chat: boolean; participants: boolean; screenshare: boolean };
  /** The one origin events are posted to and commands are accepted from; null: post nothing. */
  parentOrigin: string | null;
  error: EmbedPageError | null;
}
