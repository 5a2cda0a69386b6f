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
  EmbedReaction,
  EmbedTheme,
} from '../../../embed/sdk/src/protocol';
export { EMBED_PROTOCOL_VERSION, EMBED_REACTIONS, EMBED_SOURCE, isEmbedMessage } from '../../../embed/sdk/src/protocol';
import type { EmbedPageConfig } from '../../../service/src/embed/embed-page.protocol';
export type { EmbedPageConfig };

/** The embed config of this page, or null when it is the plain room page at /m/<code>. */
export function readEmbedConfig(): EmbedPageConfig | null {
  const content = document.querySelector('meta[name="svc-embed"]')?.getAttribute('content');
  return content ? (JSON.parse(content) as EmbedPageConfig) : null;
}
