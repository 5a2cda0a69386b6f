/** Host page (script tag): the service's `svc-embed.js` defined the global `SvcEmbed`; this creates the meeting with it. */
import type { SvcMeeting, SvcMeetingOptions } from '@svc/embed';
import { createRecordingErrors, recordEvent, startHostPage } from './host-page';

/** The global of the script-tag build: `baseUrl` is optional there. */
declare const SvcEmbed: { SvcMeeting: new (options: Omit<SvcMeetingOptions, 'baseUrl'> & { baseUrl?: string }) => SvcMeeting };

const { options } = startHostPage();
createRecordingErrors(() => new SvcEmbed.SvcMeeting({ container: '#meeting', ...options, onEvent: recordEvent }));
