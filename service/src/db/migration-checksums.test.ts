import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CHECKSUMS_FILE, migrationChecksumProblems } from './migration-checksums';
import { MIGRATIONS_DIR } from './migrate';

describe('released migrations', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-migration-sums-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('match the checksums they were released with (never edit a released migration; add a new one)', () => {
    expect(migrationChecksumProblems()).toEqual([]);
  });

  describe('in a copy', () => {
    let copy: string;
    beforeEach(() => {
      copy = fs.mkdtempSync(path.join(dir, 'copy-'));
      fs.cpSync(MIGRATIONS_DIR, copy, { recursive: true });
      expect(migrationChecksumProblems(copy)).toEqual([]);
    });

    it('an edit to a released migration is caught, a whitespace-only one too', () => {
      fs.appendFileSync(path.join(copy, '0002_events_webhooks.sql'), '\n');
      expect(migrationChecksumProblems(copy)).toEqual([expect.stringMatching(/^0002_events_webhooks\.sql was edited after its release/)]);
    });

    it('CRLF line endings from a checkout are not an edit', () => {
      const file = path.join(copy, '0001_foundation.sql');
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/\n/g, '\r\n'));
      expect(migrationChecksumProblems(copy)).toEqual([]);
    });

    it('a removed or renamed migration is caught, and a new one without its line names the line to add', () => {
      fs.renameSync(path.join(copy, '0003_integrations.sql'), path.join(copy, '0003_integrations_v2.sql'));
      fs.writeFileSync(path.join(copy, '9999_next.sql'), 'SELECT 1;\n');
      expect(migrationChecksumProblems(copy)).toEqual([
        expect.stringMatching(/^0003_integrations_v2\.sql has no line in CHECKSUMS/),
        expect.stringMatching(/^9999_next\.sql has no line in CHECKSUMS; once it is final, add: [0-9a-f]{64} {2}9999_next\.sql$/),
        expect.stringMatching(/^0003_integrations\.sql was released but is gone/),
      ]);
    });

    it('lists every migration file', () => {
      const lines = fs.readFileSync(path.join(copy, CHECKSUMS_FILE), 'utf8').trim().split('\n');
      expect(lines.map((l) => l.split(/\s+/)[1])).toEqual(
        fs
          .readdirSync(copy)
          .filter((f) => f.endsWith('.sql'))
          .sort(),
      );
    });
  });
});
