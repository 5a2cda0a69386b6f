/** The script-tag build (`{base_url}/embed/svc-embed.js`): the global `SvcEmbed`, whose `SvcMeeting` defaults `baseUrl` to the script's own service. */
import { SvcMeeting as EmbeddedMeeting, type SvcMeetingOptions } from './svc-meeting.js';

export { IFRAME_ALLOW } from './svc-meeting.js';
export * from './protocol.js';

/** The options of the script-tag `SvcMeeting`: those of `@svc/embed`, with `baseUrl` optional. */
export type ScriptTagMeetingOptions = Omit<SvcMeetingOptions, 'baseUrl'> & { baseUrl?: string };

/** The service this script was loaded from, read while the script runs (`document.currentScript` is null afterwards). */
const scriptServiceUrl = serviceUrlOf(document.currentScript);

/** `SvcMeeting` of `@svc/embed` whose `baseUrl` defaults to the service that served this script. */
export class SvcMeeting extends EmbeddedMeeting {
  /** Like `@svc/embed`'s constructor; without `baseUrl`, uses the service this script came from. */
  constructor(options: ScriptTagMeetingOptions) {
    const baseUrl = options?.baseUrl ?? scriptServiceUrl;
    if (baseUrl === undefined) throw new TypeError('SvcMeeting: baseUrl is required when svc-embed.js is not loaded by a <script src> tag');
    super({ ...options, baseUrl });
  }
}

/** `{base_url}` for a script at `{base_url}/embed/svc-embed.js`, else the script's origin. */
function serviceUrlOf(script: Element | null): string | undefined {
  if (!(script instanceof HTMLScriptElement) || script.src === '') return undefined;
  const url = new URL(script.src);
  const servedPath = '/embed/svc-embed.js';
  return url.pathname.endsWith(servedPath) ? url.origin + url.pathname.slice(0, -servedPath.length) : url.origin;
}
