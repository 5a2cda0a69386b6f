import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import zlib from 'node:zlib';
import { bootstrap } from '../bootstrap';
import { loadConfig } from '../config';
import { createLogger } from '../shared/logger';
import { createBackup } from './backup.create';
import { BackupError, latestSchemaVersion } from './backup.manifest';
import { restoreBackup } from './backup.restore';
import { CorruptArchiveError, readTar, TarWriter } from './backup.tar';

describe('backups', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-backup-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function tarOf(write: (tar: TarWriter) => Promise<void>): Promise<Buffer> {
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    const tar = new TarWriter(out);
    await write(tar);
    await tar.finish();
    out.end();
    return Buffer.concat(chunks);
  }

  async function entriesOf(archive: Buffer): Promise<{ name: string; type: string; body: string }[]> {
    const seen = [];
    for await (const entry of readTar(Readable.from([archive]))) {
      seen.push({ name: entry.name, type: entry.type, body: entry.type === 'file' ? (await entry.read()).toString() : '' });
    }
    return seen;
  }

  it('reads back what the tar writer wrote: long names (pax), empty files, folders and file contents', async () => {
    const longName = `data/recordings/${'r'.repeat(180)}/${'x'.repeat(120)}.webm`;
    const source = path.join(dir, 'source.bin');
    fs.writeFileSync(source, Buffer.alloc(70_000, 7));
    const archive = await tarOf(async (tar) => {
      await tar.directory('data/recordings');
      await tar.buffer(longName, Buffer.from('long'));
      await tar.buffer('data/empty', Buffer.alloc(0));
      expect(await tar.file('data/big.bin', source)).toEqual({
        size: 70_000,
        sha256: createHash('sha256').update(fs.readFileSync(source)).digest('hex'),
      });
    });
    const entries = await entriesOf(archive);
    expect(entries.map((e) => [e.name, e.type])).toEqual([
      ['data/recordings', 'directory'],
      [longName, 'file'],
      ['data/empty', 'file'],
      ['data/big.bin', 'file'],
    ]);
    expect(entries[1]!.body).toBe('long');
    expect(entries[3]!.body).toBe(fs.readFileSync(source).toString());
  });

  it('refuses an archive with a damaged header, a link, or no end marker', async () => {
    const archive = await tarOf((tar) => tar.buffer('data/a', Buffer.from('a')).then(() => undefined));
    const damaged = Buffer.from(archive);
    damaged[10] = 0x41;
    await expect(entriesOf(damaged)).rejects.toThrow(CorruptArchiveError);
    const link = Buffer.from(archive);
    link[156] = '2'.charCodeAt(0);
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : link[i]!;
    link.write(`${sum.toString(8).padStart(6, '0')}\u0000 `, 148, 'latin1');
    await expect(entriesOf(link)).rejects.toThrow(/neither a file nor a directory/);
    await expect(entriesOf(archive.subarray(0, 512 + 512))).rejects.toThrow(/ends before its end marker/);
  });

  describe('of a data directory, without a service running', () => {
    const dataDir = path.join(dir, 'data');
    const file = path.join(dir, 'backup.tgz');
    let keyId: string;

    beforeAll(async () => {
      const core = bootstrap(loadConfig({ SVC_DATA_DIR: dataDir }), { logger: createLogger('silent') });
      const { owner } = core.services.identity.ensureOwner();
      keyId = core.services.keys.create({
        userId: owner.id,
        name: 'kept',
        scopes: ['meetings:read'],
        organizationId: null,
        expiresAt: null,
      }).row.id;
      core.close();
      fs.mkdirSync(path.join(dataDir, 'recordings'));
      fs.writeFileSync(path.join(dataDir, 'recordings', 'rec_1.webm'), Buffer.from([0, 1, 2, 255]));
      await createBackup(loadConfig({ SVC_DATA_DIR: dataDir }), file);
    });

    it('is one file only its owner can read, with no .partial left, restored byte for byte', async () => {
      expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');
      expect(fs.existsSync(`${file}.partial`)).toBe(false);
      expect(fs.readdirSync(dir).filter((f) => f.startsWith('.svc-'))).toEqual([]);
      const restored = path.join(dir, 'restored');
      const manifest = await restoreBackup(file, restored);
      expect(manifest.schema_version).toBe(latestSchemaVersion());
      expect(manifest.project_database).toBe('none');
      expect(fs.readFileSync(path.join(restored, 'recordings', 'rec_1.webm'))).toEqual(Buffer.from([0, 1, 2, 255]));
      expect(fs.readFileSync(path.join(restored, 'master.key'))).toEqual(fs.readFileSync(path.join(dataDir, 'master.key')));
      const core = bootstrap(loadConfig({ SVC_DATA_DIR: restored }), { logger: createLogger('silent') });
      expect(core.migrationsApplied).toEqual([]);
      expect(core.services.keys.list().map((k) => k.id)).toEqual([keyId]);
      core.close();
    });

    it('refuses a directory that is not empty, writing nothing into it', async () => {
      const busy = path.join(dir, 'busy');
      fs.mkdirSync(busy);
      fs.writeFileSync(path.join(busy, 'notes.txt'), 'mine');
      await expect(restoreBackup(file, busy)).rejects.toThrow(/is not empty/);
      expect(fs.readdirSync(busy)).toEqual(['notes.txt']);
    });

    it('refuses a backup of a newer schema before writing anything', async () => {
      const target = path.join(dir, 'older-release');
      await expect(restoreBackup(file, target, latestSchemaVersion() - 1)).rejects.toThrow(
        new RegExp(`schema version ${latestSchemaVersion()}; this svc .* knows schema versions up to ${latestSchemaVersion() - 1}`),
      );
      expect(fs.existsSync(target)).toBe(false);
      expect(fs.readdirSync(dir).filter((f) => f.startsWith('.svc-restore-'))).toEqual([]);
    });

    it('refuses a damaged or truncated file, and one whose contents do not match their checksums', async () => {
      const gz = fs.readFileSync(file);
      const truncated = path.join(dir, 'truncated.tgz');
      fs.writeFileSync(truncated, gz.subarray(0, Math.floor(gz.length / 2)));
      await expect(restoreBackup(truncated, path.join(dir, 't1'))).rejects.toThrow(/is not a complete svc backup/);
      const flipped = Buffer.from(gz);
      const middle = Math.floor(gz.length / 2);
      flipped[middle] = flipped[middle]! ^ 0xff;
      const damaged = path.join(dir, 'damaged.tgz');
      fs.writeFileSync(damaged, flipped);
      await expect(restoreBackup(damaged, path.join(dir, 't2'))).rejects.toThrow(BackupError);
      // A well-formed archive whose recording was changed after the manifest was written.
      const tar = zlib.gunzipSync(gz);
      const at = tar.indexOf(Buffer.from([0, 1, 2, 255]));
      tar[at + 3] = 254;
      const edited = path.join(dir, 'edited.tgz');
      fs.writeFileSync(edited, zlib.gzipSync(tar));
      await expect(restoreBackup(edited, path.join(dir, 't3'))).rejects.toThrow(/data\/recordings\/rec_1.webm does not match its checksum/);
      for (const t of ['t1', 't2', 't3']) expect(fs.existsSync(path.join(dir, t))).toBe(false);
    });

    it('refuses a file that is no backup at all', async () => {
      const other = path.join(dir, 'other.tgz');
      fs.writeFileSync(other, zlib.gzipSync(Buffer.from('hello')));
      await expect(restoreBackup(other, path.join(dir, 't4'))).rejects.toThrow(/is not a complete svc backup/);
      await expect(restoreBackup(path.join(dir, 'missing.tgz'), path.join(dir, 't5'))).rejects.toThrow(/cannot read .*ENOENT/);
    });
  });
});
