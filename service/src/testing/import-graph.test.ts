import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  compositionImports,
  fileCycles,
  folderCycles,
  leafViolations,
  oversizedFiles,
  readImportGraph,
  wideConstructors,
  type ImportGraph,
} from './import-graph';

const graphOf = (edges: Record<string, string[]>): ImportGraph => new Map(Object.entries(edges));

describe('the import graph checker', () => {
  it('finds a file-level cycle, however long, and a file importing itself; an acyclic graph has none', () => {
    const acyclic = { 'rooms/a.ts': ['rooms/b.ts', 'shared/c.ts'], 'rooms/b.ts': ['shared/c.ts'], 'shared/c.ts': [] };
    expect(fileCycles(graphOf(acyclic))).toEqual([]);
    const cyclic = graphOf({ ...acyclic, 'shared/c.ts': ['config.ts'], 'config.ts': ['rooms/a.ts'], 'x/self.ts': ['x/self.ts'] });
    expect(fileCycles(cyclic)).toEqual([['config.ts', 'rooms/a.ts', 'rooms/b.ts', 'shared/c.ts'], ['x/self.ts']]);
  });

  it('finds a cycle between folders that no single file closes (a folder-level back-edge)', () => {
    const graph = graphOf({
      'rooms/room.ts': ['search/index.ts'],
      'search/index.ts': [],
      'search/ask.ts': ['rooms/chat.ts'],
      'rooms/chat.ts': [],
      'meetings/m.ts': ['rooms/room.ts'],
    });
    expect(fileCycles(graph)).toEqual([]);
    expect(folderCycles(graph)).toEqual([['rooms', 'search']]);
    graph.set('search/ask.ts', []);
    expect(folderCycles(graph)).toEqual([]);
  });

  it('names a leaf importing a feature, and shared/ importing db/ or config.ts; leaves among themselves are fine', () => {
    const graph = graphOf({
      'shared/logger.ts': ['config.ts'],
      'shared/ids.ts': ['shared/clock.ts'],
      'shared/clock.ts': [],
      'db/connection.ts': ['shared/ids.ts'],
      'db/migrate.ts': ['rooms/room.ts'],
      'config.ts': ['config.network.ts', 'llm/llm.client.ts'],
      'config.network.ts': ['shared/env.ts'],
      'shared/env.ts': [],
      'rooms/room.ts': ['shared/ids.ts', 'db/connection.ts', 'config.ts'],
      'llm/llm.client.ts': [],
    });
    expect(leafViolations(graph)).toEqual([
      'shared/logger.ts -> config.ts',
      'db/migrate.ts -> rooms/room.ts',
      'config.ts -> llm/llm.client.ts',
    ]);
  });

  it('names a feature importing the composition root; the composition importing features is fine', () => {
    const graph = graphOf({
      'app.ts': ['services.ts', 'mcp/mcp.routes.ts'],
      'services.ts': ['rooms/room.ts'],
      'main.ts': ['runtime.ts', 'cli.commands.ts'],
      'runtime.ts': ['app.ts'],
      'cli.commands.ts': [],
      'mcp/mcp.routes.ts': ['services.ts'],
      'dashboard/d.routes.ts': ['app.ts', 'cli.commands.ts'],
      'rooms/room.ts': ['config.ts'],
      'config.ts': [],
    });
    expect(compositionImports(graph)).toEqual([
      'mcp/mcp.routes.ts -> services.ts',
      'dashboard/d.routes.ts -> app.ts',
      'dashboard/d.routes.ts -> cli.commands.ts',
    ]);
  });

  describe('on files', () => {
    let root: string;
    beforeAll(() => {
      root = fs.mkdtempSync(path.join(os.tmpdir(), 'import-graph-'));
      const write = (file: string, text: string) => {
        fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
        fs.writeFileSync(path.join(root, file), text);
      };
      write('config.ts', "import type { RoomSettings } from './rooms/room';\nexport const x = 'import nothing from \"./nope\"';\n");
      write('rooms/room.ts', "import {\n  a,\n  b,\n} from '../shared/ids.js';\nexport * from './peer';\nexport type RoomSettings = 1;\n");
      write(
        'rooms/peer.ts',
        "// import { no } from '../config';\nimport '../shared';\nexport const peer: typeof import('../config') | 1 = 1;\n",
      );
      write('shared/ids.ts', 'export const a = 1, b = 2;\n');
      write('shared/index.ts', "export { a } from './ids';\n");
      write('rooms/room.test.ts', "import { x } from '../config';\n");
      write('testing/harness.ts', "import { x } from '../config';\n");
      write('big.ts', 'const a = 1;\n'.repeat(401));
      write(
        'wide.ts',
        'export class Wide {\n  constructor(a: 1, b: 2, c: 3, d: 4, e: 5, f: 6) {}\n}\nexport class Narrow {\n  constructor(deps: { a: 1; b: 2; c: 3; d: 4; e: 5; f: 6 }) {}\n}\n',
      );
      write('five.ts', 'export class Five {\n  constructor(a: 1, b: 2, c: 3, d: 4, e: 5) {}\n}\n');
      write('small.ts', 'const a = 1;\n'.repeat(400));
      write('generated/api.ts', 'const a = 1;\n'.repeat(500));
      write('dist/out.ts', 'const a = 1;\n'.repeat(500));
    });
    afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

    it('reads import type, multi-line imports, export ... from, bare imports, index files and typeof import(), and skips tests, testing/, comments and strings', () => {
      expect(Object.fromEntries(readImportGraph(root))).toEqual({
        'big.ts': [],
        'config.ts': ['rooms/room.ts'],
        'dist/out.ts': [],
        'five.ts': [],
        'generated/api.ts': [],
        'rooms/peer.ts': ['shared/index.ts', 'config.ts'],
        'rooms/room.ts': ['shared/ids.ts', 'rooms/peer.ts'],
        'shared/ids.ts': [],
        'shared/index.ts': ['shared/ids.ts'],
        'small.ts': [],
        'wide.ts': [],
      });
      expect(fileCycles(readImportGraph(root))).toEqual([['config.ts', 'rooms/peer.ts', 'rooms/room.ts']]);
      expect(leafViolations(readImportGraph(root))).toEqual(['config.ts -> rooms/room.ts']);
    });

    it('names the constructors taking more than five parameters', () => {
      expect(wideConstructors(root, 5)).toEqual(['wide.ts: Wide (6)']);
    });

    it('names the files over the line limit with their length, leaving out generated code and build output', () => {
      expect(oversizedFiles([root], 400)).toEqual([`${path.join(root, 'big.ts')} (401)`]);
    });
  });
});
