/**
 * A cloned repository's tasks (.vscode/tasks.json is workspace content anyone can write) and a
 * rogue backend asking to run them: a task's folder outside the workspace, variables whose value
 * the user cannot see in advance, invisible characters that hide what a command does, and an
 * environment value built to break out of its quotes. Each is refused before the prompt, or shown
 * in the prompt exactly as it runs; nothing runs unapproved.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { ErrorCode, type ClientToolInvokeResponse } from '../../src/protocol';
import { tasksToolGroup } from '../../src/tools/tasks/group';
import { assertRefused, CoreRig } from './support/core-rig';

function json<T = Record<string, unknown>>(r: ClientToolInvokeResponse): T {
  assert.equal(r.success, true, `${r.errorCode}: ${r.errorMessage}`);
  const item = r.content[0];
  assert.ok(item && item.type === 'json');
  return item.value as T;
}

describe('rogue workspace tasks and backend: the Tasks group', () => {
  let rig: CoreRig;

  beforeEach(async () => {
    rig = await CoreRig.start();
    const group = tasksToolGroup();
    rig.core.registry.register(group.group, group.tools);
    rig.host.catalog.commandHandler = async () => ({ exitCode: 0, output: '', truncated: false, timedOut: false, via: 'process' });
    await rig.connect();
  });
  afterEach(() => rig.dispose());

  const task = (name: string, execution: Record<string, unknown>) => ({ name, source: 'Workspace', folder: rig.folder, execution: { kind: 'shell' as const, ...execution } });

  it('T-TASK-01 a task whose folder is outside the workspace (a path, ../, a link out) is refused before any prompt', async () => {
    rig.host.answerPrompts('allow');
    rig.host.taskList.tasks = [
      task('abs', { commandLine: 'ls', cwd: path.join(rig.root, 'outside') }),
      task('up', { commandLine: 'ls', cwd: '${workspaceFolder}/../outside' }),
      task('link', { commandLine: 'ls', cwd: '${workspaceFolder}/out-dir' }),
    ];
    for (const name of ['abs', 'up', 'link']) assertRefused(await rig.backend.call('RunTask', { name }), ErrorCode.PathOutsideWorkspace);
    assert.equal(rig.host.prompts.length, 0);
    assert.deepEqual(rig.host.catalog.commands, []);
  });

  it('T-TASK-02 a task whose command depends on what the editor shows (${input:…}, ${command:…}, ${file}) is refused: the prompt could not show what runs', async () => {
    rig.host.answerPrompts('allow');
    rig.host.taskList.tasks = [task('input', { commandLine: 'deploy ${input:env}' }), task('cmd', { commandLine: 'x ${command:extension.pick}' }), task('file', { commandLine: 'cat ${file}' })];
    for (const name of ['input', 'cmd', 'file']) assertRefused(await rig.backend.call('RunTask', { name }), ErrorCode.ToolFailed);
    assert.equal(rig.host.prompts.length, 0);
    assert.deepEqual(rig.host.catalog.commands, []);
  });

  it('T-TASK-03 invisible or bidi characters in a task\'s command are refused before any prompt', async () => {
    rig.host.answerPrompts('allow');
    rig.host.taskList.tasks = [task('rlo', { commandLine: 'echo safe \u202e; rm -rf ~ #' }), task('cr', { commandLine: 'rm -rf ~\recho safe' })];
    for (const name of ['rlo', 'cr']) assertRefused(await rig.backend.call('RunTask', { name }), ErrorCode.InvalidArguments);
    assert.deepEqual(rig.host.catalog.commands, []);
  });

  it('T-TASK-04 an environment value built to break out of its quotes stays a value, and the prompt shows exactly what runs', async () => {
    rig.host.answerPrompts('allow');
    rig.host.taskList.tasks = [task('env', { commandLine: 'echo "$MODE"', env: { MODE: "x'; touch pwned; echo '" } })];
    const v = json<{ command: string }>(await rig.backend.call('RunTask', { name: 'env' }));
    assert.equal(v.command, "export MODE='x'\\''; touch pwned; echo '\\'''; echo \"$MODE\"");
    assert.ok(rig.host.prompts[0].detail?.includes(v.command), 'the prompt did not show the command that ran');
    assert.deepEqual(rig.host.catalog.commands.map((c) => c.command), [v.command]);
  });
});
