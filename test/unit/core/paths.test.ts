import * as assert from 'node:assert/strict';
import fsPromises, { link, mkdir, symlink, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CodedError, ErrorCode } from '../../../src/protocol';
import { checkPathSyntax, isInside, isProtectedPath, resolveWorkspacePath } from '../../../src/core/paths';
import { createTempWorkspace, type TempWorkspace } from '../../support/fake-host';

async function refusal(promise: Promise<unknown>): Promise<CodedError> {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof CodedError, `expected a CodedError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected the path to be refused');
}

describe('paths: workspace containment', () => {
  let ws: TempWorkspace;

  beforeEach(async () => {
    ws = await createTempWorkspace(['ws'], { 'src/a.ts': 'export {};\n', 'README.md': '# hi\n' });
  });
  afterEach(async () => {
    await ws.dispose();
  });

  it('resolves a relative path inside the folder to its real absolute path and a relative display path', async () => {
    const r = await resolveWorkspacePath('src/a.ts', ws.folders);
    assert.equal(r.absolute, ws.file('src/a.ts'));
    assert.equal(r.relative, 'src/a.ts');
    assert.equal(r.exists, true);
    assert.equal(r.protected, false);
    assert.equal(r.isFolderRoot, false);
  });

  it('accepts an absolute path and a file: URI inside the folder', async () => {
    assert.equal((await resolveWorkspacePath(ws.file('README.md'), ws.folders)).relative, 'README.md');
    assert.equal((await resolveWorkspacePath(pathToFileURL(ws.file('src/a.ts')).href, ws.folders)).relative, 'src/a.ts');
  });

  it('resolves a path that does not exist yet through its nearest existing parent', async () => {
    const r = await resolveWorkspacePath('src/new/deeper/file.ts', ws.folders);
    assert.equal(r.exists, false);
    assert.equal(r.absolute, ws.file('src/new/deeper/file.ts'));
  });

  it('allows .. that stays inside the folder', async () => {
    assert.equal((await resolveWorkspacePath('src/../README.md', ws.folders)).relative, 'README.md');
  });

  const invalid: [string, string][] = [
    ['empty', ''],
    ['blank', '   '],
    ['NUL byte', 'src/a.ts\0.png'],
    ['UNC with backslashes', '\\\\server\\share\\file.txt'],
    ['UNC with slashes', '//server/share/file.txt'],
    ['device path', '\\\\?\\C:\\secret'],
    ['vscode-remote URI', 'vscode-remote://ssh-remote+host/etc/passwd'],
    ['http URI', 'http://example.com/a.ts'],
    ['untitled URI', 'untitled:Untitled-1'],
    ['file URI naming a host', 'file://server/share/a.ts'],
    ['file URI with encoded NUL', 'file:///tmp/a%00b'],
  ];
  for (const [what, input] of invalid) {
    it(`refuses ${what} with PATH_INVALID`, async () => {
      const e = await refusal(resolveWorkspacePath(input, ws.folders));
      assert.equal(e.code, ErrorCode.PathInvalid);
    });
  }

  it('refuses a non-string path with PATH_INVALID', async () => {
    assert.equal((await refusal(resolveWorkspacePath(42, ws.folders))).code, ErrorCode.PathInvalid);
  });

  it('refuses a .. escape with PATH_OUTSIDE_WORKSPACE', async () => {
    await writeFile(path.join(ws.root, 'outside.txt'), 'secret');
    const e = await refusal(resolveWorkspacePath('../outside.txt', ws.folders));
    assert.equal(e.code, ErrorCode.PathOutsideWorkspace);
    const deep = await refusal(resolveWorkspacePath('src/../../outside.txt', ws.folders));
    assert.equal(deep.code, ErrorCode.PathOutsideWorkspace);
  });

  it('refuses an absolute path outside every folder', async () => {
    assert.equal((await refusal(resolveWorkspacePath('/etc/passwd', ws.folders))).code, ErrorCode.PathOutsideWorkspace);
    assert.equal((await refusal(resolveWorkspacePath(pathToFileURL('/etc/passwd').href, ws.folders))).code, ErrorCode.PathOutsideWorkspace);
  });

  it('refuses the prefix trick: a sibling folder whose name starts with the workspace name', async () => {
    const evil = path.join(ws.root, 'ws-evil');
    await mkdir(evil);
    await writeFile(path.join(evil, 'x.txt'), 'x');
    const e = await refusal(resolveWorkspacePath(path.join(evil, 'x.txt'), ws.folders));
    assert.equal(e.code, ErrorCode.PathOutsideWorkspace);
    assert.equal(isInside(path.join(ws.root, 'ws-evil'), path.join(ws.root, 'ws')), false);
    assert.equal(isInside(path.join(ws.root, 'ws', 'a'), path.join(ws.root, 'ws')), true);
  });

  it('refuses a symlinked file that points outside', async () => {
    const secret = path.join(ws.root, 'secret.txt');
    await writeFile(secret, 'top secret');
    await symlink(secret, ws.file('innocent.txt'));
    const e = await refusal(resolveWorkspacePath('innocent.txt', ws.folders));
    assert.equal(e.code, ErrorCode.PathOutsideWorkspace);
    assert.match(e.message, /symbolic link/);
  });

  it('refuses a path below a symlinked folder that points outside, even when the file does not exist yet', async () => {
    const outside = path.join(ws.root, 'elsewhere');
    await mkdir(outside);
    await symlink(outside, ws.file('linked'));
    assert.equal((await refusal(resolveWorkspacePath('linked/new-file.txt', ws.folders))).code, ErrorCode.PathOutsideWorkspace);
  });

  it('refuses a dangling symlink whose target would be outside', async () => {
    await symlink(path.join(ws.root, 'not-yet-there.txt'), ws.file('dangling.txt'));
    assert.equal((await refusal(resolveWorkspacePath('dangling.txt', ws.folders))).code, ErrorCode.PathOutsideWorkspace);
  });

  it('resolves missing directories below a dangling symlink and below a symlinked folder to where they would land', async () => {
    await mkdir(ws.file('src/real'));
    await symlink(ws.file('src/real'), ws.file('via'));
    await symlink(ws.file('src/later'), ws.file('dangling-dir'));
    assert.equal((await resolveWorkspacePath('via/x/y/new.txt', ws.folders)).absolute, ws.file('src/real/x/y/new.txt'));
    assert.equal((await resolveWorkspacePath('dangling-dir/x/new.txt', ws.folders)).absolute, ws.file('src/later/x/new.txt'));
    assert.equal((await resolveWorkspacePath('src/a.ts/under-a-file', ws.folders)).absolute, ws.file('src/a.ts/under-a-file'));
  });

  it('finds the existing part of a path of 2,000 missing directories by bisection: a dozen realpath calls, not one per directory (the fuzzer: 4,000 failed calls and their errors, a 250 ms stall)', async () => {
    const deep = `${'d/'.repeat(2_000)}f`;
    const original = fsPromises.realpath;
    let calls = 0;
    fsPromises.realpath = ((p: string) => {
      calls++;
      return original(p);
    }) as typeof original;
    try {
      assert.equal((await resolveWorkspacePath(deep, ws.folders)).absolute, ws.file(deep));
    } finally {
      fsPromises.realpath = original;
    }
    assert.ok(calls > 0 && calls < 60, `${calls} realpath calls`);
  });

  it('accepts a symlink that stays inside, and reports the real target', async () => {
    await symlink(ws.file('src/a.ts'), ws.file('alias.ts'));
    const r = await resolveWorkspacePath('alias.ts', ws.folders);
    assert.equal(r.absolute, ws.file('src/a.ts'));
    assert.equal(r.relative, 'src/a.ts');
  });

  it('marks a path protected when the link name or its target is protected', async () => {
    await writeFile(ws.file('.env'), 'KEY=1');
    await symlink(ws.file('.env'), ws.file('notes.txt'));
    assert.equal((await resolveWorkspacePath('notes.txt', ws.folders)).protected, true);
    assert.equal((await resolveWorkspacePath('.env', ws.folders)).protected, true);
  });

  it('marks a file with a second hard link protected (it may be a secret under another name), and a lone file not', async () => {
    await writeFile(ws.file('plain.txt'), 'x');
    assert.equal((await resolveWorkspacePath('plain.txt', ws.folders)).protected, false);
    await link(ws.file('plain.txt'), ws.file('other-name.txt'));
    assert.equal((await resolveWorkspacePath('plain.txt', ws.folders)).protected, true);
    assert.equal((await resolveWorkspacePath('other-name.txt', ws.folders)).protected, true);
    // A folder always has several links (its entries' ".."); that says nothing.
    assert.equal((await resolveWorkspacePath('src', ws.folders)).protected, false);
  });

  it('marks a path protected by the user\'s own patterns passed in the options', async () => {
    const protectedPatterns = ['*.secret', 'config/prod'];
    await mkdir(ws.file('config/prod'), { recursive: true });
    assert.equal((await resolveWorkspacePath('a/b.secret', ws.folders, { protectedPatterns })).protected, true);
    assert.equal((await resolveWorkspacePath('config/prod/db.yml', ws.folders, { protectedPatterns })).protected, true);
    assert.equal((await resolveWorkspacePath('config/dev/db.yml', ws.folders, { protectedPatterns })).protected, false);
    assert.equal((await resolveWorkspacePath('a/b.secret', ws.folders)).protected, false);
  });

  it('refuses everything when no folder is open, with NO_WORKSPACE', async () => {
    assert.equal((await refusal(resolveWorkspacePath('a.ts', []))).code, ErrorCode.NoWorkspace);
  });

  it('checks syntax before any I/O: checkPathSyntax needs no file system', () => {
    assert.throws(() => checkPathSyntax('a\0b'), (e: unknown) => e instanceof CodedError && e.code === ErrorCode.PathInvalid);
    assert.equal(checkPathSyntax('src/a.ts'), 'src/a.ts');
  });

  it('refuses Windows drive-relative paths under win32 rules', () => {
    assert.throws(() => checkPathSyntax('C:secret.txt', { platform: 'win32' }), (e: unknown) => e instanceof CodedError && e.code === ErrorCode.PathInvalid);
  });
});

describe('paths: multi-root workspaces', () => {
  let ws: TempWorkspace;

  beforeEach(async () => {
    ws = await createTempWorkspace(['api', 'web']);
    await writeFile(path.join(ws.folders[0].path, 'server.ts'), '');
    await writeFile(path.join(ws.folders[1].path, 'index.html'), '');
  });
  afterEach(async () => {
    await ws.dispose();
  });

  it('selects the folder named by the first segment and shows it in the relative path', async () => {
    const r = await resolveWorkspacePath('web/index.html', ws.folders);
    assert.equal(r.absolute, path.join(ws.folders[1].path, 'index.html'));
    assert.equal(r.relative, 'web/index.html');
    assert.equal(r.folder.name, 'web');
  });

  it('finds an existing file in whichever folder holds it when no folder is named', async () => {
    const r = await resolveWorkspacePath('index.html', ws.folders);
    assert.equal(r.relative, 'web/index.html');
  });

  it('accepts absolute paths in any folder and still refuses the parent', async () => {
    assert.equal((await resolveWorkspacePath(path.join(ws.folders[0].path, 'server.ts'), ws.folders)).relative, 'api/server.ts');
    assert.equal((await refusal(resolveWorkspacePath(path.join(ws.root, 'x'), ws.folders))).code, ErrorCode.PathOutsideWorkspace);
    assert.equal((await refusal(resolveWorkspacePath('web/../../x', ws.folders))).code, ErrorCode.PathOutsideWorkspace);
  });
});

describe('paths: isProtectedPath', () => {
  const protectedPaths = [
    '.env', '.env.local', 'config/.env.production', '.git/config', '.git/hooks/pre-commit', '.vscode/settings.json',
    '.vscode/tasks.json', 'project.code-workspace', '.ssh/id_rsa', 'home/.ssh/config', 'certs/server.pem', 'tls/private.key',
    '.npmrc', '.mcp.json', 'mcp.json', '.cursor/mcp.json', 'id_ed25519', '.ENV', '.env.', '.env ', '.git\\config', 'secrets.json',
    'terraform.tfstate', 'infra/terraform.tfstate.backup', 'prod.tfvars', 'prod.auto.tfvars.json', 'credentials.json', 'gcp/service-account-ci.json',
    'kubeconfig', 'kubeconfig.yaml', '.kube/config', '.htpasswd', '.pgpass', '.netrc', '.bash_history', '.zsh_history', '.pypirc',
    '.git-credentials', '.aws/credentials', '.docker/config.json', 'Credentials.JSON',
  ];
  for (const p of protectedPaths) {
    it(`protects ${JSON.stringify(p)}`, () => assert.equal(isProtectedPath(p), true));
  }
  const ordinary = ['src/a.ts', 'README.md', 'environment.ts', 'docs/git-guide.md', 'keyboard.ts', 'package.json', '.gitignore', 'src/env.ts', '.',
    'main.tf', 'service.json', 'history.md', 'kube.ts'];
  for (const p of ordinary) {
    it(`does not protect ${JSON.stringify(p)}`, () => assert.equal(isProtectedPath(p), false));
  }

  it('adds the user\'s patterns: a name glob at any depth, a path glob from the folder, a folder covering its contents, case-insensitively', () => {
    const user = ['*.secret', 'vault', 'config/prod/**', 'deploy/keys'];
    for (const p of ['x.secret', 'a/b/X.SECRET', 'vault/a.txt', 'src/vault', 'config/prod/db.yml', 'deploy/keys/k.txt']) {
      assert.equal(isProtectedPath(p, user), true, p);
    }
    for (const p of ['secret.txt', 'vaults/a.txt', 'config/dev/db.yml', 'other/config/prod/db.yml', 'deploy/keys.md']) {
      assert.equal(isProtectedPath(p, user), false, p);
    }
    assert.equal(isProtectedPath('x.secret', ['', '  ', '/']), false, 'empty patterns protect nothing');
  });
});
