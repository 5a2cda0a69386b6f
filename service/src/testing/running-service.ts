import fs from 'node:fs';
import path from 'node:path';
import { bootstrap } from '../bootstrap';
import { loadConfig } from '../config';
import { createLogger } from '../shared/logger';
import { recordingsDir, type Services } from '../services';
import { recordFile, seedSummary, seedTranscript } from './fixtures';
import { mediaDuration, speechRecording, turnTakingRecording } from './speech';

/** What `seedMediaResults` produced. */
export interface SeededMedia {
  recordingIds: string[];
  transcriptText: string;
  tldr: string;
}

/**
 * Gives a meeting of a running service two ready recordings, a transcript and a summary, through the services
 * on the service's own data directory (as the CLI writes beside a running service), so every event fires.
 */
export function seedMediaResults(dataDir: string, meetingId: string): SeededMedia {
  const core = bootstrap(loadConfig({ SVC_DATA_DIR: dataDir }), { logger: createLogger('silent') });
  try {
    const recordingIds = [0, 1].map(() => recordFile(core.services, dataDir, meetingId, 'webm-bytes').id);
    const transcript = seedTranscript(core.services, meetingId);
    const summary = seedSummary(core.services, meetingId);
    return { recordingIds, transcriptText: transcript.text, tldr: summary.tldr };
  } finally {
    core.close();
  }
}

/** Gives a meeting of a running service `count` ready main-room video recordings (tiny files), through the services on its data directory; their ids, oldest first. */
export function seedRecordings(dataDir: string, meetingId: string, count: number): string[] {
  const core = bootstrap(loadConfig({ SVC_DATA_DIR: dataDir }), { logger: createLogger('silent') });
  try {
    return Array.from({ length: count }, (_, i) => recordFile(core.services, dataDir, meetingId, `recording ${i}`).id);
  } finally {
    core.close();
  }
}

/**
 * Gives a meeting of a running service one ready video recording whose file holds `content` and which lasts
 * `durationSeconds`, through the services on its data directory, so recording.ready fires (and, for a meeting with
 * transcription_auto, the service's job worker tries to transcribe it: text that is no media fails that job).
 */
export function seedRecordingFile(dataDir: string, meetingId: string, opts: { content: string; durationSeconds: number }): string {
  const core = bootstrap(loadConfig({ SVC_DATA_DIR: dataDir }), { logger: createLogger('silent') });
  try {
    const started = core.services.recordings.start(meetingId, 'video');
    const fileName = `${started.id}.webm`;
    fs.mkdirSync(recordingsDir(dataDir), { recursive: true });
    fs.writeFileSync(path.join(recordingsDir(dataDir), fileName), opts.content);
    core.services.recordings.markReady(started.id, {
      fileName,
      contentType: 'video/webm',
      sizeBytes: Buffer.byteLength(opts.content),
      durationSeconds: opts.durationSeconds,
    });
    return started.id;
  } finally {
    core.close();
  }
}

/**
 * Gives a meeting of a running service participants and a ready recording of `sentences` spoken by flite, through
 * the services on the service's own data directory (as the recorder stores one), so recording.ready fires and, for
 * a meeting with transcription_auto, the service's job worker transcribes it. With `voices` (one flite voice per
 * participant, in order), the participants take turns, each on their own track named after them.
 */
export function recordSpeech(
  dataDir: string,
  meetingId: string,
  opts: { sentences: string[]; participants: string[]; repeat?: number; voices?: string[] },
): string {
  const core = bootstrap(loadConfig({ SVC_DATA_DIR: dataDir }), { logger: createLogger('silent') });
  try {
    return recordSpeechWith(core.services, dataDir, meetingId, opts);
  } finally {
    core.close();
  }
}

/** `recordSpeech` through services the caller already has (an in-process test server's): participants, then a ready spoken recording. */
export function recordSpeechWith(
  services: Services,
  dataDir: string,
  meetingId: string,
  opts: { sentences: string[]; participants: string[]; repeat?: number; voices?: string[] },
): string {
  const owners = opts.participants.map((name) => ({
    participant_id: services.participants.recordJoin(meetingId, { name, role: 'guest', identity: name.toLowerCase().replace(/\W+/g, '-') })
      .id,
    name,
  }));
  const started = services.recordings.start(meetingId, 'audio');
  const fileName = `${started.id}.webm`;
  const file = path.join(recordingsDir(dataDir), fileName);
  fs.mkdirSync(recordingsDir(dataDir), { recursive: true });
  // With voices, participants take turns, each on their own track, as the room recorder keeps them.
  if (opts.voices) turnTakingRecording(opts.sentences, opts.voices, file);
  else speechRecording(opts.sentences, file, { repeat: opts.repeat });
  services.recordings.markReady(started.id, {
    fileName,
    contentType: 'audio/webm',
    sizeBytes: fs.statSync(file).size,
    durationSeconds: Math.round(mediaDuration(file)),
    audioTrackOwners: opts.voices ? owners.slice(0, opts.voices.length) : undefined,
  });
  return started.id;
}

/** What `seedBreakoutMedia` produced. */
export interface SeededBreakout {
  roomId: string;
  recordingId: string;
  transcriptText: string;
}

/**
 * Gives a meeting of a running service a closed breakout room `room` with `person` assigned (joined and left), a ready video recording
 * made in it (its file holds `content`) and the room's own transcript, through the services on its data directory
 * (as the room recorder and the transcribe job store them), so recording.ready and transcript.ready fire. With
 * `transcribeInMs`, no transcript is stored: the recording's transcribe job is queued to run that much later
 * (the running service's worker runs it then: content that is no media fails it).
 */
export function seedBreakoutMedia(
  dataDir: string,
  meetingId: string,
  opts: { room: string; person: string; content: string; sentences: string[]; transcribeInMs?: number },
): SeededBreakout {
  const core = bootstrap(loadConfig({ SVC_DATA_DIR: dataDir }), { logger: createLogger('silent') });
  try {
    const { breakouts, participants, recordings, transcripts } = core.services;
    const host = { host: true };
    const identity = opts.person.toLowerCase().replace(/\W+/g, '-');
    const participantId = participants.recordJoin(meetingId, { name: opts.person, role: 'guest', identity }).id;
    const roomId = breakouts.create(meetingId, host, [opts.room]).rooms[0]!.id;
    breakouts.assign(meetingId, host, [{ person: { identity, participantId, name: opts.person }, room: roomId }]);
    breakouts.open(meetingId, host);
    breakouts.close(meetingId, host);
    breakouts.finish(meetingId);
    participants.recordLeave(participantId);
    const started = recordings.start(meetingId, 'video', null, roomId);
    const fileName = `${started.id}.webm`;
    fs.mkdirSync(recordingsDir(dataDir), { recursive: true });
    fs.writeFileSync(path.join(recordingsDir(dataDir), fileName), opts.content);
    recordings.markReady(started.id, {
      fileName,
      contentType: 'video/webm',
      sizeBytes: Buffer.byteLength(opts.content),
      durationSeconds: 5 * opts.sentences.length,
    });
    const segments = opts.sentences.map((text, i) => ({
      start: 5 * i,
      end: 5 * i + 4,
      speaker: opts.person,
      participant_id: participantId,
      text,
    }));
    if (opts.transcribeInMs !== undefined) {
      core.services.jobs.enqueue('transcribe', { recording_id: started.id }, core.services.clock.now() + opts.transcribeInMs);
      return { roomId, recordingId: started.id, transcriptText: '' };
    }
    const transcript = transcripts.complete(meetingId, { language: 'en', segments }, roomId);
    return { roomId, recordingId: started.id, transcriptText: transcript.text };
  } finally {
    core.close();
  }
}
