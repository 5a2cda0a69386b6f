import type { ChatMessage } from '../rooms/room.protocol';
import fs from 'node:fs';
import path from 'node:path';
import type { Principal } from '../identity/identity.service';
import type { Scope } from '../keys/scopes';
import type { MeetingRow } from '../meetings/meetings.repo';
import type { CreateMeetingInput } from '../meetings/meetings.schemas';
import type { ParticipantRow } from '../participants/participants.repo';
import type { Poll } from '../polls/polls.protocol';
import type { Recording } from '../recordings/recordings.service';
import { recordingsDir, type Services } from '../services';
import { isoAt } from '../shared/clock';
import type { Summary } from '../summaries/summaries.repo';
import type { TranscriptView } from '../transcripts/transcripts.service';
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

/** Someone who joined a meeting's room, recorded through the participants service; `leftAfterMs` moves the clock on and records the leave. */
export function seedParticipant(
  t: TestServer,
  meetingId: string,
  who: Partial<Pick<ParticipantRow, 'name' | 'role' | 'identity'>> = {},
  opts: { leftAfterMs?: number } = {},
): ParticipantRow {
  const row = t.services.participants.recordJoin(meetingId, {
    name: 'Ada',
    role: 'guest',
    identity: `guest-${Math.random().toString(36).slice(2, 8)}`,
    ...who,
  });
  if (opts.leftAfterMs === undefined) return row;
  t.clock.advance(opts.leftAfterMs);
  t.services.participants.recordLeave(row.id);
  return { ...row, left_at: isoAt(t.clock.now()) };
}

/** A chat message of a participant, stored through the rooms service as the room stores it. */
export function seedChatMessage(t: TestServer, participant: ParticipantRow, text = 'Hello everyone'): ChatMessage {
  return t.services.rooms.chat.save(participant.meeting_id, participant.id, participant.name, participant.identity, text);
}

/** A breakout room (draft) with the participant assigned to it. */
export function seedBreakoutRoom(t: TestServer, participant: ParticipantRow): void {
  const host = { host: true };
  const [room] = t.services.breakouts.create(participant.meeting_id, host, ['Room 1']).rooms;
  const person = { identity: participant.identity, participantId: participant.id, name: participant.name };
  t.services.breakouts.assign(participant.meeting_id, host, [{ person, room: room!.id }]);
}

/** A named poll a participant (as host) opened and voted in, with its first option chosen. */
export function seedPoll(t: TestServer, participant: ParticipantRow): Poll {
  const actor = { participantId: participant.id, identity: participant.identity, name: participant.name, host: true };
  const poll = t.services.polls.create(participant.meeting_id, actor, { question: 'Ship on Friday?', options: ['Yes', 'No'] });
  return t.services.polls.vote(participant.meeting_id, poll.id, actor, [poll.options[0]!.id]);
}

/** A recording started through the recordings service and, unless `ready` is false, finished with a real file (emits recording.ready). */
export function seedRecording(t: TestServer, meetingId: string, content = 'webm-bytes', opts: { ready?: boolean } = {}): Recording {
  if (opts.ready === false) return t.services.recordings.view(t.services.recordings.start(meetingId, 'video'));
  return recordFile(t.services, t.config.dataDir, meetingId, content);
}

/** A recording started and finished, as the media pipeline would, with `content` as its file under `dataDir` (emits recording.ready). */
export function recordFile(services: Services, dataDir: string, meetingId: string, content: string): Recording {
  const started = services.recordings.start(meetingId, 'video');
  const fileName = `${started.id}.webm`;
  fs.mkdirSync(recordingsDir(dataDir), { recursive: true });
  fs.writeFileSync(path.join(recordingsDir(dataDir), fileName), content);
  return services.recordings.markReady(started.id, {
    fileName,
    contentType: 'video/webm',
    sizeBytes: Buffer.byteLength(content),
    durationSeconds: 125,
  });
}

/** The transcript the media fixtures use: two segments by two speakers. */
export const FIXTURE_SEGMENTS = [
  { start: 0, end: 2.5, speaker: 'Bob', text: 'We ship on Friday.' },
  { start: 2.5, end: 5.1, speaker: 'Ada', text: 'Ada writes the release notes.' },
];

/** A finished transcript, through the transcripts service (emits transcript.ready). */
export function seedTranscript(services: Services, meetingId: string): TranscriptView {
  return services.transcripts.complete(meetingId, { language: 'en', segments: FIXTURE_SEGMENTS });
}

/** A summary citing the fixture transcript, through the summaries service (emits summary.ready). */
export function seedSummary(services: Services, meetingId: string): Summary {
  return services.summaries.save(meetingId, {
    tldr: 'Release on Friday.',
    decisions: [{ text: 'Ship on Friday', cite: [0], start_seconds: 12 }],
    action_items: [{ text: 'Write the release notes', owner: 'Ada', due: '2027-04-02', cite: [1], start_seconds: 65 }],
    generator: 'extractive',
  });
}

/**
 * Every row of every table, found in the schema (so a table added later is covered), as one string to
 * compare before and after a request that must change nothing. A full-text index is read through its
 * virtual table; its shadow tables (some without rowid) are left out.
 */
export function databaseSnapshot(services: Services): string {
  const tables = services.db
    .prepare(
      `SELECT name FROM sqlite_master t WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND NOT EXISTS (
         SELECT 1 FROM sqlite_master v WHERE v.type = 'table' AND v.sql LIKE 'CREATE VIRTUAL TABLE%' AND t.name LIKE v.name || '\\_%' ESCAPE '\\')
       ORDER BY name`,
    )
    .pluck()
    .all() as string[];
  return JSON.stringify(tables.map((table) => [table, services.db.prepare(`SELECT * FROM "${table}" ORDER BY rowid`).all()]));
}
