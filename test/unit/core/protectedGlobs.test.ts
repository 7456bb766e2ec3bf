import * as assert from 'node:assert/strict';
import { globToRegExp } from '../../../src/core/globs';
import { isProtectedPath, protectedGlobs } from '../../../src/core/paths';

/** Names the built-in list protects, one or more per rule of src/core/paths.ts. */
const PROTECTED = [
  '.git', '.vscode', '.ssh', '.env', '.env.local', '.ENV', 'a.code-workspace', 'server.pem', 'tls.KEY', 'id_rsa', 'id_ed25519.pub',
  'prod.tfstate', 'prod.tfstate.backup', 'vars.tfvars.json', 'service-account-prod.json', 'kubeconfig', 'kubeconfig.yaml',
  '.npmrc', 'credentials.json', '.bash_history', 'mcp.json', '.git-credentials',
];
const ORDINARY = ['src', 'a.ts', 'environment.ts', 'env', 'README.md', 'keys.ts', 'package.json', 'id.ts'];

/** How ripgrep applies an `--iglob` without a slash: to the name of each file or folder, case-insensitively. */
function globbed(name: string, globs: readonly string[]): boolean {
  return globs.some((g) => !g.includes('/') && new RegExp(globToRegExp(g.toLowerCase()).source, 'i').test(name));
}

describe('protectedGlobs', () => {
  it('names every protected file or folder the built-in list knows, and nothing ordinary', () => {
    const globs = protectedGlobs();
    for (const name of PROTECTED) {
      assert.ok(isProtectedPath(name), `${name} is not protected by isProtectedPath`);
      assert.ok(globbed(name, globs), `${name} is protected but no glob names it`);
    }
    for (const name of ORDINARY) assert.equal(globbed(name, globs), false, `${name} is ordinary but a glob names it`);
  });

  it('adds the user\'s own patterns, never one that would re-include a file', () => {
    assert.deepEqual(protectedGlobs(['*.secret', ' vault ', '!keep.env', '']).slice(-2), ['*.secret', 'vault']);
  });
});
