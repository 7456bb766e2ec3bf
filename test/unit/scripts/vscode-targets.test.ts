/**
 * The VS Code targets of the test matrix (scripts/provision-code-server.mjs): names resolve, each
 * runs under the Node its code-server requires, and the newest one's install fix (the workbench
 * payload patch) applies once and refuses a workbench whose text changed.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

interface Patch { file: string; find: string; replace: string; why: string }
interface VSCodeTarget { name: string; vscode: string; codeServer: string; nodeMajor: number; patches: Patch[] }
interface ProvisionModule {
  VSCODE_TARGETS: Record<string, VSCodeTarget>;
  vscodeTarget(name?: string): VSCodeTarget;
  applyPatches(installDir: string, target: VSCodeTarget, log: (line: string) => void): void;
}

async function provision(): Promise<ProvisionModule> {
  // @ts-expect-error plain ESM script without type declarations (its JSDoc documents the shape)
  return (await import('../../../scripts/provision-code-server.mjs')) as ProvisionModule;
}

/** A fake install folder holding only the file a patch edits, with the given text. */
function fakeInstall(patch: Patch, text: string): { dir: string; file: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'client-tools-targets-'));
  const file = path.join(dir, 'node_modules', 'code-server', patch.file);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return { dir, file };
}

describe('VS Code test targets', () => {
  const made: string[] = [];
  afterEach(() => { for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true }); });

  it('resolves 1.100 and newest by name, VS Code version or code-server version, and refuses others', async () => {
    const { vscodeTarget } = await provision();
    assert.equal(vscodeTarget('1.100').codeServer, '4.100.3');
    assert.equal(vscodeTarget('4.100.3').name, '1.100');
    const newest = vscodeTarget('newest');
    assert.equal(vscodeTarget(newest.vscode).name, 'newest');
    assert.equal(vscodeTarget(newest.codeServer).name, 'newest');
    assert.throws(() => vscodeTarget('1.99'), /unknown VS Code "1\.99": use one of 1\.100, newest/);
  });

  it('runs 1.100 under Node 20 and the newest under Node 24, a newer VS Code than 1.100', async () => {
    const { VSCODE_TARGETS } = await provision();
    assert.equal(VSCODE_TARGETS['1.100'].nodeMajor, 20);
    assert.equal(VSCODE_TARGETS.newest.nodeMajor, 24);
    const minor = (v: string) => Number(v.split('.')[1]);
    assert.ok(minor(VSCODE_TARGETS.newest.vscode) > 100, VSCODE_TARGETS.newest.vscode);
  });

  it('newest: makes the built workbench honour the payload, once, as 1.100 does', async () => {
    const { VSCODE_TARGETS, applyPatches } = await provision();
    const target = VSCODE_TARGETS.newest;
    const [patch] = target.patches;
    assert.ok(patch, 'the newest target carries the payload patch');
    // The shape of the minified code in 4.139.1: the payload loop only for unbuilt or smoke-test workbenches.
    const original = `a();${patch.find}for(let[t,i]of this.payload)switch(t){}b();`;
    const { dir, file } = fakeInstall(patch, original);
    made.push(dir);
    const lines: string[] = [];
    applyPatches(dir, target, (line) => lines.push(line));
    const patched = fs.readFileSync(file, 'utf8');
    assert.equal(patched, `a();${patch.replace}for(let[t,i]of this.payload)switch(t){}b();`);
    assert.doesNotMatch(patched, /isBuilt|enableSmokeTestDriver/);
    applyPatches(dir, target, (line) => lines.push(line));
    assert.equal(fs.readFileSync(file, 'utf8'), patched, 'a second run changes nothing');
    assert.equal(lines.length, 1);
  });

  it('newest: refuses a workbench whose text changed (a later code-server), and leaves it as it was', async () => {
    const { VSCODE_TARGETS, applyPatches } = await provision();
    const target = VSCODE_TARGETS.newest;
    const [patch] = target.patches;
    const changed = 'if(this.payload&&this.somethingElse)for(;;);';
    const { dir, file } = fakeInstall(patch, changed);
    made.push(dir);
    assert.throws(() => applyPatches(dir, target, () => undefined), /cannot patch .*workbench\.js .*the text to replace is missing/);
    assert.equal(fs.readFileSync(file, 'utf8'), changed);
  });

  it('1.100 needs no patch: its workbench honours the payload as built', async () => {
    const { VSCODE_TARGETS } = await provision();
    assert.deepEqual(VSCODE_TARGETS['1.100'].patches, []);
  });
});
