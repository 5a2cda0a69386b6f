import fs from 'node:fs';
import path from 'node:path';
import type { Principal } from '../identity/identity.service';
import type { Scope } from '../keys/scopes';
import type { MeetingRow } from '../meetings/meetings.repo';
import type { CreateMeetingInput } from '../meetings/meetings.schemas';
import type { ParticipantRow } from '../participants/participants.repo';
import type { RecordingRow } from '../recordings/recordings.repo';
import { isoAt } from '../shared/clock';
import type { Summary } from '../summaries/summaries.repo';
import type { Transcript } from '../transcripts/transcripts.repo';
import type { TestServer } from './harness';

/** A principal acting in one organization of the owner. */
export function principalIn(t: TestServer, orgId: string, scopes: Scope[] = []): Principal {
  const { key } = t.services.keys.create({ userId: t.owner.id, name: 'fixture', scopes, organizationId: orgId });
  return t.services.identity.authenticate(key)!;
}

/** A meeting created through the meetings service in `orgId` (the owner's first organization by default). */
export function seedMeeting(t: TestServer, input: Partial<CreateMeetingInput> = {}, orgId = t.org.id): MeetingRow {
  const principal = principalIn(t, orgId);
  const meeting = t.services.meetings.create(principal, { title: 'Fixture meeting', ...input });
  return t.services.meetings.find(principal, meeting.id);
}

/** A participant row written through its repo. */
export function seedParticipant(t: TestServer, meetingId: string, fields: Partial<ParticipantRow> = {}): ParticipantRow {
  const row: ParticipantRow = {
    id: t.services.ids.next('prt'),
    meeting_id: meetingId,
    name: 'Ada',
    role: 'guest',
    identity: `guest-${Math.random().toString(36).slice(2, 8)}`,
    joined_at: isoAt(t.clock.now()),
    left_at: null,
    ...fields,
  };
  t.services.participants.insert(row);
  return row;
}

/** A ready recording row with a real file under the data directory. */
export function seedRecording(t: TestServer, meetingId: string, content = 'webm-bytes', fields: Partial<RecordingRow> = {}): RecordingRow {
  const id = t.services.ids.next('rec');
  const fileName = `${id}.webm`;
  const dir = path.join(t.config.dataDir, 'recordings');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, fileName), content);
  const row: RecordingRow = {
    id,
    meeting_id: meetingId,
    kind: 'video',
    status: 'ready',
    duration_seconds: 125,
    file_name: fileName,
    content_type: 'video/webm',
    size_bytes: Buffer.byteLength(content),
    created_at: isoAt(t.clock.now()),
    ready_at: isoAt(t.clock.now()),
    ...fields,
  };
  t.services.recordingsRepo.insert(row);
  return row;
}

/** A ready transcript written through its repo. */
export function seedTranscript(t: TestServer, meetingId: string): Transcript {
  const transcript: Transcript = {
    meeting_id: meetingId,
    language: 'en',
    status: 'ready',
    text: 'We ship on Friday. Ada writes the release notes.',
    segments: [
      { start: 0, end: 2.5, speaker: 'Bob', text: 'We ship on Friday.' },
      { start: 2.5, end: 5.1, speaker: 'Ada', text: 'Ada writes the release notes.' },
    ],
    created_at: isoAt(t.clock.now()),
    updated_at: isoAt(t.clock.now()),
  };
  t.services.transcriptsRepo.save(transcript);
  return transcript;
}

/** A summary written through its repo. */
export function seedSummary(t: TestServer, meetingId: string): Summary {
  const summary: Summary = {
    meeting_id: meetingId,
    tldr: 'Release on Friday.',
    decisions: [{ text: 'Ship on Friday', cite: [0] }],
    action_items: [{ text: 'Write the release notes', owner: 'Ada', due: null, cite: [1] }],
    generator: 'extractive',
    created_at: isoAt(t.clock.now()),
  };
  t.services.summariesRepo.save(summary);
  return summary;
}
