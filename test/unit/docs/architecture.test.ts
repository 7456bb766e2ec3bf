/**
 * docs/ARCHITECTURE.md is the map a new engineer starts from, so it must not drift from the code:
 * every source file is named in it, every file it names exists, and its layer table (which the
 * picture draws) lists exactly the folder-to-folder imports the code has, all of them allowed by the
 * layering lint rule.
 */
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const DOC = readFileSync(path.join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');

function sourceFiles(dir = 'src'): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(rel);
    return entry.name.endsWith('.ts') ? [rel] : [];
  });
}

/** `src/<layer>/…` → `<layer>`. */
function layerOf(file: string): string {
  return file.split('/')[1];
}

/** Relative module specifiers a file imports or re-exports (static, side-effect and dynamic). */
function relativeImports(source: string): string[] {
  const found: string[] = [];
  for (const m of source.matchAll(/(?:^|[\s;])(?:import|export)\s[^'";]*?from\s*['"](\.{1,2}\/[^'"]+)['"]/g)) found.push(m[1]);
  for (const m of source.matchAll(/(?:^|[\s;])import\s*['"](\.{1,2}\/[^'"]+)['"]/g)) found.push(m[1]);
  for (const m of source.matchAll(/import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g)) found.push(m[1]);
  return found;
}

/** Folder-to-folder import edges as the code has them: `core -> protocol`, … */
function actualEdges(): Set<string> {
  const edges = new Set<string>();
  for (const file of sourceFiles()) {
    const from = layerOf(file);
    for (const spec of relativeImports(readFileSync(path.join(ROOT, file), 'utf8'))) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
      if (!target.startsWith('src/')) continue;
      const to = layerOf(target);
      if (to !== from) edges.add(`${from} -> ${to}`);
    }
  }
  return edges;
}

/** The rows of the doc's "| Folder | Imports |" table: `| \`src/core/\` | \`src/base/\`, … |`. */
function documentedEdges(): { edges: Set<string>; folders: string[] } {
  const section = DOC.split(/^## /m).find((s) => s.startsWith('Layers'));
  assert.ok(section, 'docs/ARCHITECTURE.md has a "## Layers" section');
  const edges = new Set<string>();
  const folders: string[] = [];
  for (const row of section.matchAll(/^\| `src\/([a-z]+)\/` \| (.*) \|$/gm)) {
    folders.push(row[1]);
    for (const target of row[2].matchAll(/`src\/([a-z]+)\/`/g)) edges.add(`${row[1]} -> ${target[1]}`);
  }
  return { edges, folders };
}

describe('docs/ARCHITECTURE.md', () => {
  it('names every source file', () => {
    const unnamed = sourceFiles().filter((file) => !DOC.includes(`\`${file}\``));
    assert.deepEqual(unnamed, [], 'add each to ARCHITECTURE.md, as `src/…` in backticks');
  });

  it('names no source file that does not exist', () => {
    const files = new Set(sourceFiles());
    const named = [...DOC.matchAll(/`(src\/[A-Za-z0-9_/.-]+\.ts)`/g)].map((m) => m[1]);
    assert.ok(named.length > 50, 'the module tables name the files');
    assert.deepEqual(named.filter((file) => !files.has(file)), []);
  });

  it('has a layer table with every source folder and exactly the imports the code has', () => {
    const { edges, folders } = documentedEdges();
    const actualFolders = [...new Set(sourceFiles().map(layerOf))].sort();
    assert.deepEqual([...folders].sort(), actualFolders);
    assert.deepEqual([...edges].sort(), [...actualEdges()].sort());
  });

  it('draws only imports the layering lint rule allows', async () => {
    const { LAYERS: allowed } = (await import(path.join(ROOT, 'scripts/layers.mjs'))) as { LAYERS: Record<string, readonly string[]> };
    const forbidden = [...documentedEdges().edges].filter((edge) => {
      const [from, to] = edge.split(' -> ');
      return !(allowed[from] ?? []).includes(to);
    });
    assert.deepEqual(forbidden, []);
  });

  it('gives a reason for every file of the extension\'s side over 600 lines (the backend and the kit are checked by their own owners)', () => {
    const section = DOC.slice(DOC.indexOf('### Files over 600 lines'), DOC.indexOf('## A call, end to end'));
    assert.ok(section.length > 0, 'ARCHITECTURE.md has a "Files over 600 lines" section');
    const listed = new Set([...section.matchAll(/^\| `(src\/[^`]+)` \| \d+ \| \S/gm)].map((m) => m[1]));
    const long = sourceFiles()
      .filter((f) => !f.startsWith('src/backend/') && !f.startsWith('src/conformance/'))
      .filter((f) => readFileSync(path.join(ROOT, f), 'utf8').split('\n').length - 1 > 600);
    assert.deepEqual(long.filter((f) => !listed.has(f)), [], 'split the file, or say in ARCHITECTURE.md why it is long');
  });

  it('reads the imports the way the lint rule does (a planted edge is found)', () => {
    assert.deepEqual(relativeImports("import { a } from '../core/x';\nexport * from './y';\nimport '../base/z';\nconst m = import('../net/w');"), ['../core/x', './y', '../base/z', '../net/w']);
  });
});
