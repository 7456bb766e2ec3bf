import * as assert from 'node:assert/strict';
import { CodedError, ErrorCode } from '../../../src/protocol';
import { ToolRegistry } from '../../../src/core/registry';
import { textResult } from '../../../src/core/tool';
import { BUILTIN_GROUPS, registerBuiltinGroups } from '../../../src/tools';
import { ApplyEdit } from '../../../src/tools/editor/applyEdit';
import { OpenFile } from '../../../src/tools/ide/openFile';
import { defineIdeTool, defineTerminalTool, stampGroup } from '../../../src/tools/support/toolGroup';
import { RunInTerminal } from '../../../src/tools/terminal/runInTerminal';
import { FindFiles } from '../../../src/tools/workspace/findFiles';

const EXPECTED: Record<string, string[]> = {
  IDE: ['OpenFile', 'GetSelection', 'ShowMessage', 'ReadFile', 'DeleteFile'],
  Workspace: ['GetWorkspaceFolders', 'FindFiles', 'GetOpenEditors', 'GetDiagnostics'],
  Editor: ['OpenDiff', 'ApplyEdit', 'SaveDocument', 'CloseTab'],
  Terminal: ['RunInTerminal'],
  Search: ['SearchText', 'ListDirectory'],
  Language: [
    'GoToDefinition', 'GoToTypeDefinition', 'FindImplementations', 'FindReferences', 'GetHover', 'GetDocumentSymbols', 'SearchWorkspaceSymbols', 'GetCallHierarchy',
    'RenameSymbol', 'GetCodeActions', 'ApplyCodeAction',
  ],
  SourceControl: ['GitStatus', 'GitDiff', 'GitLog'],
  Tasks: ['ListTasks', 'RunTask'],
};

const probe = defineIdeTool({
  name: 'Probe',
  description: 'a tool defined once and listed in two groups',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  requiresPermission: false,
  declineStrategy: 'reject',
  run: async () => textResult('ok'),
});

describe('built-in tool groups', () => {
  it('BUILTIN_GROUPS lists the built-in groups, and every built-in tool sits in exactly one of them', () => {
    const listed = Object.fromEntries(BUILTIN_GROUPS.map((g) => [g.group.name, g.tools.map((t) => t.name)]));
    assert.deepEqual(listed, EXPECTED);
    const names = BUILTIN_GROUPS.flatMap((g) => g.tools.map((t) => t.name));
    assert.equal(new Set(names).size, names.length, `a tool is listed twice: ${names.join(', ')}`);
  });

  it('a built-in tool names no group itself; the group it is listed in stamps its name on it', () => {
    for (const definition of [OpenFile, FindFiles, ApplyEdit, RunInTerminal]) assert.equal('group' in definition, false, definition.name);
    for (const { group, tools } of BUILTIN_GROUPS) {
      for (const tool of tools) assert.equal(tool.group, group.name, tool.name);
    }
    const [stamped] = stampGroup({ name: 'Elsewhere', description: 'another group' }, [probe]);
    assert.equal(stamped?.group, 'Elsewhere');
    assert.equal('group' in probe, false, 'stamping copies the tool; the definition stays group-less');
  });

  it('one tool listed in two groups is refused by the registry when the second group registers', () => {
    const registry = new ToolRegistry();
    try {
      registry.register({ name: 'First', description: 'first group' }, stampGroup({ name: 'First', description: 'first group' }, [probe]));
      assert.throws(
        () => registry.register({ name: 'Second', description: 'second group' }, stampGroup({ name: 'Second', description: 'second group' }, [probe])),
        (e: unknown) => e instanceof CodedError && e.code === ErrorCode.NameTaken && /tool Probe .*group "First" holds already/.test(e.message),
      );
      assert.deepEqual(registry.snapshot().map((g) => g.name), ['First']);
    } finally {
      registry.dispose();
    }
  });

  it('registerBuiltinGroups registers every group with all its tools, and its disposables remove them again', () => {
    const registry = new ToolRegistry();
    try {
      const registrations = registerBuiltinGroups(registry);
      const registered = Object.fromEntries(registry.snapshot().map((g) => [g.name, g.tools.map((t) => t.name)]));
      assert.deepEqual(registered, EXPECTED);
      for (const r of registrations) r.dispose();
      assert.deepEqual(registry.snapshot(), []);
    } finally {
      registry.dispose();
    }
  });

  it("a tool's context offers only its group's part of the host (checked by the compiler)", () => {
    const terminalOnly = defineTerminalTool({
      name: 'TerminalProbe',
      description: 'asks the host for an IDE group method',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
      requiresPermission: false,
      declineStrategy: 'reject',
      async run(_args, ctx) {
        // @ts-expect-error -- openFile belongs to the IDE group's host, not the Terminal group's
        await ctx.host.openFile('/x', { preview: true });
        await ctx.host.stat('/x');
        return textResult('ok');
      },
    });
    assert.equal(terminalOnly.name, 'TerminalProbe');
  });
});
