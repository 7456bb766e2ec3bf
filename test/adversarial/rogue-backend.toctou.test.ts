/**
 * A rogue backend (with a helper that can change files, say a process it started earlier) asks for
 * something harmless inside the workspace, and while the user looks at the prompt or the diff it
 * swaps the file, or a folder on its path, for a symbolic link to a file outside. The approved
 * action must not land outside: the extension re-checks the target at the moment of I/O and
 * refuses with TARGET_CHANGED, telling the user. Also here: protected files are covered properly
 * (hard links, the secrets a default list used to miss, the user's own patterns) and nothing of
 * their content is read before consent.
 *
 * Real ClientCore, real sockets, real temporary folders and real symlinks; the fake host's prompts
 * and diffs stay open until the test answers them, so the swap happens while they are open.
 */
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { link, mkdir, readFile, rename, symlink, unlink, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { ErrorCode } from '../../src/protocol';
import { editorToolGroup } from '../../src/tools/editor/group';
import { assertNoLeak, assertRefused, CoreRig, SECRET, until } from './support/core-rig';

describe('rogue backend: swaps during consent (TOCTOU) and protected files', () => {
  let rig: CoreRig;
  let sockets: number;

  beforeEach(async () => {
    rig = await CoreRig.start({
      files: { 'victim.txt': 'delete me', 'sub/victim.txt': 'delete me too', 'src/b.ts': 'export const b = 1;\n', 'conf/.env': 'LOCAL=1\n' },
      // T-PROT-02 asks about 21 secrets in a row; the prompt-rate cap (tested in the grants suite) would refuse the 21st.
      core: { permissions: { barrage: { maxPromptsPerMinute: 1000 } } },
    });
    // What the swaps point at: files outside the workspace named like the ones inside.
    const outside = path.join(rig.root, 'outside');
    await writeFile(path.join(outside, 'victim.txt'), SECRET);
    await writeFile(path.join(outside, 'b.ts'), SECRET);
    await writeFile(path.join(outside, '.env'), `API_KEY=${SECRET}\n`);
    const editor = editorToolGroup();
    rig.core.registry.register(editor.group, editor.tools);
    await rig.connect();
    sockets = rig.backend.sockets.length;
  });
  afterEach(() => rig.dispose());

  const outside = (name: string) => path.join(rig.root, 'outside', name);

  /** Replaces `relative` (a file or a folder) with a symbolic link to `target`, as an attacker would. */
  async function swapForLink(relative: string, target: string): Promise<void> {
    await rename(rig.file(relative), rig.file(`${relative}.moved-away`));
    await symlink(target, rig.file(relative));
  }

  /** Invokes `tool`, waits for its prompt, runs `swap` while it is open, then allows. */
  async function swapDuringPrompt(tool: string, args: Record<string, unknown>, swap: () => Promise<void>) {
    rig.host.holdPrompts();
    const id = rig.backend.invoke(tool, args);
    const prompt = await rig.host.nextPrompt();
    await swap();
    prompt.answer('allow');
    return rig.answer(id);
  }

  /** The refusal the user is told about: one warning naming the file, with no link syntax in it. */
  function assertUserWarned(relative: string): void {
    const warning = rig.host.messages.find((m) => m.severity === 'warning' && m.text.includes(relative));
    assert.ok(warning, `no warning about ${relative}: ${JSON.stringify(rig.host.messages)}`);
    assert.match(warning.text, /changed after you approved/);
  }

  it('T-TOCTOU-01 DeleteFile: the file swapped for a link out while the prompt is open is refused (TARGET_CHANGED), nothing is deleted', async () => {
    const r = await swapDuringPrompt('DeleteFile', { path: 'victim.txt' }, () => swapForLink('victim.txt', outside('victim.txt')));
    assertRefused(r, ErrorCode.TargetChanged);
    assert.equal(rig.host.deleted.length, 0, 'the host deleted something');
    assert.equal(await readFile(outside('victim.txt'), 'utf8'), SECRET);
    assert.equal(existsSync(rig.file('victim.txt')), true, 'the link itself was deleted');
    assertUserWarned('victim.txt');
    await rig.assertSecretsIntact();
    await rig.assertHealthy(sockets);
  });

  it('T-TOCTOU-02 DeleteFile: a parent folder swapped for a link out while the prompt is open is refused, and the outside file stays', async () => {
    const r = await swapDuringPrompt('DeleteFile', { path: 'sub/victim.txt' }, () => swapForLink('sub', path.join(rig.root, 'outside')));
    assertRefused(r, ErrorCode.TargetChanged);
    assert.equal(rig.host.deleted.length, 0, 'the host deleted something');
    assert.equal(await readFile(outside('victim.txt'), 'utf8'), SECRET, 'the outside file was deleted through the swapped folder');
    assertUserWarned('sub/victim.txt');
    await rig.assertHealthy(sockets);
  });

  it('T-TOCTOU-03 ReadFile of a protected file: the file or its folder swapped for a link while the prompt is open reads nothing outside', async () => {
    const viaFile = await swapDuringPrompt('ReadFile', { path: 'conf/.env' }, () => swapForLink('conf/.env', outside('.env')));
    assertRefused(viaFile, ErrorCode.TargetChanged);
    await unlink(rig.file('conf/.env'));
    await rename(rig.file('conf/.env.moved-away'), rig.file('conf/.env'));

    const viaFolder = await swapDuringPrompt('ReadFile', { path: 'conf/.env' }, () => swapForLink('conf', path.join(rig.root, 'outside')));
    assertRefused(viaFolder, ErrorCode.TargetChanged);
    assert.ok(!rig.logger.text().includes(SECRET), 'the secret reached a log');
    assertUserWarned('conf/.env');
    await rig.assertHealthy(sockets);
  });

  it('T-TOCTOU-04 ApplyEdit with save: a parent folder swapped for a link while the prompt is open writes nothing outside', async () => {
    const edit = { startLine: 1, startColumn: 1, endLine: 1, endColumn: 1, newText: 'PWNED ' };
    const r = await swapDuringPrompt('ApplyEdit', { path: 'src/b.ts', edits: [edit], save: true }, () => swapForLink('src', path.join(rig.root, 'outside')));
    assertRefused(r, ErrorCode.TargetChanged);
    assert.equal(await readFile(outside('b.ts'), 'utf8'), SECRET, 'the outside file was edited and saved');
    assert.deepEqual(rig.host.catalog.saves, []);
    assert.deepEqual(rig.host.catalog.appliedEdits, []);
    assertUserWarned('src/b.ts');
    await rig.assertHealthy(sockets);
  });

  it('T-TOCTOU-05 ApplyEdit with save: the file swapped for a link after the edit was approved is not saved through it', async () => {
    // The swap lands between the edit and the save: the save must still find the file the user approved.
    rig.host.catalog.afterApplyEdits = () => swapForLink('src/b.ts', outside('b.ts'));
    rig.host.answerPrompts('allow');
    const edit = { startLine: 1, startColumn: 1, endLine: 1, endColumn: 1, newText: 'PWNED ' };
    const r = await rig.backend.call('ApplyEdit', { path: 'src/b.ts', edits: [edit], save: true });
    assertRefused(r, ErrorCode.TargetChanged);
    assert.equal(await readFile(outside('b.ts'), 'utf8'), SECRET, 'the edited buffer was saved over the outside file');
    assert.deepEqual(rig.host.catalog.saves, []);
    await rig.assertHealthy(sockets);
  });

  it('T-TOCTOU-06 OpenDiff: the file, or its folder, swapped for a link while the review is open is not written on Accept', async () => {
    const review = async (swap: () => Promise<void>) => {
      const id = rig.backend.invoke('OpenDiff', { path: 'src/b.ts', newContent: 'export const b = 2;\n' });
      const diff = await rig.host.catalog.nextDiff();
      await swap();
      diff.accept();
      return rig.answer(id);
    };
    assertRefused(await review(() => swapForLink('src/b.ts', outside('b.ts'))), ErrorCode.TargetChanged);
    assert.equal(await readFile(outside('b.ts'), 'utf8'), SECRET, 'the accepted change was written through the swapped file');
    await unlink(rig.file('src/b.ts'));
    await rename(rig.file('src/b.ts.moved-away'), rig.file('src/b.ts'));

    assertRefused(await review(() => swapForLink('src', path.join(rig.root, 'outside'))), ErrorCode.TargetChanged);
    assert.equal(await readFile(outside('b.ts'), 'utf8'), SECRET, 'the accepted change was written through the swapped folder');
    assert.deepEqual(rig.host.catalog.writes, []);
    assertUserWarned('src/b.ts');
    await rig.assertHealthy(sockets);
  });

  it('T-TOCTOU-07 OpenDiff: the file changed on disk while the review is open is not overwritten on Accept', async () => {
    const id = rig.backend.invoke('OpenDiff', { path: 'src/b.ts', newContent: 'export const b = 2;\n' });
    const diff = await rig.host.catalog.nextDiff();
    await writeFile(rig.file('src/b.ts'), 'export const b = 1; // the user kept working\n');
    diff.accept();
    assertRefused(await rig.answer(id), ErrorCode.TargetChanged);
    assert.equal(await readFile(rig.file('src/b.ts'), 'utf8'), 'export const b = 1; // the user kept working\n');
    assert.deepEqual(rig.host.catalog.writes, []);
    await rig.assertHealthy(sockets);
  });

  it('T-TOCTOU-08 DeleteFile: a file replaced by another file (same name, another inode) while the prompt is open is not deleted', async () => {
    const r = await swapDuringPrompt('DeleteFile', { path: 'victim.txt' }, async () => {
      await rename(rig.file('victim.txt'), rig.file('victim.txt.moved-away'));
      await writeFile(rig.file('victim.txt'), 'another file the user never saw');
    });
    assertRefused(r, ErrorCode.TargetChanged);
    assert.equal(await readFile(rig.file('victim.txt'), 'utf8'), 'another file the user never saw');
    await rig.assertHealthy(sockets);
  });

  it('T-PROT-01 a hard link to a secret, under an innocent name, is read only after a prompt; a deny leaks nothing', async () => {
    await link(outside('secret.txt'), rig.file('notes-copy.txt'));
    rig.host.answerPrompts('deny');
    const r = await rig.backend.call('ReadFile', { path: 'notes-copy.txt' });
    assertRefused(r, ErrorCode.PermissionDenied);
    assert.equal(rig.host.prompts.length, 1, 'no prompt for a file with a second name');
    assert.equal(rig.host.io.some((io) => io.op === 'readFile'), false, 'the file was read before the user agreed');
    await rig.assertHealthy(sockets);
  });

  it('T-PROT-02 every secret the old list missed forces a prompt, and a deny reads nothing', async () => {
    const secrets = [
      'infra/terraform.tfstate', 'infra/terraform.tfstate.backup', 'infra/prod.tfvars', 'infra/prod.auto.tfvars.json',
      'credentials.json', 'gcp/service-account-prod.json', 'kubeconfig', 'deploy/kubeconfig.yaml', '.kube/config',
      '.htpasswd', '.pgpass', '.netrc', '.bash_history', '.zsh_history', '.npmrc', '.pypirc', '.git-credentials',
      'tls/server.pem', 'tls/server.key', '.aws/credentials', '.docker/config.json',
    ];
    for (const rel of secrets) {
      await mkdir(path.dirname(rig.file(rel)), { recursive: true });
      await writeFile(rig.file(rel), SECRET);
    }
    rig.host.answerPrompts('deny');
    for (const rel of secrets) {
      const before = rig.host.prompts.length;
      const r = await rig.backend.call('ReadFile', { path: rel });
      assert.equal(r.errorCode, ErrorCode.PermissionDenied, `${rel}: ${r.errorCode ?? 'read without a prompt'}`);
      assertNoLeak(r);
      assert.equal(rig.host.prompts.length, before + 1, `${rel} was not asked about`);
    }
    assert.equal(rig.host.io.some((io) => io.op === 'readFile'), false, 'a secret was read before the user agreed');
    await rig.assertHealthy(sockets);
  });

  it('T-PROT-03 the user\'s own protected patterns force a prompt too, for names and for folders', async () => {
    rig.host.userProtectedPatterns = ['*.secret', 'private/**', 'config/prod'];
    for (const rel of ['notes.secret', 'deep/er/x.secret', 'private/plan.md', 'config/prod/db.yml']) {
      await mkdir(path.dirname(rig.file(rel)), { recursive: true });
      await writeFile(rig.file(rel), SECRET);
    }
    rig.host.answerPrompts('deny');
    for (const rel of ['notes.secret', 'deep/er/x.secret', 'private/plan.md', 'config/prod/db.yml']) {
      const r = await rig.backend.call('ReadFile', { path: rel });
      assert.equal(r.errorCode, ErrorCode.PermissionDenied, `${rel}: ${r.errorCode ?? 'read without a prompt'}`);
      assertNoLeak(r);
    }
    assert.equal(rig.host.io.some((io) => io.op === 'readFile'), false);
    await rig.assertHealthy(sockets);
  });

  it('T-PROT-04 ApplyEdit on a protected file reveals nothing before consent: the prompt comes first, and a deny says nothing of its lines', async () => {
    rig.host.answerPrompts('deny');
    const edit = { startLine: 40, startColumn: 200, endLine: 40, endColumn: 200, newText: 'X=1' };
    const r = await rig.backend.call('ApplyEdit', { path: '.env', edits: [edit] });
    assertRefused(r, ErrorCode.PermissionDenied);
    assert.equal(rig.host.prompts.length, 1, 'the edit was checked against the file before the prompt');
    assert.doesNotMatch(r.errorMessage ?? '', /\blines?\b|\bcharacters?\b|\bcolumns?\b|past the end/i);
    assert.deepEqual(rig.host.catalog.readDocuments, [], 'the protected file was read before consent');
    await until(() => rig.prompting.open === 0, 'the prompt closed');
    await rig.assertHealthy(sockets);
  });
});
