import { strict as assert } from 'node:assert';
import type { ToolGroupDefinition } from '../../../../src/protocol';
import { ErrorCode, toFunctionName } from '../../../../src/protocol';
import { admitGroups, applyAugmentation } from '../../../../src/backend/toolset/registration';
import { ClientToolState, DEFAULT_CLIENT_TOOLS_INSTRUCTIONS } from '../../../../src/backend/toolset/toolState';

const obj = { type: 'object', properties: {} };

function group(name: string, tools: string[], extra: Partial<ToolGroupDefinition> = {}): ToolGroupDefinition {
  return { name, description: `${name} tools.`, tools: tools.map((t) => ({ name: t, description: `${t} does things`, parameters: obj })), ...extra };
}

function state(groups: ToolGroupDefinition[], opts: { collapsing?: boolean; preExpanded?: string[] } = {}): ClientToolState {
  return new ClientToolState({ collapsing: opts.collapsing ?? true, instructions: DEFAULT_CLIENT_TOOLS_INSTRUCTIONS }, groups, opts.preExpanded);
}

const names = (s: ClientToolState) => s.functions().map((f) => f.name);

describe('backend client tool state', () => {
  it('shows a collapsed group as one container function whose description gives the tool count', () => {
    const s = state([group('IDE', ['OpenFile', 'GetSelection', 'ShowMessage'])]);
    const fns = s.functions();
    assert.deepEqual(fns.map((f) => f.name), ['IDE']);
    assert.match(fns[0].description, /3 tools: OpenFile, GetSelection, ShowMessage/);
    assert.match(fns[0].description, /^IDE tools\./);
    assert.deepEqual(fns[0].parameters, { type: 'object', properties: {}, additionalProperties: false });
  });

  it('names containers by the function-name rule alone: names that differ stay apart, a taken one is refused (NAME_TAKEN), nothing is renamed', () => {
    const admitted = admitGroups([group('My IDE', ['A']), group('My/IDE', ['B']), group('My_IDE', ['D']), group('C', ['C']), group('Taken', ['E'])], new Set(['Taken']));
    assert.deepEqual(admitted.problems.map((p) => [p.code, p.group]), [[ErrorCode.NameTaken, 'C'], [ErrorCode.NameTaken, 'Taken']]);
    const s = state(admitted.groups);
    assert.deepEqual(names(s), [toFunctionName('My IDE'), toFunctionName('My/IDE'), 'My_IDE']);
    assert.equal(new Set(names(s)).size, 3);
    assert.match(toFunctionName('My IDE'), /^My_IDE_[0-9a-f]{12}$/);
    for (const n of names(s)) assert.match(n, /^[A-Za-z0-9_-]{1,64}$/);
    assert.equal(toFunctionName('x'.repeat(80)).length, 64);
  });

  it('expands a group when its container is called: result text, functionResult, then the tools are visible', () => {
    const s = state([group('IDE', ['OpenFile', 'GetSelection'], { functionResult: 'Tip: select first.', systemPrompt: 'IDE RULES' })]);
    assert.deepEqual(s.resolve('IDE'), { kind: 'container', group: 'IDE' });
    const r = s.resolve('OpenFile');
    assert.equal(r?.kind, 'unavailable');
    const e = s.expand('IDE');
    assert.equal(e?.text, 'IDE expanded. Available functions: OpenFile, GetSelection\n\nTip: select first.');
    assert.deepEqual(e?.tools, ['OpenFile', 'GetSelection']);
    assert.deepEqual(names(s), ['OpenFile', 'GetSelection']);
    assert.equal(s.resolve('OpenFile')?.kind, 'tool');
  });

  it('tells the model to expand the groups it needs together, first: each later expansion costs the service its prompt cache', () => {
    const prompt = state([group('IDE', ['OpenFile']), group('Search', ['SearchText'])]).systemPrompt();
    assert.match(prompt, /Expand every group you expect to need together, in your first step/);
    assert.match(prompt, /without its prompt cache/);
  });

  it('keeps the group systemPrompt in the system prompt while expanded, and drops it when collapsed', () => {
    const s = state([group('IDE', ['OpenFile'], { systemPrompt: 'IDE RULES: be careful' })]);
    assert.doesNotMatch(s.systemPrompt(), /IDE RULES/);
    assert.match(s.systemPrompt(), /client tools/);
    s.expand('IDE');
    assert.match(s.systemPrompt(), /IDE RULES: be careful/);
    assert.match(s.systemPrompt(), /IDE RULES: be careful/, 'still there on the next turn');
    s.collapse('IDE');
    assert.doesNotMatch(s.systemPrompt(), /IDE RULES/);
  });

  it('shows a group with startCollapsed: false, and pre-expanded groups, directly', () => {
    const s = state([group('Open', ['A'], { startCollapsed: false }), group('Pre', ['B']), group('Closed', ['C'])], { preExpanded: ['Pre'] });
    assert.deepEqual(names(s), ['A', 'B', 'Closed']);
  });

  it('with collapsing switched off, shows every tool directly and applies every systemPrompt', () => {
    const s = state([group('IDE', ['A', 'B'], { systemPrompt: 'IDE RULES' }), group('Git', ['C'])], { collapsing: false });
    assert.deepEqual(names(s), ['A', 'B', 'C']);
    assert.match(s.systemPrompt(), /IDE RULES/);
    assert.equal(s.snapshot().collapsing, false);
    assert.ok(s.snapshot().groups.every((g) => g.expanded));
  });

  it('offers each skill as a function; activating it reveals its tools and adds its prompts', () => {
    const s = state([
      group('Checkout', ['ValidateCart', 'Pay', 'Confirm', 'Refund'], {
        skills: [{ name: 'CompleteCheckout', description: 'Process a checkout', tools: ['ValidateCart', 'Pay', 'Confirm'], functionResult: 'Validate first.', systemPrompt: 'CHECKOUT WORKFLOW' }],
      }),
    ]);
    assert.deepEqual(names(s), ['Checkout', 'CompleteCheckout']);
    assert.match(s.functions()[1].description, /makes available: ValidateCart, Pay, Confirm/);
    const r = s.resolve('CompleteCheckout');
    assert.equal(r?.kind, 'skill');
    const e = s.activateSkill('Checkout', 'CompleteCheckout');
    assert.equal(e?.text, 'CompleteCheckout skill activated. Available functions: ValidateCart, Pay, Confirm\n\nValidate first.');
    assert.deepEqual(names(s), ['Checkout', 'ValidateCart', 'Pay', 'Confirm'], 'Refund stays behind the container');
    assert.match(s.systemPrompt(), /CHECKOUT WORKFLOW/);
    assert.deepEqual(s.snapshot().groups[0].skills, [{ name: 'CompleteCheckout', active: true }]);
    s.collapse('Checkout');
    assert.deepEqual(names(s), ['Checkout', 'CompleteCheckout']);
    assert.doesNotMatch(s.systemPrompt(), /CHECKOUT WORKFLOW/);
  });

  it('applies every kind of augmentation; context items join the system prompt', () => {
    const s = state([group('Guest', ['Login']), group('Old', ['X'])]);
    const notes = s.apply({
      injectGroups: [group('Admin', ['Ban', 'Audit'], { startCollapsed: false })],
      removeGroups: ['Old', 'Nope'],
      expandGroups: ['Guest'],
      hideTools: ['Login', 'Audit'],
      addContext: [{ name: 'user', text: 'Admin user logged in' }],
    });
    assert.deepEqual(notes, ['removeGroups: no group named "Nope"']);
    assert.deepEqual(names(s), ['Ban']);
    assert.match(s.systemPrompt(), /## Context: user\nAdmin user logged in/);
    s.apply({ showTools: ['Audit'], collapseGroups: ['Admin'], addContext: [{ name: 'user', text: 'Guest again' }] });
    assert.deepEqual(names(s), ['Admin']);
    assert.doesNotMatch(s.systemPrompt(), /Admin user logged in/, 'a context item with the same name replaces the old one');
    assert.match(s.systemPrompt(), /Guest again/);
    s.expand('Admin');
    assert.deepEqual(names(s), ['Ban', 'Audit']);
  });

  it('never lets a skill reveal a hidden tool', () => {
    const s = state([{ ...group('G', ['A', 'B'], { skills: [{ name: 'S', description: 'd', tools: ['A', 'B'] }] }), tools: [{ name: 'A', description: '', parameters: obj }, { name: 'B', description: '', parameters: obj, hidden: true }] }]);
    const e = s.activateSkill('G', 'S');
    assert.deepEqual(e?.tools, ['A']);
    assert.deepEqual(s.resolve('B'), { kind: 'unavailable', group: 'G', container: 'G', tool: { name: 'B', description: '', parameters: obj, hidden: true }, reason: 'hidden' });
  });

  it('snapshots what the model sees for toolGroupState', () => {
    const s = state([{ name: 'IDE', description: 'd', tools: [{ name: 'Del', description: '', parameters: obj, requiresPermission: true }] }]);
    assert.deepEqual(s.snapshot(), {
      collapsing: true,
      groups: [{ name: 'IDE', description: 'd', expanded: false, containerName: 'IDE', tools: [{ name: 'Del', visible: false, requiresPermission: true }], skills: [] }],
      context: [],
    });
  });

  it('gives each clone its own state, so threads do not share expansion', () => {
    const base = state([group('IDE', ['A'])]);
    const t1 = base.clone();
    const t2 = base.clone();
    t1.expand('IDE');
    t1.apply({ addContext: [{ name: 'n', text: 't' }] });
    assert.deepEqual(names(t1), ['A']);
    assert.deepEqual(names(t2), ['IDE']);
    assert.deepEqual(names(base), ['IDE']);
    assert.equal(base.systemPrompt().includes('## Context'), false);
  });

  it('keeps expansion for groups that stay when a resumed session re-registers its groups', () => {
    const s = state([group('IDE', ['A']), group('Gone', ['G'])]);
    s.expand('IDE');
    s.apply({ injectGroups: [group('Injected', ['I'])] });
    s.syncRegistered([group('IDE', ['A', 'A2']), group('New', ['N'])]);
    assert.deepEqual(s.groupNames(), ['IDE', 'Injected', 'New']);
    assert.deepEqual(names(s), ['A', 'A2', 'Injected', 'New']);
  });

  describe('registration', () => {
    it('refuses a tool with an invalid schema, naming it, and keeps the rest of its group', () => {
      const { groups, problems } = admitGroups(
        [{ name: 'IDE', description: '', tools: [{ name: 'Good', description: '', parameters: obj }, { name: 'Broken', description: '', parameters: { type: 'object', properties: { n: { type: 'nonsense' } } } }] }],
        new Set(),
      );
      assert.deepEqual(groups[0].tools.map((t) => t.name), ['Good']);
      assert.equal(problems.length, 1);
      assert.equal(problems[0].code, ErrorCode.InvalidSchema);
      assert.equal(problems[0].tool, 'Broken');
      assert.match(problems[0].message, /Tool "Broken" \(group "IDE"\)/);
    });

    it('refuses parameters that do not describe an object', () => {
      const { problems } = admitGroups([{ name: 'G', description: '', tools: [{ name: 'T', description: '', parameters: { type: 'string' } }] }], new Set());
      assert.equal(problems[0].code, ErrorCode.InvalidSchema);
      assert.match(problems[0].message, /"T".*must describe an object/);
    });

    it('refuses a tool whose name is taken by a server tool or another group', () => {
      const { groups, problems } = admitGroups([group('A', ['get_current_time', 'X']), group('B', ['X'])], new Set(['get_current_time']));
      assert.deepEqual(groups.map((g) => g.tools.map((t) => t.name)), [['X'], []]);
      assert.deepEqual(problems.map((p) => p.tool), ['get_current_time', 'X']);
    });

    it('admits injected groups through applyAugmentation and reports refused tools', () => {
      const s = state([group('IDE', ['A'])]);
      const { applied, problems } = applyAugmentation(s, { injectGroups: [{ name: 'New', description: '', tools: [{ name: 'Bad', description: '', parameters: { type: 'object', required: 'x' } }, { name: 'Ok', description: '', parameters: obj }] }] }, []);
      assert.equal(problems[0].code, ErrorCode.InvalidSchema);
      assert.equal(problems[0].tool, 'Bad');
      assert.deepEqual(applied.injectGroups?.[0].tools.map((t) => t.name), ['Ok']);
      assert.deepEqual(s.groupNames(), ['IDE', 'New']);
    });
  });
});
