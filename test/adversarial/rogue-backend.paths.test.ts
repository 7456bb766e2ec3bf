/**
 * A rogue backend asks the real extension core for files outside the workspace, every way we know.
 * Each refusal must come with the exact code, before the host touches any file (the spy host
 * records every stat, read, open and delete), without a prompt, and the connection goes on.
 *
 * The lexical and symlink rules themselves are unit-tested in test/unit/core/paths.test.ts; here
 * they are attacked over a real socket through the IDE tools.
 */
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ErrorCode } from '../../src/protocol';
import { assertNoLeak, assertRefused, CoreRig, SECRET } from './support/core-rig';

describe('rogue backend: path escapes', () => {
  let rig: CoreRig;
  let sockets: number;

  beforeEach(async () => {
    rig = await CoreRig.start();
    rig.host.answerPrompts('allow'); // if any refusal slipped through to a prompt, it would be allowed
    await rig.connect();
    sockets = rig.backend.sockets.length;
  });
  afterEach(() => rig.dispose());

  /** Calls `tool` with `args`, expects `code`, no host I/O, no prompt; then the secrets are intact and the connection works. */
  async function refusedBeforeIo(tool: string, args: Record<string, unknown>, code: ErrorCode): Promise<void> {
    const r = await rig.backend.call(tool, args);
    assertRefused(r, code);
    assert.deepEqual(rig.host.io, [], `the host did I/O: ${JSON.stringify(rig.host.io)}`);
    assert.equal(rig.host.prompts.length, 0, 'a prompt was shown');
    await rig.assertSecretsIntact();
    await rig.assertHealthy(sockets);
  }

  const outside = () => path.join(rig.root, 'outside', 'secret.txt');

  it('T-PATH-01 a ../ escape is refused before any I/O', async () => {
    await refusedBeforeIo('ReadFile', { path: '../outside/secret.txt' }, ErrorCode.PathOutsideWorkspace);
  });

  it('T-PATH-02 a ../ buried in the middle of a path is refused before any I/O (DeleteFile)', async () => {
    await refusedBeforeIo('DeleteFile', { path: 'src/../../outside/secret.txt' }, ErrorCode.PathOutsideWorkspace);
  });

  it('T-PATH-03 an absolute path elsewhere on the machine is refused before any I/O', async () => {
    await refusedBeforeIo('ReadFile', { path: outside() }, ErrorCode.PathOutsideWorkspace);
    await refusedBeforeIo('OpenFile', { path: '/etc/passwd' }, ErrorCode.PathOutsideWorkspace);
  });

  it('T-PATH-04 the prefix trick (a sibling folder named like the workspace plus a suffix) is refused before any I/O', async () => {
    await refusedBeforeIo('ReadFile', { path: path.join(rig.root, 'ws-evil', 'secret.txt') }, ErrorCode.PathOutsideWorkspace);
    await refusedBeforeIo('DeleteFile', { path: `${rig.folder}-evil/secret.txt` }, ErrorCode.PathOutsideWorkspace);
  });

  it('T-PATH-05 a symlinked file that leads out of the workspace is refused before any I/O', async () => {
    await refusedBeforeIo('ReadFile', { path: 'secret-link' }, ErrorCode.PathOutsideWorkspace);
    await refusedBeforeIo('DeleteFile', { path: 'secret-link' }, ErrorCode.PathOutsideWorkspace);
  });

  it('T-PATH-06 a path through a symlinked folder that leads out is refused before any I/O, also for a file that does not exist yet', async () => {
    await refusedBeforeIo('DeleteFile', { path: 'out-dir/secret.txt' }, ErrorCode.PathOutsideWorkspace);
    await refusedBeforeIo('OpenFile', { path: 'out-dir/not-there-yet.txt' }, ErrorCode.PathOutsideWorkspace);
  });

  it('T-PATH-07 a file:// URI to a file elsewhere, or naming another host, is refused before any I/O', async () => {
    await refusedBeforeIo('ReadFile', { path: pathToFileURL(outside()).href }, ErrorCode.PathOutsideWorkspace);
    await refusedBeforeIo('ReadFile', { path: 'file://evil.example/share/secret.txt' }, ErrorCode.PathInvalid);
  });

  it('T-PATH-08 percent-encoded traversal inside a file:// URI is refused before any I/O', async () => {
    const folderUrl = pathToFileURL(rig.folder).href;
    await refusedBeforeIo('ReadFile', { path: `${folderUrl}/%2e%2e/outside/secret.txt` }, ErrorCode.PathOutsideWorkspace);
    await refusedBeforeIo('ReadFile', { path: `${folderUrl}/..%2Foutside%2Fsecret.txt` }, ErrorCode.PathInvalid);
  });

  it('T-PATH-09 non-file URIs (vscode-remote:, vscode-userdata:, untitled:, https:) are refused before any I/O', async () => {
    await refusedBeforeIo('ReadFile', { path: 'vscode-remote://ssh-remote+evil.example/etc/passwd' }, ErrorCode.PathInvalid);
    await refusedBeforeIo('ReadFile', { path: 'vscode-userdata:/User/settings.json' }, ErrorCode.PathInvalid);
    await refusedBeforeIo('OpenFile', { path: 'untitled:Untitled-1' }, ErrorCode.PathInvalid);
    await refusedBeforeIo('DeleteFile', { path: 'https://evil.example/old.txt' }, ErrorCode.PathInvalid);
  });

  it('T-PATH-10 UNC paths (which leak NTLM hashes on Windows) are refused before any I/O, in every spelling', async () => {
    await refusedBeforeIo('ReadFile', { path: '\\\\evil.example\\share\\secret.txt' }, ErrorCode.PathInvalid);
    await refusedBeforeIo('ReadFile', { path: '//evil.example/share/secret.txt' }, ErrorCode.PathInvalid);
    await refusedBeforeIo('OpenFile', { path: '\\/evil.example/share/secret.txt' }, ErrorCode.PathInvalid);
    await refusedBeforeIo('ReadFile', { path: 'file:////evil.example/share/secret.txt' }, ErrorCode.PathInvalid);
  });

  it('T-PATH-11 a NUL byte, raw or percent-encoded, is refused before any I/O and the real file survives', async () => {
    await refusedBeforeIo('DeleteFile', { path: 'old.txt\u0000../../outside/secret.txt' }, ErrorCode.PathInvalid);
    await refusedBeforeIo('ReadFile', { path: `${pathToFileURL(rig.file('old.txt')).href}%00.png` }, ErrorCode.PathInvalid);
    assert.equal(existsSync(rig.file('old.txt')), true);
  });

  it('T-PATH-12 very long paths are refused before any I/O: over the schema limit as INVALID_ARGUMENTS, a long ../ chain as outside', async () => {
    await refusedBeforeIo('ReadFile', { path: 'a/'.repeat(2049) }, ErrorCode.InvalidArguments);
    await refusedBeforeIo('DeleteFile', { path: 'x'.repeat(1024 * 1024) }, ErrorCode.InvalidArguments);
    const chain = `${'../'.repeat(1300)}outside/secret.txt`; // within 4096 characters
    assert.ok(chain.length <= 4096);
    await refusedBeforeIo('ReadFile', { path: chain }, ErrorCode.PathOutsideWorkspace);
  });

  it('T-PATH-13 a symlink with an innocent name that points at .env is read only after a prompt, and a deny leaks nothing', async () => {
    rig.host.answerPrompts('deny');
    const r = await rig.backend.call('ReadFile', { path: 'innocent.txt' });
    assertRefused(r, ErrorCode.PermissionDenied);
    assert.equal(rig.host.prompts.length, 1);
    assert.match(rig.host.prompts[0].detail ?? '', /secrets/);
    assert.equal(rig.host.io.some((io) => io.op === 'readFile'), false, 'the file was read before the user agreed');
    await rig.assertHealthy(sockets);
  });

  it('T-PATH-14 every refusal is answered once and the secret never appears in an answer or a log', async () => {
    const attempts = ['../outside/secret.txt', outside(), 'secret-link', 'out-dir/secret.txt', pathToFileURL(outside()).href];
    const ids = attempts.map((p) => rig.backend.invoke('ReadFile', { path: p }));
    const answers = await Promise.all(ids.map((id) => rig.backend.response(id)));
    answers.forEach(assertNoLeak);
    assert.deepEqual(answers.map((a) => a.errorCode), attempts.map(() => ErrorCode.PathOutsideWorkspace));
    for (const id of ids) assert.equal(rig.backend.responsesFor(id).length, 1);
    assert.ok(!rig.logger.text().includes(SECRET));
    await rig.assertHealthy(sockets);
  });
});
