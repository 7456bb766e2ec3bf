import * as assert from 'node:assert/strict';
import { ErrorCode, TOOL_NAME_PATTERN, toFunctionName, type ContentItem } from '../../../../src/protocol';
import { bridgeTools, isEnabled, strictSchema, VSCODE_TOOLS_GROUP, type LmToolInfo } from '../../../../src/tools/vscodeTools/lmBridge';
import { DispatchHarness } from '../../../support/dispatch-harness';
import { createTempWorkspace, type TempWorkspace } from '../../../support/fake-host';

describe('VS Code tools bridge', () => {
  it('enables listed names, or all but *_internal tools with "*"', () => {
    assert.equal(isEnabled('a', ['a']), true);
    assert.equal(isEnabled('b', ['a']), false);
    assert.equal(isEnabled('b', ['*']), true);
    assert.equal(isEnabled('vscode_editFile_internal', ['*']), false);
    assert.equal(isEnabled('vscode_editFile_internal', ['*', 'vscode_editFile_internal']), true);
    assert.equal(isEnabled('a', []), false);
  });

  it('names a tool by its VS Code name, or that name made a function name with a digest of it, never by what else is registered', () => {
    assert.equal(toFunctionName('copilot_searchCodebase'), 'copilot_searchCodebase');
    const dotted = toFunctionName('my.ext/find files');
    assert.match(dotted, /^my_ext_find_files_[0-9a-f]{12}$/);
    assert.notEqual(dotted, toFunctionName('my_ext/find files'), 'two names that differ only where a character was replaced stay apart');
    for (const n of ['x'.repeat(80), '…', '']) assert.match(toFunctionName(n), TOOL_NAME_PATTERN);
  });

  it('turns extension schemas into strict 2020-12 schemas', () => {
    assert.deepEqual(strictSchema(undefined), { type: 'object', properties: {} });
    assert.deepEqual(
      strictSchema({
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        markdownDescription: 'editor only',
        properties: { n: { type: 'number', minimum: 0, exclusiveMinimum: true, enumDescriptions: ['x'] }, ref: { $ref: '#/definitions/t' } },
        definitions: { t: { type: 'string', items: [{ type: 'string' }] } },
        required: ['n'],
      }),
      {
        type: 'object',
        properties: { n: { type: 'number', exclusiveMinimum: 0 }, ref: { $ref: '#/$defs/t' } },
        $defs: { t: { type: 'string', prefixItems: [{ type: 'string' }] } },
        required: ['n'],
      },
    );
  });

  describe('bridged tools through the dispatcher', () => {
    let ws: TempWorkspace;
    let h: DispatchHarness | undefined;
    const calls: { name: string; input: Record<string, unknown> }[] = [];
    const invoke = async (name: string, input: Record<string, unknown>): Promise<ContentItem[]> => {
      calls.push({ name, input });
      return [{ type: 'text', text: `ran ${name}` }];
    };
    const infos: LmToolInfo[] = [
      { name: 'ext.search', description: 'Search things', inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } },
      { name: 'ReadFile', description: 'Clashes with ours', inputSchema: { type: 'object', properties: {} } },
      { name: 'weird', description: '', inputSchema: { type: 'object', properties: { a: { type: 'nonsense' } } } },
      { name: 'vscode_editFile_internal', description: 'internal', inputSchema: undefined },
    ];
    beforeEach(async () => {
      ws = await createTempWorkspace();
      calls.length = 0;
    });
    afterEach(async () => {
      h?.dispose();
      await ws.dispose();
    });

    it('registers the enabled tools under their own names, leaves out one whose name is held (NAME_TAKEN), and calls each by its VS Code name', async () => {
      const bridged = bridgeTools(infos, ['*'], invoke, { isTaken: (n) => n === 'ReadFile', requirePermission: false });
      const extSearch = toFunctionName('ext.search');
      assert.deepEqual([...bridged.names], [[extSearch, 'ext.search'], ['weird', 'weird']]);
      assert.deepEqual(bridged.skipped, ['ReadFile: NAME_TAKEN: the function name ReadFile is held by another tool']);
      assert.equal(bridged.group.name, VSCODE_TOOLS_GROUP);
      assert.deepEqual(bridged.tools.find((t) => t.name === 'weird')?.parameters, { type: 'object' }, 'an uncompilable schema falls back');
      assert.equal(bridged.tools.find((t) => t.name === 'weird')?.description, 'VS Code tool weird.');
      h = new DispatchHarness({ host: ws.host, group: bridged.group, tools: bridged.tools });
      const r = await h.call(extSearch, { q: 'x' });
      assert.deepEqual(r.content, [{ type: 'text', text: 'ran ext.search' }]);
      assert.deepEqual(calls, [{ name: 'ext.search', input: { q: 'x' } }]);
      assert.equal((await h.call(extSearch, {})).errorCode, ErrorCode.InvalidArguments, 'arguments are validated against their schema');
      assert.equal(ws.host.prompts.length, 0, 'no prompt of ours by default');
    });

    it('asks through the permission gate when the setting says so, and is off in restricted mode', async () => {
      const bridged = bridgeTools(infos, ['ext.search'], invoke, { isTaken: () => false, requirePermission: true });
      const extSearch = toFunctionName('ext.search');
      assert.equal(bridged.tools.length, 1);
      h = new DispatchHarness({ host: ws.host, group: bridged.group, tools: bridged.tools });
      ws.host.answerPrompts('deny');
      assert.equal((await h.call(extSearch, { q: 'x' })).errorCode, ErrorCode.PermissionDenied);
      assert.equal(calls.length, 0);
      h.registry.setWorkspaceTrusted(false);
      assert.equal((await h.call(extSearch, { q: 'x' })).errorCode, ErrorCode.WorkspaceUntrusted);
    });
  });
});
