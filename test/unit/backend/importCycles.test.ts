/**
 * The backend reads top-down: no file imports, even for a type, a file that imports it back through
 * any chain. An import circle makes a room impossible to read (or test) without the other.
 */
import { strict as assert } from 'node:assert';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(rel);
    return entry.name.endsWith('.ts') ? [rel] : [];
  });
}

/** Relative module specifiers a file imports or re-exports (static, type-only and dynamic). */
function relativeImports(source: string): string[] {
  const found: string[] = [];
  for (const m of source.matchAll(/(?:^|[\s;])(?:import|export)\s[^'";]*?from\s*['"](\.{1,2}\/[^'"]+)['"]/g)) found.push(m[1]);
  for (const m of source.matchAll(/import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g)) found.push(m[1]);
  return found;
}

function resolveImport(from: string, spec: string): string | undefined {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  for (const candidate of [`${base}.ts`, `${base}/index.ts`]) if (existsSync(path.join(ROOT, candidate)) && statSync(path.join(ROOT, candidate)).isFile()) return candidate;
  return undefined;
}

/** The strongly connected components of more than one file (or a file importing itself): Tarjan's algorithm. */
export function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

function importGraph(dir: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(dir)) {
    const targets = relativeImports(readFileSync(path.join(ROOT, file), 'utf8'))
      .map((spec) => resolveImport(file, spec))
      .filter((t): t is string => t !== undefined && t.startsWith(`${dir}/`));
    graph.set(file, targets);
  }
  return graph;
}

describe('backend: no import circles', () => {
  it('finds a circle when there is one (a planted three-file loop and a file importing itself)', () => {
    const planted = new Map<string, string[]>([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts']],
    ]);
    assert.deepEqual(circles(planted), [['a.ts', 'b.ts', 'c.ts'], ['e.ts']]);
  });

  it('reads the backend\'s imports (agent.ts imports toolCalls.ts and threads.ts)', () => {
    const graph = importGraph('src/backend');
    assert.ok(graph.size > 80, `${graph.size} files read`);
    const agent = [...graph.entries()].find(([file]) => file.endsWith('/agent.ts'));
    assert.ok(agent, 'agent.ts found');
    assert.ok(agent[1].some((t) => t.endsWith('/toolCalls.ts')) && agent[1].some((t) => t.endsWith('/threads.ts')), agent[1].join(', '));
  });

  it('src/backend has no file that imports itself back through any chain', () => {
    assert.deepEqual(circles(importGraph('src/backend')), []);
  });
});
