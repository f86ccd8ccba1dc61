// The cli's modules form no import circle (issue 30: cli.ts <-> its commands through `CliIo` was a
// 12-file one). The graph is read with the TypeScript compiler's own import scanner: static,
// type-only and dynamic (`await import('./x.js')`) imports alike, as madge reads them.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = dirname(fileURLToPath(import.meta.url));

/** The non-test `.ts` files under `dir`, absolute. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/** Each file's relative imports resolved to files under the same root (`./x.js` is `./x.ts`). */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map((i) => i.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => resolve(dirname(file), name).replace(/\.js$/, '.ts'))
      .filter((target) => known.has(target));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Every circle of `graph`, one per strongly connected component of two or more files (or a self-import). */
function circles(graph: Map<string, string[]>): string[][] {
  // Tarjan's strongly connected components.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)?.includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('the import graph of packages/cli/src', () => {
  it('has no import circle (a command takes CliIo from cli-io.ts, never from cli.ts)', () => {
    const graph = importGraph(sourceFiles(SRC));
    // The scan found the program and its commands, so an empty answer is not an empty graph.
    expect(graph.get(join(SRC, 'cli.ts'))).toContain(join(SRC, 'run-command.ts'));
    expect(graph.get(join(SRC, 'cli.ts'))).toContain(join(SRC, 'collie/command.ts'));
    const named = circles(graph).map((c) => c.map((f) => relative(SRC, f)));
    expect(named).toEqual([]);
  });

  it('finds a circle where there is one (the walk itself)', () => {
    const graph = new Map([
      ['/a.ts', ['/b.ts']],
      ['/b.ts', ['/c.ts']],
      ['/c.ts', ['/a.ts', '/d.ts']],
      ['/d.ts', []],
    ]);
    expect(circles(graph)).toEqual([['/a.ts', '/b.ts', '/c.ts']]);
  });
});
