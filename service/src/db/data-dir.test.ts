import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bootstrap } from '../bootstrap';
import { loadConfig } from '../config';
import { createLogger } from '../shared/logger';

describe('data directory modes', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-modes-'));
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
  const mode = (file: string) => (fs.statSync(file).mode & 0o777).toString(8);
  const write = (file: string, fileMode: number) => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'private');
    fs.chmodSync(file, fileMode);
  };

  it('tightens a data directory that existed before the service: 0700, nothing under recordings/ or project/ readable by others', () => {
    const dataDir = path.join(root, 'data');
    const outside = path.join(root, 'outside.txt');
    write(outside, 0o644);
    const files = ['recordings/rec_1.webm', 'recordings/rec_2.webm', 'project/PG_VERSION', 'project/base/1/1259'];
    for (const file of files) write(path.join(dataDir, file), 0o644);
    fs.chmodSync(path.join(dataDir, 'recordings/rec_2.webm'), 0o666);
    for (const dir of ['', 'recordings', 'project', 'project/base', 'project/base/1']) fs.chmodSync(path.join(dataDir, dir), 0o755);
    fs.symlinkSync(outside, path.join(dataDir, 'recordings', 'link.webm'));

    const core = bootstrap(loadConfig({ SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'silent' }), { logger: createLogger('silent') });
    core.close();

    expect(mode(dataDir)).toBe('700');
    for (const dir of ['recordings', 'project', 'project/base', 'project/base/1']) {
      expect([dir, mode(path.join(dataDir, dir))]).toEqual([dir, '700']);
    }
    for (const file of files) expect([file, mode(path.join(dataDir, file))]).toEqual([file, '600']);
    expect(mode(outside)).toBe('644');
  });
});
