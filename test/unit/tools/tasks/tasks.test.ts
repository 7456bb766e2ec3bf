import * as assert from 'node:assert/strict';
import { ErrorCode, isCodedError, type ClientToolInvokeResponse } from '../../../../src/protocol';
import { TASKS_GROUP, TASKS_TOOLS } from '../../../../src/tools/tasks/group';
import { taskCommand } from '../../../../src/tools/tasks/taskCommand';
import { DispatchHarness } from '../../../support/dispatch-harness';
import { createTempWorkspace, type TempWorkspace } from '../../../support/fake-host';

function json<T = Record<string, unknown>>(r: ClientToolInvokeResponse): T {
  assert.equal(r.success, true, `${r.errorCode}: ${r.errorMessage}`);
  const item = r.content[0];
  assert.ok(item && item.type === 'json');
  return item.value as T;
}

describe('Tasks group', () => {
  describe('taskCommand', () => {
    const ws = '/home/u/proj';
    it('a command line as written; a command with arguments quoted as VS Code quotes them for a POSIX shell', () => {
      assert.deepEqual(taskCommand('t', { kind: 'shell', commandLine: 'npm run build && echo ok' }, ws), { command: 'npm run build && echo ok' });
      assert.equal(taskCommand('t', { kind: 'shell', command: 'echo hi there', args: [] }, ws).command, 'echo hi there');
      assert.equal(taskCommand('t', { kind: 'shell', command: 'npm', args: ['run', 'my script', "it's"] }, ws).command, "npm run 'my script' 'it'\\''s'");
      assert.equal(
        taskCommand('t', { kind: 'shell', command: 'echo', args: [{ value: 'a b', quoting: 'weak' }, { value: 'a b', quoting: 'escape' }, { value: '$HOME', quoting: 'strong' }] }, ws).command,
        'echo "a b" a\\ b \'$HOME\'',
      );
      assert.equal(taskCommand('t', { kind: 'process', command: '/opt/my tools/run', args: ['-x'] }, ws).command, "'/opt/my tools/run' -x");
    });

    it('the workspace folder variables put in, the environment as exports in front, the working folder resolved', () => {
      const c = taskCommand('t', { kind: 'shell', commandLine: 'make -C ${workspaceFolder}/src', cwd: '${workspaceFolder}/build', env: { MODE: "it's ${workspaceFolderBasename}" } }, ws);
      assert.deepEqual(c, { command: "export MODE='it'\\''s proj'; make -C /home/u/proj/src", cwd: '/home/u/proj/build' });
    });

    it('refuses what cannot be stated before it runs: other variables, a custom execution, a shell of its own, odd variable names', () => {
      const refused = (f: () => unknown, pattern: RegExp) => assert.throws(f, (e: unknown) => isCodedError(e) && e.code === ErrorCode.ToolFailed && pattern.test(e.message));
      refused(() => taskCommand('t', { kind: 'shell', commandLine: 'deploy ${input:target}' }, ws), /\$\{input:target\}/);
      refused(() => taskCommand('t', { kind: 'shell', commandLine: 'cat ${file}' }, ws), /\$\{file\}/);
      refused(() => taskCommand('t', { kind: 'shell', commandLine: 'x', cwd: '${command:pick}' }, ws), /command:pick/);
      refused(() => taskCommand('t', { kind: 'custom' }, ws), /inside its extension/);
      refused(() => taskCommand('t', { kind: 'shell', commandLine: 'x', customShell: true }, ws), /shell of its own/);
      refused(() => taskCommand('t', { kind: 'shell', commandLine: 'x', env: { 'A;rm -rf /': '1' } }, ws), /unusual name/);
      refused(() => taskCommand('t', { kind: 'shell', commandLine: 'x' }, ws, 'win32'), /Windows/);
    });
  });

  describe('ListTasks and RunTask', () => {
    let ws: TempWorkspace;
    let h: DispatchHarness;

    beforeEach(async () => {
      ws = await createTempWorkspace(['ws'], { 'sub/x.txt': 'x' });
      ws.host.taskList.tasks = [
        { name: 'build', source: 'Workspace', folder: ws.folders[0].path, group: 'build', execution: { kind: 'shell', commandLine: 'make all' } },
        { name: 'test', source: 'npm', folder: ws.folders[0].path, group: 'test', detail: 'mocha', execution: { kind: 'shell', command: 'npm', args: ['run', 'test'], cwd: '${workspaceFolder}/sub' } },
        { name: 'watch', source: 'typescript', execution: { kind: 'custom' } },
        { name: 'test', source: 'Workspace', folder: ws.folders[0].path, execution: { kind: 'shell', commandLine: 'pytest' } },
      ];
      ws.host.catalog.commandHandler = async () => ({ exitCode: 3, output: 'built\n', truncated: false, timedOut: false, via: 'process' });
      h = new DispatchHarness({ host: ws.host, group: TASKS_GROUP, tools: TASKS_TOOLS });
    });
    afterEach(async () => {
      h.dispose();
      await ws.dispose();
    });

    it('ListTasks: each task with its source, folder, group and the command it would run, or why it cannot be run', async () => {
      const v = json<{ tasks: Record<string, unknown>[] }>(await h.call('ListTasks', {}));
      assert.deepEqual(v.tasks, [
        { name: 'build', source: 'Workspace', folder: 'ws', group: 'build', command: 'make all' },
        { name: 'test', source: 'npm', folder: 'ws', group: 'test', detail: 'mocha', command: 'npm run test' },
        { name: 'watch', source: 'typescript', cannotRun: 'task "watch" runs inside its extension, not as a command that can be shown first; run it from the Tasks menu' },
        { name: 'test', source: 'Workspace', folder: 'ws', command: 'pytest' },
      ]);
    });

    it('RunTask asks every time, naming the task and its exact command, then runs it and returns exit code and output', async () => {
      ws.host.answerPrompts('allow');
      const v = json(await h.call('RunTask', { name: 'test', source: 'npm' }));
      assert.deepEqual(v, { task: 'test', source: 'npm', command: 'npm run test', cwd: 'sub', exitCode: 3, timedOut: false, output: 'built' });
      assert.match(ws.host.prompts[0].message, /^Run the task "test" \(npm\) in sub\?$/);
      assert.match(ws.host.prompts[0].detail ?? '', /Command: npm run test\n/);
      assert.deepEqual(ws.host.catalog.commands.map((c) => [c.command, c.cwd]), [['npm run test', ws.file('sub')]]);
      json(await h.call('RunTask', { name: 'build' }));
      assert.equal(ws.host.prompts.length, 2, 'an earlier approval let a task run unasked');
    });

    it('denied: nothing runs; ambiguous or unknown names and tasks that cannot be stated are refused before any prompt', async () => {
      ws.host.answerPrompts('deny');
      assert.equal((await h.call('RunTask', { name: 'build' })).errorCode, ErrorCode.PermissionDenied);
      assert.equal((await h.call('RunTask', { name: 'test' })).errorCode, ErrorCode.InvalidArguments);
      assert.equal((await h.call('RunTask', { name: 'deploy' })).errorCode, ErrorCode.NotFound);
      assert.equal((await h.call('RunTask', { name: 'watch' })).errorCode, ErrorCode.ToolFailed);
      assert.equal(ws.host.prompts.length, 1);
      assert.deepEqual(ws.host.catalog.commands, []);
    });
  });
});
