import path from 'node:path';
import { openDatabase } from '../../../service/src/db/connection';
import { RecordingsRepo } from '../../../service/src/recordings/recordings.repo';
import { SummariesRepo } from '../../../service/src/summaries/summaries.repo';
import { TranscriptsRepo } from '../../../service/src/transcripts/transcripts.repo';

/**
 * Gives a meeting two ready recordings, a transcript and a summary, written through the service's own repos into
 * the database of a running service (as its media workers would; the workers need real media, which tests lack).
 */
export function seedMediaResults(dataDir: string, meetingId: string): { recordingIds: string[]; transcriptText: string; tldr: string } {
  const db = openDatabase(path.join(dataDir, 'svc.sqlite'));
  try {
    const now = new Date().toISOString();
    const recordingIds = ['rec_e2e0000000000000000000001', 'rec_e2e0000000000000000000002'];
    const recordings = new RecordingsRepo(db);
    for (const id of recordingIds) {
      recordings.insert({
        id,
        meeting_id: meetingId,
        kind: 'video',
        status: 'ready',
        duration_seconds: 125,
        file_name: `${id}.webm`,
        content_type: 'video/webm',
        size_bytes: 10,
        created_at: now,
        ready_at: now,
      });
    }
    const transcriptText = 'We ship on Friday. Ada writes the release notes.';
    new TranscriptsRepo(db).save({
      meeting_id: meetingId,
      language: 'en',
      status: 'ready',
      text: transcriptText,
      segments: [
        { start: 0, end: 2.5, speaker: 'Bob', text: 'We ship on Friday.' },
        { start: 2.5, end: 5.1, speaker: 'Ada', text: 'Ada writes the release notes.' },
      ],
      created_at: now,
      updated_at: now,
    });
    const tldr = 'Release on Friday.';
    new SummariesRepo(db).save({
      meeting_id: meetingId,
      tldr,
      decisions: [{ text: 'Ship on Friday', cite: [0] }],
      action_items: [{ text: 'Write the release notes', owner: 'Ada', due: null, cite: [1] }],
      generator: 'extractive',
      created_at: now,
    });
    return { recordingIds, transcriptText, tldr };
  } finally {
    db.close();
  }
}
