import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from './connection';
import { migrate } from './migrate';
import { bootstrap } from '../bootstrap';
import { loadConfig } from '../config';

describe('database connection and migrations', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-db-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('opens in WAL mode with a busy timeout and foreign keys on', () => {
    const db = openDatabase(path.join(dir, 'nested', 'svc.sqlite'));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    db.close();
  });

  it('creates the data directory 0700 and the database, its WAL and its shared-memory file 0600', () => {
    const dataDir = path.join(dir, 'fresh', 'data');
    const core = bootstrap(loadConfig({ SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'silent' }));
    core.services.identity.ensureOwner();
    const mode = (file: string) => (fs.statSync(file).mode & 0o777).toString(8);
    expect(mode(dataDir)).toBe('700');
    for (const file of ['svc.sqlite', 'svc.sqlite-wal', 'svc.sqlite-shm', 'master.key'])
      expect([file, mode(path.join(dataDir, file))]).toEqual([file, '600']);
    core.close();
  });

  it('tightens the files of a database created by an older version on open', () => {
    const file = path.join(dir, 'old', 'svc.sqlite');
    fs.mkdirSync(path.dirname(file), { mode: 0o755 });
    fs.writeFileSync(file, '', { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    openDatabase(file).close();
    expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');
  });

  it('refuses a database that a newer release migrated, and changes nothing', () => {
    const db = openDatabase(path.join(dir, 'newer.sqlite'));
    const applied = migrate(db);
    const newest = Number(applied.at(-1)!.slice(0, 4));
    db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(newest + 1, 'future.sql', '2030-01-01');
    expect(() => migrate(db)).toThrow(
      `the database is at schema version ${newest + 1}, written by a newer svc; this one knows versions up to ${newest}`,
    );
    expect(db.prepare('SELECT count(*) FROM schema_migrations').pluck().get()).toBe(applied.length + 1);
    db.close();
  });

  it('applies each migration once, in order', () => {
    const db = openDatabase(path.join(dir, 'm.sqlite'));
    const first = migrate(db);
    expect(first[0]).toBe('0001_foundation.sql');
    expect(migrate(db)).toEqual([]);
    expect(db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all()).toEqual(
      first.map((f) => Number(f.slice(0, 4))),
    );
    db.close();
  });

  it('0005 rebuilds meetings with per-organization slugs, keeping every row and every reference to them', () => {
    const upTo3 = fs.mkdtempSync(path.join(dir, 'upto3-'));
    const real = path.join(__dirname, 'migrations');
    for (const f of fs.readdirSync(real).filter((f) => f < '0005')) fs.copyFileSync(path.join(real, f), path.join(upTo3, f));
    const db = openDatabase(path.join(dir, 'old-slugs.sqlite'));
    migrate(db, upTo3);
    const at = '2026-01-01T00:00:00Z';
    db.exec(`INSERT INTO organizations VALUES ('org_a', 'A', '${at}'), ('org_b', 'B', '${at}');
      INSERT INTO meetings VALUES ('mtg_1', 'org_a', 'abc-defg-hij', 'Launch', 'webinar', 'launch', '${at}', 0, 60, 0, 0, 'scheduled', '${at}', '${at}', NULL, NULL);
      INSERT INTO registrations VALUES ('reg_1', 'mtg_1', 'a@example.com', 'a@example.com', 'Ann', '${at}');`);
    expect(() =>
      db
        .prepare(
          `INSERT INTO meetings VALUES ('mtg_2', 'org_b', 'abc-defg-hik', 'Launch', 'webinar', 'launch', '${at}', 0, 60, 0, 0, 'scheduled', '${at}', '${at}', NULL, NULL)`,
        )
        .run(),
    ).toThrow(/UNIQUE/);

    expect(migrate(db, real)).toContain('0005_webinar_slugs_per_organization.sql');
    db.prepare(
      `INSERT INTO meetings (id, organization_id, code, title, kind, slug, scheduled_at, scheduled_at_ms, duration_minutes, waiting_room, transcription_auto, status, created_at, updated_at, started_at, ended_at)
        VALUES ('mtg_2', 'org_b', 'abc-defg-hik', 'Launch', 'webinar', 'launch', '${at}', 0, 60, 0, 0, 'scheduled', '${at}', '${at}', NULL, NULL)`,
    ).run();
    expect(() =>
      db
        .prepare(
          `INSERT INTO meetings (id, organization_id, code, title, kind, slug, scheduled_at, scheduled_at_ms, duration_minutes, waiting_room, transcription_auto, status, created_at, updated_at, started_at, ended_at)
        VALUES ('mtg_3', 'org_b', 'abc-defg-hil', 'Launch', 'webinar', 'launch', '${at}', 0, 60, 0, 0, 'scheduled', '${at}', '${at}', NULL, NULL)`,
        )
        .run(),
    ).toThrow(/UNIQUE/);
    expect(db.prepare('SELECT id, slug FROM meetings ORDER BY id').all()).toEqual([
      { id: 'mtg_1', slug: 'launch' },
      { id: 'mtg_2', slug: 'launch' },
    ]);
    expect(db.pragma('foreign_key_check')).toEqual([]);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(() =>
      db.prepare(`INSERT INTO registrations VALUES ('reg_2', 'mtg_nope', 'b@example.com', 'b@example.com', 'Bo', '${at}')`).run(),
    ).toThrow(/FOREIGN KEY/);
    db.close();
  });

  it('rolls a failing migration back completely', () => {
    const migrations = fs.mkdtempSync(path.join(dir, 'migs-'));
    fs.writeFileSync(path.join(migrations, '0001_ok.sql'), 'CREATE TABLE a (x INTEGER);');
    fs.writeFileSync(path.join(migrations, '0002_broken.sql'), 'CREATE TABLE b (x INTEGER); INSERT INTO nowhere VALUES (1);');
    const db = openDatabase(path.join(dir, 'broken.sqlite'));
    expect(() => migrate(db, migrations)).toThrow(/no such table: nowhere/);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('a', 'b')").pluck().all()).toEqual(['a']);
    expect(db.prepare('SELECT version FROM schema_migrations').pluck().all()).toEqual([1]);
    db.close();
  });
});
