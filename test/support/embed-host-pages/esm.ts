/** Host page (ES module): imports `@svc/embed` (served by the host server) and creates the meeting with `baseUrl` = the service. */
import { SvcMeeting, type SvcMeetingOptions } from '@svc/embed';
import { createRecordingErrors, recordEvent, startHostPage } from './host-page';

const { serviceUrl, options } = startHostPage();
createRecordingErrors(
  () => new SvcMeeting({ baseUrl: serviceUrl, container: '#meeting', ...(options as Partial<SvcMeetingOptions>), onEvent: recordEvent }),
);
