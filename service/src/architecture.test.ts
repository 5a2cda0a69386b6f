import fs from 'node:fs';
import path from 'node:path';

describe('the shape of service/src', () => {
  const folders = fs
    .readdirSync(__dirname, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== 'testing')
    .map((d) => d.name);

  it.each(folders)('%s/ has a test file beside its code', (folder) => {
    const files = fs.readdirSync(path.join(__dirname, folder), { recursive: true }).map(String);
    expect(files.filter((f) => f.endsWith('.test.ts'))).not.toEqual([]);
  });
});
