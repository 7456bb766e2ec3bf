/**
 * Names the VS Code the UI tests run against (CLIENT_TOOLS_VSCODE: 1.100 by default, or newest)
 * before the first test, so a CI log of the matrix says which one a failure belongs to. Loaded by
 * test/e2e/.mocharc.json; an unknown name fails here, before any code-server starts.
 */
interface VSCodeTarget { name: string; vscode: string; codeServer: string; nodeMajor: number }

export const mochaHooks = {
  async beforeAll(): Promise<void> {
    // @ts-expect-error plain ESM script without type declarations
    const provision = (await import('../../../scripts/provision-code-server.mjs')) as { vscodeTarget(): VSCodeTarget };
    const target = provision.vscodeTarget();
    console.log(`[test:e2e] VS Code ${target.vscode} (${target.name}): code-server ${target.codeServer} under Node ${target.nodeMajor}`);
  },
};
