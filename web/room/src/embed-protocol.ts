/** The embed postMessage protocol as the room page uses it: the SDK's own definition, one source for both. */
export type {
  EmbedCommand,
  EmbedCommandMap,
  EmbedCommandType,
  EmbedErrorReason,
  EmbedEvent,
  EmbedEventMap,
  EmbedEventType,
  EmbedFeatures,
  EmbedTheme,
} from '../../../embed/sdk/src/protocol';
export { EMBED_PROTOCOL_VERSION, EMBED_SOURCE, isEmbedMessage } from '../../../embed/sdk/src/protocol';

/** What the service tells the embed page in `<meta name="svc-embed">` (service/src/embed/embed.service.ts, EmbedPageConfig). */
export interface EmbedPageConfig {
  code: string | null;
  token: string | null;
  name: string | null;
  nameFixed: boolean;
  features: { chat: boolean; participants: boolean; screenshare: boolean };
  parentOrigin: string | null;
  error: import('../../../embed/sdk/src/protocol').EmbedErrorReason | null;
}

/** The embed config of this page, or null when it is the plain room page at /m/<code>. */
export function readEmbedConfig(): EmbedPageConfig | null {
  const content = document.querySelector('meta[name="svc-embed"]')?.getAttribute('content');
  return content ? (JSON.parse(content) as EmbedPageConfig) : null;
}
