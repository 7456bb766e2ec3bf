import * as assert from 'node:assert/strict';
import { CodedError, ErrorCode, Schemas } from '../../../src/protocol';
import { ToolRegistry } from '../../../src/core/registry';
import { defineTool, textResult, type ClientTool } from '../../../src/core/tool';
import { IDE_GROUP, IDE_TOOLS } from '../../../src/tools/ide/group';

function tool(name: string, extra: Partial<ClientTool> = {}): ClientTool {
  return defineTool({
    name,
    group: 'G',
    description: `${name} tool`,
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
    requiresPermission: false,
    declineStrategy: 'reject',
    run: async () => textResult('ok'),
    ...extra,
  });
}

const group = { name: 'G', description: 'test group' };

function expectCode(fn: () => unknown, code: string, message?: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof CodedError, String(e));
    assert.equal(e.code, code);
    if (message) assert.match(e.message, message);
    return true;
  });
}

describe('registry', () => {
  let registry: ToolRegistry;
  beforeEach(() => {
    registry = new ToolRegistry();
  });
  afterEach(() => registry.dispose());

  it('registers a group and produces protocol-valid definitions for hello', () => {
    registry.register(group, [tool('A'), tool('B', { requiresPermission: true, declineStrategy: 'skip' })]);
    const defs = registry.definitions();
    assert.equal(defs.length, 1);
    assert.deepEqual(defs[0].tools.map((t) => [t.name, t.requiresPermission, t.declineStrategy]), [['A', false, 'reject'], ['B', true, 'skip']]);
    assert.ok(Schemas.ToolGroupDefinition.safeParse(defs[0]).success);
  });

  it('checks and strictly compiles a schema at registration unless told it was checked', () => {
    const notASchema = { type: 'object', properties: { a: 3 } };
    expectCode(() => registry.register(group, [tool('Meta', { parameters: notASchema })]), ErrorCode.InvalidSchema, /Meta: invalid parameter schema: .*must be object,boolean/);
    const typo = { type: 'object', propertees: {} };
    expectCode(() => registry.register(group, [tool('Typo', { parameters: typo })]), ErrorCode.InvalidSchema, /Typo/);
    const badType = { type: 'object', properties: { a: { type: 'strin' } } };
    expectCode(() => registry.register(group, [tool('BadType', { parameters: badType })]), ErrorCode.InvalidSchema, /BadType/);
    assert.equal(registry.definitions().length, 0, 'nothing half-registered');
  });

  it('checks own properties only: optional properties named toString or constructor may be left out', () => {
    const parameters = { type: 'object', properties: { toString: { type: 'string' }, constructor: { type: 'string' } }, additionalProperties: false };
    registry.register(group, [tool('Proto', { parameters })]);
    assert.equal(registry.validateArguments('Proto', {}), undefined);
    assert.equal(registry.validateArguments('Proto', { toString: 'x', constructor: 'y' }), undefined);
    assert.equal(registry.validateArguments('Proto', { toString: 1 }), 'toString: must be string');
  });

  it('compiles a checked schema at the first call, not at registration (activation time), with the same strictness', () => {
    // A checked schema is the caller's promise (the built-in ones are tested); breaking it shows at the first call.
    const typo = { type: 'object', propertees: {} };
    registry.register({ name: 'H', description: 'checked' }, [tool('Typo', { group: 'H', parameters: typo })], { schemasChecked: true });
    expectCode(() => registry.validateArguments('Typo', {}), ErrorCode.InvalidSchema, /Typo/);
    registry.register(group, [tool('Fine')], { schemasChecked: true });
    assert.equal(registry.validateArguments('Fine', { path: 3 }), 'path: must be string');
    assert.equal(registry.validateArguments('Fine', { path: 'a.txt' }), undefined);
    assert.equal(registry.validateArguments('Fine', {}), 'path: is required');
  });

  it('the IDE group registers cleanly and its definitions pass the protocol schema', () => {
    registry.register(IDE_GROUP, IDE_TOOLS);
    const [ide] = registry.definitions();
    assert.equal(ide.name, 'IDE');
    assert.deepEqual(ide.tools.map((t) => t.name).sort(), ['DeleteFile', 'GetSelection', 'OpenFile', 'ReadFile', 'ShowMessage']);
    assert.equal(ide.tools.find((t) => t.name === 'DeleteFile')?.requiresPermission, true);
    assert.ok(ide.functionResult && ide.systemPrompt);
    assert.ok(Schemas.ToolGroupDefinition.safeParse(ide).success);
  });

  it('refuses an invalid parameter schema with INVALID_SCHEMA naming the tool', () => {
    expectCode(() => registry.register(group, [tool('Broken', { parameters: { type: 'object', properties: { a: { type: 'strin' } } } })]), ErrorCode.InvalidSchema, /Broken/);
    expectCode(() => registry.register(group, [tool('Typo', { parameters: { type: 'object', propertees: {} } })]), ErrorCode.InvalidSchema, /Typo/);
    expectCode(() => registry.register(group, [tool('NotObject', { parameters: { type: 'string' } })]), ErrorCode.InvalidSchema, /NotObject/);
    assert.equal(registry.definitions().length, 0, 'a failed registration leaves nothing behind');
  });

  it('refuses names outside the protocol pattern, a wrong group, duplicates (NAME_TAKEN) and skills naming foreign tools', () => {
    expectCode(() => registry.register(group, [tool('Bad Name')]), ErrorCode.InvalidSchema, /Bad Name/);
    expectCode(() => registry.register(group, [tool('DeleteFіle')]), ErrorCode.InvalidSchema); // Cyrillic і
    expectCode(() => registry.register(group, [tool('A', { group: 'Other' })]), ErrorCode.InvalidSchema, /A/);
    expectCode(() => registry.register(group, [tool('A'), tool('A')]), ErrorCode.NameTaken, /A/);
    expectCode(() => registry.register({ name: 'A', description: 'a' }, [tool('A', { group: 'A' })]), ErrorCode.NameTaken, /container of group "A"/);
    expectCode(() => registry.register({ ...group, skills: [{ name: 'A', description: 's', tools: ['A'] }] }, [tool('A')]), ErrorCode.NameTaken, /skill A/);
    expectCode(() => registry.register({ ...group, skills: [{ name: 'S', description: 's', tools: ['Nope'] }] }, [tool('A')]), ErrorCode.InvalidSchema, /Nope/);
    registry.register(group, [tool('A')]);
    expectCode(() => registry.register({ name: 'H', description: 'h' }, [tool('A', { group: 'H' })]), ErrorCode.NameTaken, /A/);
    expectCode(() => registry.register({ name: 'A', description: 'a' }, []), ErrorCode.NameTaken, /holds already/);
  });

  it('looks tools up by exact name only: no case folding, no look-alikes, no prototype keys', () => {
    registry.register(group, [tool('DeleteFile')]);
    assert.equal(registry.lookup('DeleteFile').ok, true);
    for (const name of ['deletefile', 'DELETEFILE', 'DeleteFіle', 'DeleteFile ', 'Delete\u200bFile', 'ＤeleteFile', '__proto__', 'constructor', 'toString']) {
      const r = registry.lookup(name);
      assert.equal(r.ok, false, name);
      if (!r.ok) assert.equal(r.code, ErrorCode.UnknownTool, name);
    }
  });

  it('reports hidden and disabled tools with their codes, and leaves disabled tools out of definitions', () => {
    registry.register(group, [tool('Hidden', { hidden: true, availableWhenUntrusted: true }), tool('Off'), tool('Untrusted'), tool('Safe', { availableWhenUntrusted: true })]);
    registry.setDisabled('Off', { code: ErrorCode.ToolDisabled, message: 'switched off by the user' });
    registry.setWorkspaceTrusted(false);
    const code = (name: string) => {
      const r = registry.lookup(name);
      return r.ok ? 'ok' : r.code;
    };
    assert.equal(code('Hidden'), ErrorCode.ToolHidden);
    assert.equal(code('Off'), ErrorCode.ToolDisabled);
    assert.equal(code('Untrusted'), ErrorCode.WorkspaceUntrusted);
    assert.equal(code('Safe'), 'ok');
    const sent = registry.definitions()[0].tools;
    assert.deepEqual(sent.map((t) => t.name), ['Hidden', 'Safe']);
    assert.equal(sent[0].hidden, true);
    assert.deepEqual(registry.allDefinitions()[0].tools.map((t) => t.name), ['Hidden', 'Off', 'Untrusted', 'Safe'], 'the tree lists switched-off tools too');
    const snap = registry.snapshot()[0].tools;
    assert.equal(snap.length, 4, 'the UI snapshot keeps every tool');
    assert.equal(snap.find((t) => t.name === 'Untrusted')?.disabled?.code, ErrorCode.WorkspaceUntrusted);

    registry.setWorkspaceTrusted(true);
    registry.setHidden(['Hidden'], false);
    registry.setDisabled('Off', undefined);
    for (const n of ['Hidden', 'Off', 'Untrusted', 'Safe']) assert.equal(code(n), 'ok', n);
  });

  it('switching a tool off with the reason it already has fires no change (policies are applied again on every change)', () => {
    registry.register(group, [tool('Off')]);
    let changes = 0;
    registry.onDidChange(() => changes++);
    const reason = { code: ErrorCode.ToolDisabled, message: 'switched off by the user' } as const;
    registry.setDisabled('Off', reason);
    registry.setDisabled('Off', { ...reason });
    assert.equal(changes, 1);
    registry.setDisabled('Off', undefined);
    registry.setDisabled('Off', undefined);
    assert.equal(changes, 2);
  });

  it('runtime visibility (setHidden) does not change the definitions sent to the backend; resetVisibility restores it', () => {
    registry.register(group, [tool('Shown'), tool('Secret', { hidden: true })]);
    const before = JSON.stringify(registry.definitions());
    registry.setHidden(['Secret'], false);
    registry.setHidden(['Shown'], true);
    assert.equal(JSON.stringify(registry.definitions()), before);
    assert.equal(registry.lookup('Secret').ok, true);
    assert.equal(registry.lookup('Shown').ok, false);
    registry.resetVisibility();
    assert.equal(registry.lookup('Secret').ok, false);
    assert.equal(registry.lookup('Shown').ok, true);
  });

  it('fires change events and unregisters on dispose', () => {
    let changes = 0;
    registry.onDidChange(() => changes++);
    const d = registry.register(group, [tool('A')]);
    registry.setHidden(['A'], true);
    registry.setHidden(['A'], true); // no change, no event
    registry.setWorkspaceTrusted(false);
    d.dispose();
    d.dispose();
    assert.equal(changes, 4);
    assert.equal(registry.lookup('A').ok, false);
    assert.deepEqual(registry.definitions(), []);
    registry.setWorkspaceTrusted(true);
    registry.register(group, [tool('A')]);
    assert.equal(registry.lookup('A').ok, true, 'the name can be registered again');
  });

  it('a schema with an $id can be registered again after its group is disposed or failed to register', () => {
    const withId = () => tool('A', { parameters: { $id: 'urn:test:a', type: 'object', properties: {} } });
    expectCode(() => registry.register(group, [withId(), tool('Bad', { parameters: { type: 'nope' } })]), ErrorCode.InvalidSchema, /Bad/);
    const d = registry.register(group, [withId()]);
    d.dispose();
    registry.register(group, [withId()]);
    assert.equal(registry.lookup('A').ok, true);
  });

  it('validates arguments without coercion and names the field', () => {
    registry.register(group, [
      tool('A', {
        parameters: {
          type: 'object',
          properties: { path: { type: 'string' }, count: { type: 'integer' }, range: { type: 'object', properties: { start: { type: 'integer' } } } },
          required: ['path'],
          additionalProperties: false,
        },
      }),
    ]);
    assert.equal(registry.validateArguments('A', { path: 'a' }), undefined);
    assert.equal(registry.validateArguments('A', { path: 1 }), 'path: must be string');
    assert.equal(registry.validateArguments('A', {}), 'path: is required');
    assert.equal(registry.validateArguments('A', { path: 'a', count: '3' }), 'count: must be integer');
    assert.equal(registry.validateArguments('A', { path: 'a', range: { start: 'x' } }), 'range.start: must be integer');
    assert.equal(registry.validateArguments('A', { path: 'a', approved: true }), 'approved: is not an accepted argument');
  });
});
