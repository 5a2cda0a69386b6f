import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Source files (paths relative to the root, with `/`) and the source files each one imports. */
export type ImportGraph = Map<string, string[]>;

/** The files and folders at the bottom of service/src: they may import each other and nothing else. */
export function isLeaf(file: string): boolean {
  return file.startsWith('shared/') || file.startsWith('db/') || /^config(\.[\w-]+)?\.ts$/.test(file);
}

/** The composition root: the top-level files that wire the features together. */
export const COMPOSITION = ['app.ts', 'services.ts', 'runtime.ts', 'main.ts', 'cli.ts', 'bootstrap.ts'];

/** The folder a file belongs to (`rooms/room.ts` -> `rooms`), or undefined for a top-level file. */
export function folderOf(file: string): string | undefined {
  const slash = file.indexOf('/');
  return slash < 0 ? undefined : file.slice(0, slash);
}

/** Whether `file` is the composition root or one of its parts (`cli.ts`, `cli.commands.ts` ...). */
function isComposition(file: string): boolean {
  return COMPOSITION.some((c) => file === c || file.startsWith(`${c.slice(0, -3)}.`));
}

/**
 * The import graph of the TypeScript sources under `root`: static `import`, `import type`, `export ... from` and
 * `typeof import(...)`, relative specifiers only; tests (`*.test.ts`) and the folders in `exclude` are left out.
 */
export function readImportGraph(root: string, exclude: string[] = ['testing']): ImportGraph {
  const files = (fs.readdirSync(root, { recursive: true }) as string[])
    .map((f) => f.split(path.sep).join('/'))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts'))
    .filter((f) => !exclude.some((dir) => f.startsWith(`${dir}/`)))
    .sort();
  const known = new Set(files);
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    const imported = ts
      .preProcessFile(text, true, false)
      .importedFiles.map((i) => i.fileName)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => resolve(file, spec, known))
      .filter((target): target is string => target !== undefined);
    graph.set(file, [...new Set(imported)]);
  }
  return graph;
}

function resolve(from: string, spec: string, known: Set<string>): string | undefined {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec)).replace(/\.js$/, '');
  return [`${base}.ts`, `${base}/index.ts`].find((candidate) => known.has(candidate));
}

/** Strongly connected components with more than one member, or one member importing itself (Tarjan). */
function cyclesOf(graph: Map<string, Iterable<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    const selfLoop = [...(graph.get(node) ?? [])].includes(node);
    if (component.length > 1 || selfLoop) cycles.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

/** Every set of files that import each other in a circle (its members, sorted). */
export function fileCycles(graph: ImportGraph): string[][] {
  return cyclesOf(graph);
}

/** Every set of folders whose files import each other's in a circle (a folder-level back-edge). */
export function folderCycles(graph: ImportGraph): string[][] {
  const folders = new Map<string, Set<string>>();
  for (const [file, imported] of graph) {
    const from = folderOf(file);
    if (from === undefined) continue;
    if (!folders.has(from)) folders.set(from, new Set());
    for (const target of imported) {
      const to = folderOf(target);
      if (to !== undefined && to !== from) folders.get(from)!.add(to);
    }
  }
  return cyclesOf(folders);
}

/** Every import of a leaf (`shared/`, `db/`, `config.ts`) that leaves the leaves, and of `shared/` that leaves `shared/`. */
export function leafViolations(graph: ImportGraph): string[] {
  const found: string[] = [];
  for (const [file, imported] of graph) {
    if (!isLeaf(file)) continue;
    for (const target of imported) {
      const allowed = file.startsWith('shared/') ? target.startsWith('shared/') : isLeaf(target);
      if (!allowed) found.push(`${file} -> ${target}`);
    }
  }
  return found;
}

/** Every import of the composition root (app.ts, services.ts, runtime.ts ...) from a file inside a folder. */
export function compositionImports(graph: ImportGraph): string[] {
  const found: string[] = [];
  for (const [file, imported] of graph) {
    if (folderOf(file) === undefined) continue;
    for (const target of imported) if (isComposition(target)) found.push(`${file} -> ${target}`);
  }
  return found;
}

/** Source files (`.ts`, `.tsx`; not tests, not build output, not generated code) under `dirs` with more than `maxLines` lines, as `path (lines)`. */
export function oversizedFiles(dirs: string[], maxLines: number): string[] {
  const found: string[] = [];
  for (const dir of dirs) {
    if (!fs.existsSync(dir)) continue;
    for (const entry of fs.readdirSync(dir, { recursive: true }) as string[]) {
      const file = path.join(dir, entry);
      if (!/\.tsx?$/.test(entry) || /\.test\.tsx?$/.test(entry) || /(^|[/\\])(node_modules|dist|generated)[/\\]/.test(entry)) continue;
      if (!fs.statSync(file).isFile()) continue;
      const lines = fs.readFileSync(file, 'utf8').split('\n').length - 1;
      if (lines > maxLines) found.push(`${file} (${lines})`);
    }
  }
  return found.sort();
}

/** Constructors under `root` (not tests, not `testing/`) taking more than `maxParams` parameters, as `file: Class (n)`. */
export function wideConstructors(root: string, maxParams: number): string[] {
  const found: string[] = [];
  for (const file of readImportGraph(root).keys()) {
    const source = ts.createSourceFile(file, fs.readFileSync(path.join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isConstructorDeclaration(node) && node.parameters.length > maxParams) {
        const owner = ts.isClassLike(node.parent) ? (node.parent.name?.text ?? 'class') : 'class';
        found.push(`${file}: ${owner} (${node.parameters.length})`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}
