import fs from 'node:fs';
import type { Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { verifyWebhook } from '@svc/connectors';
import { createApp } from '../app';
import { bootstrap } from '../bootstrap';
import { loadConfig } from '../config';
import { listen } from '../http/server';
import { SCOPES } from '../keys/scopes';
import { createDeliveryWorker, createServices } from '../services';
import { systemClock } from '../shared/clock';
import { createLogger } from '../shared/logger';
import { loadMasterKey } from '../shared/secret-box';
import { recordFile } from '../testing/fixtures';
import { startReceiver, type TestReceiver } from '../testing/receiver';
import { openDatabase, type Db } from './connection';
import { MIGRATIONS_DIR, migrate, migrationFiles } from './migrate';

// The last migration of the release before this one; move it forward when a release ships, so the test keeps opening
// the previous release's data.
const PREVIOUS_RELEASE_LAST_MIGRATION = '0015_recording_failure_reason.sql';

/**
 * Tables a newer migration rebuilt (a CHECK cannot be altered): going back, each is made again from the old text with
 * its rows, these columns' values written as the previous release knew them.
 */
const REBUILT_TABLES: Record<string, Record<string, string>> = {
  // 0023: recordings gained the kind tracks; the previous release had video for those.
  recordings: { kind: "CASE kind WHEN 'audio' THEN 'audio' ELSE 'video' END" },
  // 0030: transcripts gained breakout_room_id (a breakout room's own transcript) and lost meeting_id as primary key.
  transcripts: {},
};

/** Every table, index, trigger and view of a database with its SQL. */
function schemaOf(db: Db): Map<string, string> {
  const rows = db.prepare(`SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name`).all() as {
    type: string;
    name: string;
    sql: string | null;
  }[];
  return new Map(rows.map((r) => [`${r.type} ${r.name}`, r.sql ?? '']));
}

/**
 * Takes a database of this release back to the previous release's schema: what the newer migrations created is dropped
 * and their rows in schema_migrations removed; the result must be exactly the schema the previous release's migrations
 * (the files still in the tree: released migrations never change, see CHECKSUMS) build. Data written through this
 * release's services into tables the previous release already had is then what that release wrote.
 */
function backToPreviousRelease(db: Db, previous: Map<string, string>): void {
  const current = schemaOf(db);
  for (const object of current.keys()) {
    if (previous.has(object)) continue;
    const [type, name] = object.split(' ') as [string, string];
    // IF EXISTS: an index or trigger went already with its table.
    db.exec(`DROP ${type.toUpperCase()} IF EXISTS "${name}"`);
  }
  // Columns the newer migrations added (ALTER TABLE ADD COLUMN), dropped newest first so the table's SQL is the old text again.
  for (const [object, sql] of previous) {
    if (!object.startsWith('table ') || schemaOf(db).get(object) === sql) continue;
    const table = object.slice('table '.length);
    const columnsOf = (d: Db) => d.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[];
    const scratch = openDatabase(':memory:');
    scratch.exec(sql);
    const kept = new Set(columnsOf(scratch));
    scratch.close();
    const rebuilt = REBUILT_TABLES[table];
    if (rebuilt) {
      const columns = columnsOf(db).filter((c) => kept.has(c));
      const values = columns.map((c) => (rebuilt[c] ? `${rebuilt[c]} AS "${c}"` : `"${c}"`)).join(', ');
      const names = columns.map((c) => `"${c}"`).join(', ');
      db.exec(`CREATE TEMP TABLE previous_rows AS SELECT ${values} FROM "${table}"`);
      db.exec(`DROP TABLE "${table}"`);
      db.exec(sql);
      db.exec(`INSERT INTO "${table}" (${names}) SELECT ${names} FROM previous_rows`);
      db.exec('DROP TABLE temp.previous_rows');
      for (const [other, otherSql] of previous)
        if (other.startsWith('index ') && !schemaOf(db).has(other) && otherSql.includes(`ON ${table} `)) db.exec(otherSql);
      continue;
    }
    if (sql.startsWith('CREATE VIRTUAL TABLE')) {
      // A virtual table (full-text search) cannot drop a column: it is made again from the old text with its rows.
      const columns = columnsOf(db)
        .filter((c) => kept.has(c))
        .map((c) => `"${c}"`)
        .join(', ');
      db.exec(`CREATE TEMP TABLE previous_rows AS SELECT rowid AS previous_rowid, ${columns} FROM "${table}"`);
      db.exec(`DROP TABLE "${table}"`);
      db.exec(sql);
      db.exec(`INSERT INTO "${table}" (rowid, ${columns}) SELECT previous_rowid, ${columns} FROM previous_rows`);
      db.exec('DROP TABLE temp.previous_rows');
      continue;
    }
    for (const column of columnsOf(db)
      .filter((c) => !kept.has(c))
      .reverse())
      db.exec(`ALTER TABLE "${table}" DROP COLUMN "${column}"`);
  }
  db.prepare('DELETE FROM schema_migrations WHERE name > ?').run(PREVIOUS_RELEASE_LAST_MIGRATION);
  expect(schemaOf(db)).toEqual(previous);
}

describe('a data directory written by the previous release', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-upgrade-'));
  const dataDir = path.join(dir, 'data');
  const silent = createLogger('silent');
  let receiver: TestReceiver;
  let server: Server | undefined;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    server?.close();
    await receiver.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('opens with this release: the newer migrations are applied, and its meetings, keys, webhook secrets, deliveries and recordings work', async () => {
    const previousMigrations = path.join(dir, 'previous-migrations');
    fs.mkdirSync(previousMigrations);
    for (const file of migrationFiles().filter((f) => f <= PREVIOUS_RELEASE_LAST_MIGRATION)) {
      fs.copyFileSync(path.join(MIGRATIONS_DIR, file), path.join(previousMigrations, file));
    }
    const config = loadConfig({ SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'silent', SVC_ALLOW_INSECURE_WEBHOOKS: 'true' });

    // The previous release's schema, built by its migrations.
    const reference = openDatabase(path.join(dir, 'reference.sqlite'));
    expect(migrate(reference, previousMigrations).at(-1)).toBe(PREVIOUS_RELEASE_LAST_MIGRATION);
    const previousSchema = schemaOf(reference);
    reference.close();

    // Its data: written through the services (with its master key file), then the database taken back to its schema.
    const db = openDatabase(config.databasePath);
    migrate(db);
    const services = createServices(db, config, systemClock, loadMasterKey(dataDir, undefined), silent);
    const { owner } = services.identity.ensureOwner();
    const org = services.identity.listOrganizations()[0]!;
    const { key } = services.keys.create({
      userId: owner.id,
      name: 'from the previous release',
      scopes: [...SCOPES],
      organizationId: org.id,
      expiresAt: null,
    });
    const principal = services.identity.authenticate(key)!;
    const endpoint = services.webhooks.create(principal, { url: receiver.url, events: ['registration.created'] });
    const meeting = services.meetings.create(principal, { title: 'Planned before the upgrade', kind: 'webinar', slug: 'before' });
    const { registration } = services.registrations.register(principal, 'before', { email: 'ann@example.com', name: 'Ann' });
    const recording = recordFile(services, dataDir, meeting.id, 'recorded-before-the-upgrade');
    // Said and written before search hits named participants: the upgrade fills them in from the chat log.
    const ann = services.participants.recordJoin(meeting.id, { name: 'Ann', role: 'guest', identity: 'ann' });
    services.rooms.chat.save(meeting.id, ann.id, 'Ann', 'ann', 'The zeppelin agenda is ready.');
    services.transcripts.complete(meeting.id, { language: 'en', segments: [{ start: 0, end: 2, speaker: 'Bo', text: 'Zeppelin first.' }] });
    backToPreviousRelease(db, previousSchema);
    db.close();

    // This release, started as production starts.
    const core = bootstrap(config, { logger: silent });
    const newer = migrationFiles().filter((f) => f > PREVIOUS_RELEASE_LAST_MIGRATION);
    expect(newer.length).toBeGreaterThan(0);
    expect(core.migrationsApplied).toEqual(newer);
    const app = createApp({ config: core.config, services: core.services, logger: silent, project: core.project });
    server = await listen(app, 0, '127.0.0.1');
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/api/v1/public`;
    const get = (p: string) => fetch(url + p, { headers: { authorization: `Bearer ${key}` } });

    const found = await get(`/meetings/${meeting.id}`);
    expect(found.status).toBe(200);
    expect(((await found.json()) as { title: string }).title).toBe('Planned before the upgrade');
    const download = await get(`/recordings/${recording.id}/download`);
    expect([download.status, await download.text()]).toEqual([200, 'recorded-before-the-upgrade']);
    const hits = ((await (await get('/search?q=zeppelin')).json()) as { data: Record<string, unknown>[] }).data;
    expect(hits).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ source: 'chat', speaker: 'Ann', participant_id: ann.id }),
        expect.objectContaining({ source: 'transcript', speaker: 'Bo', participant_id: null, segment_index: 0 }),
      ]),
    );
    expect(hits).toHaveLength(2);
    const deliveries = (await (await get(`/webhook-endpoints/${endpoint.id}/deliveries`)).json()) as { data: { status: string }[] };
    expect(deliveries.data.map((d) => d.status)).toEqual(['pending']);

    // The delivery written before the upgrade goes out, signed with the secret sealed by the previous release.
    const worker = createDeliveryWorker(core.services, core.config, silent, { project: core.project });
    for (let i = 0; i < 20 && receiver.requests.length === 0; i++) await worker.runOnce();
    expect(receiver.requests).toHaveLength(1);
    const delivered = receiver.requests[0]!;
    const event = verifyWebhook({ rawBody: delivered.rawBody, headers: delivered.headers, secrets: endpoint.secret! });
    expect(event.type).toBe('registration.created');
    expect(JSON.stringify(event.data)).toContain(registration.id);

    // The newer tables are there, and the schema is this release's.
    const applied = core.services.db.prepare('SELECT name FROM schema_migrations ORDER BY version').pluck().all();
    expect(applied).toEqual(migrationFiles());
    await core.project.close();
    core.close();
  });
});
