import type { INodePropertyOptions } from 'n8n-workflow';

/** The svc event types the trigger can subscribe to. */
export const EVENT_OPTIONS: INodePropertyOptions[] = [
  { name: 'Meeting Ended', value: 'meeting.ended', description: 'A meeting ended' },
  { name: 'Meeting Started', value: 'meeting.started', description: 'The first participant joined and the meeting is live' },
  {
    name: 'Recording Ready',
    value: 'recording.ready',
    description: "A meeting's composite recording (one MP4) has been rendered and can be downloaded",
  },
  { name: 'Registration Created', value: 'registration.created', description: 'Someone registered for a webinar' },
  { name: 'Summary Ready', value: 'summary.ready', description: 'The AI summary of a meeting is available' },
  { name: 'Transcript Ready', value: 'transcript.ready', description: 'The transcript of a meeting is complete' },
];
