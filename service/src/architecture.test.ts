import fs from 'node:fs';
import path from 'node:path';
import {
  compositionImports,
  fileCycles,
  folderCycles,
  leafViolations,
  oversizedFiles,
  readImportGraph,
  wideConstructors,
} from './testing/import-graph';

/** Longest source file allowed in the service and the browser packages. */
const MAX_LINES = 400;

describe('the shape of service/src', () => {
  const folders = fs
    .readdirSync(__dirname, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== 'testing')
    .map((d) => d.name);

  it.each(folders)('%s/ has a test file beside its code', (folder) => {
    const files = fs.readdirSync(path.join(__dirname, folder), { recursive: true }).map(String);
    expect(files.filter((f) => f.endsWith('.test.ts'))).not.toEqual([]);
  });

  // The graph of the production sources: tests and testing/ may import anything.
  const graph = readImportGraph(__dirname);

  it('reads the real import graph (a sanity check of the walker)', () => {
    expect(graph.get('app.ts')).toContain('services.ts');
    expect(graph.get('rooms/rooms.service.ts')).toContain('config.ts');
  });

  it('has no import cycle between files (type-only imports count)', () => {
    expect(fileCycles(graph)).toEqual([]);
  });

  it('has no cycle between folders: no feature folder imports one that imports it back', () => {
    expect(folderCycles(graph)).toEqual([]);
  });

  it('keeps the leaves at the bottom: shared/ imports only shared/; db/ and config.ts only shared/, db/ and config', () => {
    expect(leafViolations(graph)).toEqual([]);
  });

  it('keeps the composition root (app.ts, services.ts, runtime.ts, main.ts, cli.ts, bootstrap.ts) out of the folders', () => {
    expect(compositionImports(graph)).toEqual([]);
  });

  it('has no constructor with more than five parameters: those take one named object', () => {
    expect(wideConstructors(__dirname, 5)).toEqual([]);
  });

  it(`has no source file over ${MAX_LINES} lines in service/src, web/*/src or embed/*/src`, () => {
    const repo = path.join(__dirname, '../..');
    const packages = (parent: string) =>
      fs.existsSync(path.join(repo, parent)) ? fs.readdirSync(path.join(repo, parent)).map((p) => path.join(repo, parent, p, 'src')) : [];
    const dirs = [__dirname, ...packages('web'), ...packages('embed')];
    expect(oversizedFiles(dirs, MAX_LINES).map((f) => path.relative(repo, f))).toEqual([]);
  });
});
