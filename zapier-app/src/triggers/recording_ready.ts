import type { Bundle, ZObject } from 'zapier-platform-core';
import type { SvcEvent } from '../api';
import { eventTrigger } from '../event-trigger';
import { recordingFile } from '../hydrators';
import { eventFields, eventMeetingFields, recordingFields } from '../output-fields';

/** The event with `data.recording.file`: a dehydrated file that Zapier downloads (by the signed URL) when a later step uses it. */
export function withRecordingFile(z: ZObject, _bundle: Bundle, event: SvcEvent): SvcEvent {
  const recording = event.data.recording as { id: string; download_url: string | null } | undefined;
  if (!recording?.download_url) return event;
  const file = z.dehydrateFile(recordingFile, { recording_id: recording.id, download_url: recording.download_url });
  return { ...event, data: { ...event.data, recording: { ...recording, file } } };
}

/** Fires when a meeting's composite recording (one MP4) has been rendered and can be downloaded; hands the Zap the video as a file. */
export default eventTrigger({
  key: 'recording_ready',
  type: 'recording.ready',
  noun: 'Recording',
  label: 'Recording Ready',
  description:
    'Triggers when a meeting’s recording has been rendered and can be downloaded: one MP4 with every microphone mixed, in the meeting’s recording layout (active speaker or grid), also one per breakout room (Breakout Room ID set). It comes as a file for upload steps.',
  enrich: withRecordingFile,
  sample: {
    id: 'evt_01krdv2k7n3p5r8s1t4v6w9x2y',
    type: 'recording.ready',
    created_at: '2026-05-12T10:17:41.000Z',
    data: {
      meeting: {
        id: 'mtg_01krd9x2q8h4c7v5n1m3b6z0ta',
        code: 'kpw-rtbn-fqe',
        title: 'Design review',
        status: 'ended',
        started_at: '2026-05-12T09:30:00.000Z',
        ended_at: '2026-05-12T10:15:00.000Z',
      },
      recording: {
        id: 'rec_01krdrb9c2f5h8k1m4p7r0t3v6',
        meeting_id: 'mtg_01krd9x2q8h4c7v5n1m3b6z0ta',
        kind: 'video',
        status: 'ready',
        duration_seconds: 2684,
        size_bytes: 187342848,
        content_type: 'video/mp4',
        download_url: 'https://meet.example.com/api/v1/public/recordings/rec_01krdrb9c2f5h8k1m4p7r0t3v6/download?token=sample',
        created_at: '2026-05-12T09:30:04.000Z',
        ready_at: '2026-05-12T10:17:41.000Z',
        failure_reason: null,
        source_recording_id: 'rec_01krdr8w4y7a0c3e6g9j2m5p8s',
        breakout_room_id: null,
        tracks: null,
        file: 'https://zapier-dev-files.s3.amazonaws.com/cli-platform/rec_01krdrb9c2f5h8k1m4p7r0t3v6.mp4',
      },
    },
  },
  outputFields: [
    ...eventFields,
    ...eventMeetingFields,
    ...recordingFields,
    { key: 'data__recording__file', label: 'Recording File', type: 'file' },
  ],
});
