import fs from 'node:fs';
import path from 'node:path';
import { bootstrap } from '../bootstrap';
import { loadConfig } from '../config';
import { recordingsDir } from '../services';
import { createLogger } from '../shared/logger';
import { seedSummary, seedTranscript } from './fixtures';

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
    const { recordings } = core.services;
    const recordingIds: string[] = [];
    for (let i = 0; i < 2; i++) {
      const started = recordings.start(meetingId, 'video');
      const fileName = `${started.id}.webm`;
      fs.mkdirSync(recordingsDir(dataDir), { recursive: true });
      fs.writeFileSync(path.join(recordingsDir(dataDir), fileName), 'webm-bytes');
      recordings.markReady(started.id, { fileName, contentType: 'video/webm', sizeBytes: 10, durationSeconds: 125 });
      recordingIds.push(started.id);
    }
    const transcript = seedTranscript(core.services, meetingId);
    const summary = seedSummary(core.services, meetingId);
    return { recordingIds, transcriptText: transcript.text, tldr: summary.tldr };
  } finally {
    core.close();
  }
}
