/** @svc/embed: the meeting room in your page, as an iframe driven through the postMessage protocol v1. */
export { SvcMeeting, IFRAME_ALLOW, type SvcMeetingOptions, type EmbedEventHandler } from './svc-meeting.js';
export { embedUrl, type EmbedUrlParts } from './embed-url.js';
export * from './protocol.js';
