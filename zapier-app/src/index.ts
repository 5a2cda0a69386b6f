import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defineApp, version as platformVersion } from 'zapier-platform-core';
import authentication from './authentication';
import cancelMeeting from './creates/cancel_meeting';
import createMeeting from './creates/create_meeting';
import endMeeting from './creates/end_meeting';
import registerParticipant from './creates/register_participant';
import reopenMeeting from './creates/reopen_meeting';
import updateMeeting from './creates/update_meeting';
import { recordingFile } from './hydrators';
import { afters, befores } from './middleware';
import findMeeting from './searches/find_meeting';
import findRegistration from './searches/find_registration';
import getSummary from './searches/get_summary';
import getTranscript from './searches/get_transcript';
import meetingEnded from './triggers/meeting_ended';
import meetingStarted from './triggers/meeting_started';
import recordingReady from './triggers/recording_ready';
import registrationCreated from './triggers/registration_created';
import summaryReady from './triggers/summary_ready';
import transcriptReady from './triggers/transcript_ready';
import webinarList from './triggers/webinar_list';

// package.json sits beside src/ and dist/ alike, and outside tsc's rootDir, so it is read rather than imported.
const { version } = JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string };

/** The svc Zapier app: API-key authentication, a REST-hook trigger per event type, meeting and registration actions, searches and a find-or-register pairing. */
export default defineApp({
  version,
  platformVersion,
  // Every request goes through z.request, which Zapier logs itself; core's patch of node's http.request would
  // add nothing, and it drops the options of http.request(url, options), breaking svc when both share a process in tests.
  flags: { skipHttpPatch: true },
  authentication,
  beforeRequest: [...befores],
  afterResponse: [...afters],
  hydrators: { recordingFile },
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
    [updateMeeting.key]: updateMeeting,
    [endMeeting.key]: endMeeting,
    [cancelMeeting.key]: cancelMeeting,
    [reopenMeeting.key]: reopenMeeting,
  },
  searches: {
    [findMeeting.key]: findMeeting,
    [findRegistration.key]: findRegistration,
    [getTranscript.key]: getTranscript,
    [getSummary.key]: getSummary,
  },
  searchOrCreates: {
    // Zapier requires the pairing's key to be its search's key.
    [findRegistration.key]: {
      key: findRegistration.key,
      display: {
        label: 'Find or Register Webinar Participant',
        description: 'Finds someone’s webinar registration by email, and registers them when there is none.',
      },
      search: findRegistration.key,
      create: registerParticipant.key,
    },
  },
});
