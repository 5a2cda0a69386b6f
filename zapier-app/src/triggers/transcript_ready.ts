import type { Bundle, ZObject } from 'zapier-platform-core';
import type { SvcEvent } from '../api';
import { eventTrigger } from '../event-trigger';
import { getOrNull } from '../meeting-input';
import { eventFields, eventMeetingFields, transcriptFields } from '../output-fields';
import type { Transcript } from '../searches/get_transcript';

/**
 * The event with the transcript's full text and its timed segments (line items) in `data.transcript`, read from the API:
 * the meeting's transcript, or the breakout room's own when the event names one (`breakout_room_id`).
 */
export async function withTranscriptText(z: ZObject, bundle: Bundle, event: SvcEvent): Promise<SvcEvent> {
  const meeting = event.data.meeting as { id: string };
  const room = (event.data.transcript as { breakout_room_id?: string | null } | undefined)?.breakout_room_id;
  const meetingPath = `/meetings/${encodeURIComponent(meeting.id)}`;
  const transcriptPath = room ? `${meetingPath}/breakout-rooms/${encodeURIComponent(room)}/transcript` : `${meetingPath}/transcript`;
  const transcript = await getOrNull<Transcript>(z, bundle, transcriptPath);
  if (!transcript) return event;
  const segments = transcript.segments.map(({ start, end, speaker, participant_id, text }) => ({
    start,
    end,
    speaker,
    participant_id,
    text,
  }));
  return { ...event, data: { ...event.data, transcript: { ...(event.data.transcript as object), text: transcript.text, segments } } };
}

/** Fires when a meeting's transcript is complete; hands the Zap its full text and segments. */
export default eventTrigger({
  key: 'transcript_ready',
  type: 'transcript.ready',
  noun: 'Transcript',
  label: 'Transcript Ready',
  description:
    'Triggers when the transcript of a meeting is complete, with its full text and timed segments; also for each breakout room’s own transcript (Breakout Room ID set).',
  enrich: withTranscriptText,
  maxListed: 10,
  sample: {
    id: 'evt_01krdv6q2s4h7w9y1a3c5e8g0j',
    type: 'transcript.ready',
    created_at: '2026-05-12T10:19:02.000Z',
    data: {
      meeting: {
        id: 'mtg_01krd9x2q8h4c7v5n1m3b6z0ta',
        code: 'kpw-rtbn-fqe',
        title: 'Design review',
        status: 'ended',
        started_at: '2026-05-12T09:30:00.000Z',
        ended_at: '2026-05-12T10:15:00.000Z',
      },
      transcript: {
        breakout_room_id: null,
        language: 'en',
        segment_count: 2,
        speakers: [
          { name: 'Bob', participant_id: 'prt_01krd9y4b2c6d8f0g3h5j7k9m1' },
          { name: 'Ada', participant_id: 'prt_01krd9y6n4p8q0r2s5t7v9w1x3' },
        ],
        text: 'Bob: We ship on Friday.\nAda: I write the release notes.',
        segments: [
          { start: 0, end: 2.5, speaker: 'Bob', participant_id: 'prt_01krd9y4b2c6d8f0g3h5j7k9m1', text: 'We ship on Friday.' },
          { start: 2.5, end: 5.1, speaker: 'Ada', participant_id: 'prt_01krd9y6n4p8q0r2s5t7v9w1x3', text: 'I write the release notes.' },
        ],
      },
    },
  },
  outputFields: [...eventFields, ...eventMeetingFields, ...transcriptFields],
});
