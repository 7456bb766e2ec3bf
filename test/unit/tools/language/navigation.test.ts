import * as assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { SymbolInfo } from '../../../../src/core/host';
import { ErrorCode, type ClientToolInvokeResponse } from '../../../../src/protocol';
import { LANGUAGE_GROUP, LANGUAGE_TOOLS } from '../../../../src/tools/language/group';
import { DispatchHarness } from '../../../support/dispatch-harness';
import { at } from '../../../support/fake-language';
import { createTempWorkspace, type TempWorkspace } from '../../../support/fake-host';

function json<T = Record<string, unknown>>(r: ClientToolInvokeResponse): T {
  assert.equal(r.success, true, `${r.errorCode}: ${r.errorMessage}`);
  const item = r.content[0];
  assert.ok(item && item.type === 'json');
  return item.value as T;
}

const SAMPLE = 'export interface Greeting {\n  name: string;\n}\n\nexport function greet(g: Greeting): string {\n  return `Hello, ${g.name}`;\n}\n';
const MAIN = "import { greet } from './sample';\n\nexport const a = greet({ name: 'a' });\nexport const b = greet({ name: 'b' });\n";

interface Located {
  at: string;
  locations: { location: string; text?: string; outsideWorkspace?: true; protected?: true }[];
  total: number;
  more?: number;
  note?: string;
  alsoNamed?: string[];
  message?: string;
}

describe('Language group: navigation', () => {
  let ws: TempWorkspace;
  let h: DispatchHarness;
  let lib: string;
  const sym = (name: string, file: string, line: number, character: number, kind = 'Function', depth = 0): SymbolInfo => ({ name, kind, location: at(file, line, character, name.length), depth });

  beforeEach(async () => {
    ws = await createTempWorkspace(['ws'], { 'src/sample.ts': SAMPLE, 'src/main.ts': MAIN, '.env': 'KEY=secret greet\n' });
    lib = path.join(ws.root, 'lib', 'lib.es5.d.ts');
    await mkdir(path.dirname(lib), { recursive: true });
    await writeFile(lib, 'interface Array<T> {\n  length: number;\n}\n');
    h = new DispatchHarness({ host: ws.host, group: LANGUAGE_GROUP, tools: LANGUAGE_TOOLS });
  });
  afterEach(async () => {
    h.dispose();
    await ws.dispose();
  });

  it('FindReferences at a position: path:line:column with each line\'s text, workspace files first, then by path and place', async () => {
    ws.host.language.locationsOf = () => [at(ws.file('src/sample.ts'), 4, 16, 5), at(ws.file('src/main.ts'), 3, 16, 5), at(ws.file('src/main.ts'), 0, 9, 5), at(ws.file('src/main.ts'), 2, 16, 5)];
    const v = json<Located>(await h.call('FindReferences', { path: 'src/sample.ts', line: 5, column: 17 }));
    assert.equal(v.at, 'src/sample.ts:5:17');
    assert.deepEqual(v.locations, [
      { location: 'src/main.ts:1:10', text: "import { greet } from './sample';" },
      { location: 'src/main.ts:3:17', text: "export const a = greet({ name: 'a' });" },
      { location: 'src/main.ts:4:17', text: "export const b = greet({ name: 'b' });" },
      { location: 'src/sample.ts:5:17', text: 'export function greet(g: Greeting): string {' },
    ]);
    assert.deepEqual(ws.host.language.asked[0], { op: 'references', path: ws.file('src/sample.ts'), position: { line: 4, character: 16 } });
  });

  it('a symbol\'s name instead of a position: found among the workspace symbols inside the workspace (a function\'s "()" aside), the others named', async () => {
    ws.host.language.workspaceSymbolList = [sym('greet', lib, 0, 10), sym('greeting', ws.file('src/sample.ts'), 0, 17), sym('greet()', ws.file('src/sample.ts'), 4, 0), sym('greet', ws.file('src/main.ts'), 0, 0)];
    ws.host.language.locationsOf = (_q, p, pos) => [at(p, pos.line, pos.character, 5)];
    const v = json<Located>(await h.call('GoToDefinition', { symbol: 'greet' }));
    // The first inside the workspace by path; the declaration's range starts at `export`, the name is found on the line.
    assert.equal(v.at, 'src/main.ts:1:10');
    assert.deepEqual(v.alsoNamed, ['src/sample.ts:5']);
  });

  it('a symbol on a given line, or in a file\'s outline; NOT_FOUND says what is there', async () => {
    ws.host.language.outline.set(ws.file('src/sample.ts'), [sym('Greeting', ws.file('src/sample.ts'), 0, 17, 'Interface'), sym('greet', ws.file('src/sample.ts'), 4, 16)]);
    ws.host.language.locationsOf = (_q, p, pos) => [at(p, pos.line, pos.character)];
    assert.equal(json<Located>(await h.call('FindReferences', { path: 'src/main.ts', line: 4, symbol: 'greet' })).at, 'src/main.ts:4:18');
    assert.equal(json<Located>(await h.call('FindReferences', { path: 'src/sample.ts', symbol: 'greet' })).at, 'src/sample.ts:5:17');
    assert.equal(json<Located>(await h.call('FindReferences', { path: 'src/main.ts', line: 3 })).at, 'src/main.ts:3:1');
    const missing = await h.call('FindReferences', { path: 'src/sample.ts', symbol: 'greeter' });
    assert.equal(missing.errorCode, ErrorCode.NotFound);
    const none = await h.call('FindReferences', { path: 'src/sample.ts', symbol: 'Greet' });
    assert.equal(none.success, true, 'a name that differs only in case is taken when nothing matches exactly');
    assert.equal((await h.call('FindReferences', { path: 'src/main.ts', line: 1, symbol: 'nope' })).errorCode, ErrorCode.NotFound);
    assert.equal((await h.call('FindReferences', {})).errorCode, ErrorCode.InvalidArguments);
    assert.equal((await h.call('FindReferences', { path: 'src/main.ts' })).errorCode, ErrorCode.InvalidArguments);
    assert.equal((await h.call('FindReferences', { path: 'src/main.ts', line: 99 })).errorCode, ErrorCode.InvalidArguments);
  });

  it('a location outside the workspace comes without its text, and with it only after the user allows that in a prompt naming the file', async () => {
    ws.host.language.locationsOf = () => [at(lib, 0, 10, 5), at(ws.file('src/sample.ts'), 0, 17, 8)];
    const plain = json<Located>(await h.call('GoToDefinition', { path: 'src/main.ts', line: 1, column: 10 }));
    assert.deepEqual(plain.locations, [{ location: 'src/sample.ts:1:18', text: 'export interface Greeting {' }, { location: `${lib}:1:11`, outsideWorkspace: true }]);
    assert.match(plain.note ?? '', /1 location is outside the workspace/);
    assert.equal(ws.host.prompts.length, 0);

    ws.host.answerPrompts('allow');
    const shown = json<Located>(await h.call('GoToDefinition', { path: 'src/main.ts', line: 1, column: 10, includeOutsideText: true }));
    assert.deepEqual(shown.locations[1], { location: `${lib}:1:11`, text: 'interface Array<T> {', outsideWorkspace: true });
    assert.equal(ws.host.prompts.length, 1);
    assert.match(ws.host.prompts[0].message, /outside the workspace/);
    assert.ok(ws.host.prompts[0].detail?.includes(lib));

    ws.host.answerPrompts('deny');
    assert.equal((await h.call('GoToDefinition', { path: 'src/main.ts', line: 1, column: 10, includeOutsideText: true })).errorCode, ErrorCode.PermissionDenied);
  });

  it('a location in a protected file is named without its text; a protected file cannot be asked about', async () => {
    ws.host.language.locationsOf = () => [at(ws.file('.env'), 0, 15, 5)];
    const v = json<Located>(await h.call('FindReferences', { path: 'src/main.ts', line: 1, column: 10 }));
    assert.deepEqual(v.locations, [{ location: '.env:1:16', protected: true }]);
    assert.equal((await h.call('FindReferences', { path: '.env', line: 1 })).errorCode, ErrorCode.PathProtected);
  });

  it('caps the locations and says how many more there are', async () => {
    ws.host.language.locationsOf = () => Array.from({ length: 12 }, (_, i) => at(ws.file('src/main.ts'), 0, i));
    const v = json<Located>(await h.call('FindReferences', { path: 'src/main.ts', line: 1, maxResults: 5 }));
    assert.deepEqual([v.locations.length, v.total, v.more], [5, 12, 7]);
  });

  it('GetHover, GetDocumentSymbols, SearchWorkspaceSymbols and GetCallHierarchy', async () => {
    ws.host.language.hoverTexts = ['```typescript\nfunction greet(g: Greeting): string\n```', 'Says hello.'];
    const hover = json<{ at: string; hover: string }>(await h.call('GetHover', { path: 'src/sample.ts', line: 5, column: 17 }));
    assert.equal(hover.hover, '```typescript\nfunction greet(g: Greeting): string\n```\n\n---\n\nSays hello.');

    ws.host.language.outline.set(ws.file('src/sample.ts'), [sym('Greeting', ws.file('src/sample.ts'), 0, 17, 'Interface'), sym('name', ws.file('src/sample.ts'), 1, 2, 'Property', 1)]);
    const outline = json<{ symbols: unknown[]; total: number }>(await h.call('GetDocumentSymbols', { path: 'src/sample.ts' }));
    assert.deepEqual(outline.symbols, [
      { name: 'Greeting', kind: 'Interface', location: 'src/sample.ts:1:18', depth: 0 },
      { name: 'name', kind: 'Property', location: 'src/sample.ts:2:3', depth: 1 },
    ]);

    ws.host.language.workspaceSymbolList = [sym('greeting', ws.file('src/sample.ts'), 0, 0), sym('greet', lib, 0, 0), sym('greet', ws.file('src/sample.ts'), 4, 16)];
    const found = json<{ symbols: { name: string; location: string; outsideWorkspace?: true }[] }>(await h.call('SearchWorkspaceSymbols', { query: 'greet' }));
    assert.deepEqual(found.symbols.map((s) => [s.name, s.location, s.outsideWorkspace ?? false]), [
      ['greet', 'src/sample.ts:5:17', false], ['greet', `${lib}:1:1`, true], ['greeting', 'src/sample.ts:1:1', false],
    ]);

    ws.host.language.calls = {
      symbol: sym('greet', ws.file('src/sample.ts'), 4, 16),
      calls: [{ symbol: sym('main', ws.file('src/main.ts'), 0, 0, 'Module'), callSites: [at(ws.file('src/main.ts'), 2, 17).range, at(ws.file('src/main.ts'), 3, 17).range] }],
    };
    const calls = json<{ symbol: { location: string }; calls: { name: string; callSites: string[] }[] }>(await h.call('GetCallHierarchy', { path: 'src/sample.ts', line: 5, column: 17 }));
    assert.equal(calls.symbol.location, 'src/sample.ts:5:17');
    assert.deepEqual(calls.calls, [{ name: 'main', kind: 'Module', location: 'src/main.ts:1:1', callSites: ['src/main.ts:3:18', 'src/main.ts:4:18'] }]);
  });
});
