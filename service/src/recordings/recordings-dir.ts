import path from 'node:path';

/** Where recording files live under the data directory. */
export function recordingsDir(dataDir: string): string {
  return path.join(dataDir, 'recordings');
}
