import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { MIGRATIONS_DIR, migrationFiles } from './migrate';

/** The file beside the migrations that freezes each released one: `sha256  name` lines, as `sha256sum` prints them. */
export const CHECKSUMS_FILE = 'CHECKSUMS';

/** A migration's SHA-256 (hex), line endings taken as LF so a checkout with CRLF does not count as an edit. */
export function migrationChecksum(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file, 'utf8').replace(/\r\n/g, '\n')).digest('hex');
}

/**
 * What is wrong between the migrations in `dir` and its CHECKSUMS: a released migration edited, removed or renamed, or a
 * migration without its line. Empty when they agree.
 */
export function migrationChecksumProblems(dir = MIGRATIONS_DIR): string[] {
  const listed = new Map<string, string>();
  const text = fs.existsSync(path.join(dir, CHECKSUMS_FILE)) ? fs.readFileSync(path.join(dir, CHECKSUMS_FILE), 'utf8') : '';
  for (const line of text.split('\n').filter((l) => l.trim())) {
    const match = /^([0-9a-f]{64}) [ *]?(\S+)$/.exec(line.trim());
    if (!match) return [`${CHECKSUMS_FILE} has a malformed line: ${line}`];
    listed.set(match[2]!, match[1]!);
  }
  const problems: string[] = [];
  const files = migrationFiles(dir);
  for (const file of files) {
    const actual = migrationChecksum(path.join(dir, file));
    const expected = listed.get(file);
    if (expected === undefined) {
      problems.push(`${file} has no line in ${CHECKSUMS_FILE}; once it is final, add: ${actual}  ${file}`);
    } else if (expected !== actual) {
      problems.push(
        `${file} was edited after its release: data directories migrated by the earlier text keep it; undo the edit and add a new migration`,
      );
    }
  }
  for (const file of listed.keys()) {
    if (!files.includes(file)) problems.push(`${file} was released but is gone: a released migration is never removed or renamed`);
  }
  return problems;
}
