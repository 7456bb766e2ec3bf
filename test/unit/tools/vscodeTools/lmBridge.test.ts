import * as assert from 'node:assert/strict';
import { ErrorCode, TOOL_NAME_PATTERN, type ContentItem } from '../../../../src/protocol';
import { bridgeTools, isEnabled, sanitizeToolName, strictSchema, uniqueName, VSCODE_TOOLS_GROUP, type LmToolInfo } from '../../../../src/tools/vscodeTools/lmBridge';
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

  it('sanitises names to the protocol pattern and keeps them unique', () => {
    assert.equal(sanitizeToolName('my.ext/find files'), 'my_ext_find_files');
    assert.equal(sanitizeToolName('x'.repeat(80)).length, 64);
    assert.equal(sanitizeToolName('…'), '_');
    const taken = new Set(['ReadFile', 'ReadFile_2']);
    assert.equal(uniqueName('ReadFile', (n) => taken.has(n)), 'ReadFile_3');
    const long = 'y'.repeat(64);
    const second = uniqueName(long, (n) => n === long);
    assert.equal(second.length, 64);
    assert.match(second, TOOL_NAME_PATTERN);
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

    it('registers the enabled tools under unique names and calls each by its VS Code name', async () => {
      const bridged = bridgeTools(infos, ['*'], invoke, { isTaken: (n) => n === 'ReadFile', requirePermission: false });
      assert.deepEqual([...bridged.names], [['ext_search', 'ext.search'], ['ReadFile_2', 'ReadFile'], ['weird', 'weird']]);
      assert.equal(bridged.group.name, VSCODE_TOOLS_GROUP);
      assert.deepEqual(bridged.tools.find((t) => t.name === 'weird')?.parameters, { type: 'object' }, 'an uncompilable schema falls back');
      assert.equal(bridged.tools.find((t) => t.name === 'weird')?.description, 'VS Code tool weird.');
      h = new DispatchHarness({ host: ws.host, group: bridged.group, tools: bridged.tools });
      const r = await h.call('ext_search', { q: 'x' });
      assert.deepEqual(r.content, [{ type: 'text', text: 'ran ext.search' }]);
      assert.deepEqual(calls, [{ name: 'ext.search', input: { q: 'x' } }]);
      assert.equal((await h.call('ext_search', {})).errorCode, ErrorCode.InvalidArguments, 'arguments are validated against their schema');
      assert.equal(ws.host.prompts.length, 0, 'no prompt of ours by default');
    });

    it('asks through the permission gate when the setting says so, and is off in restricted mode', async () => {
      const bridged = bridgeTools(infos, ['ext.search'], invoke, { isTaken: () => false, requirePermission: true });
      assert.equal(bridged.tools.length, 1);
      h = new DispatchHarness({ host: ws.host, group: bridged.group, tools: bridged.tools });
      ws.host.answerPrompts('deny');
      assert.equal((await h.call('ext_search', { q: 'x' })).errorCode, ErrorCode.PermissionDenied);
      assert.equal(calls.length, 0);
      h.registry.setWorkspaceTrusted(false);
      assert.equal((await h.call('ext_search', { q: 'x' })).errorCode, ErrorCode.WorkspaceUntrusted);
    });
  });
});
