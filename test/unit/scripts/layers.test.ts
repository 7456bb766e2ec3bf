import assert from 'node:assert/strict';
import path from 'node:path';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';

const ROOT = path.resolve(__dirname, '../../..');

interface LayersModule {
  LAYERS: Record<string, readonly string[]>;
  layerRules(): Linter.Config[];
}

/** The layer rules alone (no type information needed). */
async function layerLinter(): Promise<ESLint> {
  const layers = (await import(path.join(ROOT, 'scripts/layers.mjs'))) as LayersModule;
  return new ESLint({
    cwd: ROOT,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, ...layers.layerRules()],
  });
}

/** The rule ids and messages ESLint reports for `code` as if it were the file `filePath`. */
async function lint(eslint: ESLint, filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, filePath) });
  return result.messages.map((m) => `${m.ruleId ?? 'fatal'}: ${m.message}`);
}

describe('layer lint: import directions of src/ (scripts/layers.mjs)', function () {
  // Loading ESLint and the TypeScript parser takes seconds on a busy machine; nothing here waits on timers.
  this.timeout(120_000);
  let eslint: ESLint;

  before(async () => {
    eslint = await layerLinter();
  });

  const planted: [file: string, code: string, layer: string][] = [
    ['src/core/planted.ts', "import { x } from '../tools/x';\nexport const y = x;\n", 'src/core/'],
    ['src/webview/planted.ts', "import { x } from '../vscode/x';\nexport const y = x;\n", 'src/webview/'],
    ['src/backend/planted.ts', "import type { X } from '../core/x';\nexport type Y = X;\n", 'src/backend/'],
    ['src/protocol/planted.ts', "export { x } from '../net/x';\n", 'src/protocol/'],
    ['src/tools/ide/planted.ts', "import { x } from '../../vscode/x';\nexport const y = x;\n", 'src/tools/'],
    ['src/vscode/planted.ts', "import { x } from '../backend/x';\nexport const y = x;\n", 'src/vscode/'],
    ['src/conformance/planted.ts', "import { x } from '../core';\nexport const y = x;\n", 'src/conformance/'],
    ['src/base/planted.ts', "import { x } from '../protocol/x';\nexport const y = x;\n", 'src/base/'],
  ];
  for (const [file, code, layer] of planted) {
    it(`refuses a planted upward or sideways import in ${file}`, async () => {
      const messages = await lint(eslint, file, code);
      assert.equal(messages.length, 1, messages.join('\n'));
      assert.match(messages[0], new RegExp(`^no-restricted-imports: .*${layer.replace(/\//g, '\\/')} may import only`));
    });
  }

  it('refuses vscode outside src/vscode/ and allows it there', async () => {
    assert.deepEqual(await lint(eslint, 'src/tools/planted.ts', "import * as vscode from 'vscode';\nexport const v = vscode;\n"), [
      "no-restricted-imports: 'vscode' import is restricted from being used. Only src/vscode/ may import vscode.",
    ]);
    assert.deepEqual(await lint(eslint, 'src/vscode/planted.ts', "import * as vscode from 'vscode';\nexport const v = vscode;\n"), []);
  });

  it('allows imports down the table, within a layer and from packages', async () => {
    const allowed: [string, string][] = [
      ['src/vscode/planted.ts', "import { a } from '../tools/a';\nimport { b } from '../core/b';\nimport { c } from '../protocol/c';\nimport { d } from './d';\nexport const e = [a, b, c, d];\n"],
      ['src/tools/ide/planted.ts', "import { a } from '../../core/a';\nimport { b } from '../support/b';\nexport const c = [a, b];\n"],
      ['src/webview/planted.ts', "import { a } from '../protocol/webview';\nimport { z } from 'zod';\nexport const c = [a, z];\n"],
      ['src/backend/planted.ts', "import { a } from '../net/send';\nimport { b } from '../base/logger';\nimport { WebSocket } from 'ws';\nexport const c = [a, b, WebSocket];\n"],
      ['src/protocol/planted.ts', "import { a } from '../base/events';\nexport const b = a;\n"],
    ];
    for (const [file, code] of allowed) assert.deepEqual(await lint(eslint, file, code), [], file);
  });

  it('the project config (eslint.config.mjs) applies the table to real source files', async () => {
    const { layerRules } = (await import(path.join(ROOT, 'scripts/layers.mjs'))) as LayersModule;
    const project = new ESLint({ cwd: ROOT });
    // The options only: ESLint reports the severity as a number.
    const ruleFor = async (file: string): Promise<unknown> => (((await project.calculateConfigForFile(file)) as Linter.Config).rules?.['no-restricted-imports'] as unknown[]).slice(1);
    const blocks = layerRules();
    const expected = (files: string): unknown => (blocks.find((b) => b.files?.[0] === files)?.rules?.['no-restricted-imports'] as unknown[]).slice(1);
    assert.deepEqual(await ruleFor('src/core/consent/userRuns.ts'), expected('src/core/**/*.ts'));
    assert.deepEqual(await ruleFor('src/webview/state.ts'), expected('src/webview/**/*.ts'));
    assert.deepEqual(await ruleFor('src/core/paths.ts'), expected('src/core/**/*.ts'));
  });

  it('every layer in the table is a folder the rules cover, and every allowed layer is itself in the table', async () => {
    const { LAYERS, layerRules } = (await import(path.join(ROOT, 'scripts/layers.mjs'))) as LayersModule;
    const covered = layerRules().flatMap((c) => c.files ?? []);
    assert.deepEqual(covered, Object.keys(LAYERS).map((l) => `src/${l}/**/*.ts`));
    for (const [layer, allowed] of Object.entries(LAYERS)) {
      for (const below of allowed) assert.ok(below in LAYERS, `${layer} allows unknown layer ${below}`);
    }
  });
});
