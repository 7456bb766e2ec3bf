/**
 * The Tasks group in a real VS Code: a task written to the workspace's .vscode/tasks.json is listed
 * with the command it runs, and RunTask asks before running it (the prompt, in the chat, is proven
 * here up to "the user is being asked" and a cancel that runs nothing; the allowed path is
 * unit-tested with the fake host, whose runner is RunInTerminal's).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ClientToolInvokeResponse } from '../../src/protocol';
import type { ScriptedBackend } from '../support/scripted-backend';
import { useScriptedConnection } from './support/scriptedConnection';

const TOKEN = 'tasks-test-token';

function json<T = Record<string, unknown>>(res: ClientToolInvokeResponse): T {
  assert.equal(res.success, true, `${res.errorCode}: ${res.errorMessage}`);
  const item = res.content[0];
  assert.ok(item && item.type === 'json', `expected JSON content, got ${JSON.stringify(res.content)}`);
  return item.value as T;
}

describe('the Tasks group in a real VS Code', function () {
  this.timeout(60_000);
  const connection = useScriptedConnection(TOKEN);
  let backend: ScriptedBackend;
  let workspace: string;
  let tasksFile: string;
  let before0: string | undefined;
  const response = (id: string) => backend.first('clientToolInvokeResponse', (m) => m.requestId === id, 30_000);

  before(() => {
    ({ backend, workspace } = connection());
    tasksFile = path.join(workspace, '.vscode', 'tasks.json');
    before0 = fs.existsSync(tasksFile) ? fs.readFileSync(tasksFile, 'utf8') : undefined;
    fs.mkdirSync(path.dirname(tasksFile), { recursive: true });
    fs.writeFileSync(tasksFile, JSON.stringify({
      version: '2.0.0',
      tasks: [{ label: 'make marker', type: 'shell', command: 'touch marker-from-task.txt', group: 'build', options: { env: { MODE: 'ci' } } }],
    }));
  });

  after(() => {
    if (before0 === undefined) fs.rmSync(tasksFile, { force: true });
    else fs.writeFileSync(tasksFile, before0);
  });

  it('ListTasks lists the tasks.json task with the exact command it would run', async () => {
    let task: unknown;
    for (const end = Date.now() + 30_000; task === undefined && Date.now() < end; await new Promise((r) => setTimeout(r, 300))) {
      const v = json<{ tasks: { name: string }[] }>(await response(backend.invoke('ListTasks', {})));
      task = v.tasks.find((t) => t.name === 'make marker');
    }
    assert.deepEqual(task, { name: 'make marker', source: 'Workspace', folder: 'workspace', group: 'build', command: "export MODE='ci'; touch marker-from-task.txt" });
  });

  it('RunTask asks first; a call cancelled while the user is asked runs nothing', async () => {
    const id = backend.invoke('RunTask', { name: 'make marker' });
    await backend.first('clientToolProgress', (m) => m.requestId === id && m.status === 'awaiting-permission');
    backend.send({ type: 'clientToolCancel', requestId: id, reason: 'test' });
    assert.equal((await response(id)).errorCode, 'CANCELLED');
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(fs.existsSync(path.join(workspace, 'marker-from-task.txt')), false);
  });
});
