import { bootstrap } from '../bootstrap';
import { loadConfig } from '../config';
import { createLogger } from '../shared/logger';
import { recordFile, seedSummary, seedTranscript } from './fixtures';

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
