/** @svc/embed: the meeting room in your page, as an iframe driven through the postMessage protocol v1. */
export { SvcMeeting, IFRAME_ALLOW, DEFAULT_READY_TIMEOUT_MS, type SvcMeetingOptions, type EmbedEventHandler } from './svc-meeting.js';
export { embedUrl, frameCheckUrl, type EmbedUrlParts } from './embed-url.js';
export * from './protocol.js';
