/**
 * The `ChatModel` types and what only needs them (the agent loop, the offline demo model) stay free
 * of the OpenAI SDK: a custom model or the demo needs no `openai` package, and the SDK is confined
 * to its adapter. Follows every import (type-only ones too) through the project's own files.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(__dirname, '../../../..');

/** Every module specifier a file imports or re-exports, relative ones resolved to project files. */
function importsOf(file: string): { local: string[]; packages: string[] } {
  const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
  const local: string[] = [];
  const packages: string[] = [];
  for (const { fileName: spec } of importedFiles) {
    if (!spec.startsWith('.')) {
      packages.push(spec);
      continue;
    }
    const base = path.resolve(path.dirname(file), spec);
    const found = [`${base}.ts`, path.join(base, 'index.ts')].find((f) => fs.existsSync(f));
    assert.ok(found, `${path.relative(root, file)} imports ${spec}, which resolves to no .ts file`);
    local.push(found);
  }
  return { local, packages };
}

/** The packages reachable from `entry`, each with the chain of project files that leads to it. */
function reachablePackages(entry: string): Map<string, string[]> {
  const reached = new Map<string, string[]>();
  const seen = new Set<string>();
  const walk = (file: string, chain: string[]) => {
    if (seen.has(file)) return;
    seen.add(file);
    const here = [...chain, path.relative(root, file)];
    const { local, packages } = importsOf(file);
    for (const p of packages) if (!reached.has(p)) reached.set(p, here);
    for (const next of local) walk(next, here);
  };
  walk(path.join(root, entry), []);
  return reached;
}

const isOpenAI = (spec: string) => spec === 'openai' || spec.startsWith('openai/');

describe('backend model layout: the ChatModel types apart from the OpenAI adapter', () => {
  for (const entry of ['src/backend/model/chatModel.ts', 'src/backend/demo/demoModel.ts', 'src/backend/run/agent.ts']) {
    it(`${entry} reaches no openai import, directly or through the files it imports`, () => {
      const openai = [...reachablePackages(entry)].filter(([spec]) => isOpenAI(spec));
      assert.deepEqual(openai.map(([spec, chain]) => `${chain.join(' → ')} → ${spec}`), []);
    });
  }

  it('the adapter is where the SDK is imported (so the walk above would see one)', () => {
    assert.ok([...reachablePackages('src/backend/model/openai.ts').keys()].some(isOpenAI));
  });
});
