import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defineApp, version as platformVersion } from 'zapier-platform-core';
import authentication from './authentication';
import createMeeting from './creates/create_meeting';
import registerParticipant from './creates/register_participant';
import { afters, befores } from './middleware';
import meetingEnded from './triggers/meeting_ended';
import meetingStarted from './triggers/meeting_started';
import recordingReady from './triggers/recording_ready';
import registrationCreated from './triggers/registration_created';
import summaryReady from './triggers/summary_ready';
import transcriptReady from './triggers/transcript_ready';
import webinarList from './triggers/webinar_list';

// package.json sits beside src/ and dist/ alike, and outside tsc's rootDir, so it is read rather than imported.
const { version } = JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string };

/** The svc Zapier app: API-key authentication, a REST-hook trigger per event type, and the create-meeting and register-participant actions. */
export default defineApp({
  version,
  platformVersion,
  // Every request goes through z.request, which Zapier logs itself; core's patch of node's http.request would
  // add nothing, and it drops the options of http.request(url, options), breaking svc when both share a process in tests.
  flags: { skipHttpPatch: true },
  authentication,
  beforeRequest: [...befores],
  afterResponse: [...afters],
  triggers: {
    [meetingStarted.key]: meetingStarted,
    [meetingEnded.key]: meetingEnded,
    [recordingReady.key]: recordingReady,
    [transcriptReady.key]: transcriptReady,
    [summaryReady.key]: summaryReady,
    [registrationCreated.key]: registrationCreated,
    [webinarList.key]: webinarList,
  },
  creates: {
    [createMeeting.key]: createMeeting,
    [registerParticipant.key]: registerParticipant,
  },
});
