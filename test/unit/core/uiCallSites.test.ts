/**
 * The one door for text into VS Code's UI, checked on the source: every use of a VS Code API that
 * puts text in front of the user (notifications, modals, progress, quick picks, input boxes,
 * terminals, status bar items, tree items) is in src/vscode/ui.ts, whose parameters are SafeText;
 * and the lint rule that forbids them elsewhere really fires.
 */
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ESLint } from 'eslint';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '../../..');
const DOOR = 'src/vscode/ui.ts';

interface Site {
  file: string;
  line: number;
  name: string;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every property access, element access, destructuring or import of one of `names` in src/ (comments and strings do not count). */
function callSites(names: readonly string[], files = sourceFiles(path.join(ROOT, 'src'))): Site[] {
  const wanted = new Set(names);
  const sites: Site[] = [];
  for (const file of files) {
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const record = (node: ts.Node, name: string) => {
      if (!wanted.has(name)) return;
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      sites.push({ file: path.relative(ROOT, file).split(path.sep).join('/'), line, name });
    };
    const visit = (node: ts.Node): void => {
      if (ts.isPropertyAccessExpression(node)) record(node, node.name.text);
      else if (ts.isElementAccessExpression(node) && ts.isStringLiteralLike(node.argumentExpression)) record(node, node.argumentExpression.text);
      else if (ts.isBindingElement(node)) record(node, (node.propertyName ?? node.name).getText(source));
      else if (ts.isImportSpecifier(node)) record(node, (node.propertyName ?? node.name).text);
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return sites;
}

describe('the UI door: every call that shows text to the user goes through src/vscode/ui.ts', function () {
  this.timeout(60_000);
  let restricted: string[];
  before(async () => {
    // @ts-expect-error plain ESM config without type declarations
    const config = (await import('../../../eslint.config.mjs')) as { UI_DOOR_ONLY: string[] };
    restricted = config.UI_DOOR_ONLY;
  });

  it('the restricted list covers every VS Code API the issue names', () => {
    for (const name of ['showInformationMessage', 'showWarningMessage', 'showErrorMessage', 'withProgress', 'showQuickPick', 'createQuickPick', 'showInputBox', 'createTerminal', 'createStatusBarItem', 'TreeItem']) {
      assert.ok(restricted.includes(name), `${name} is not restricted in eslint.config.mjs`);
    }
  });

  it('no call site outside src/vscode/ui.ts; the door itself has them all', () => {
    const sites = callSites(restricted);
    const outside = sites.filter((s) => s.file !== DOOR);
    assert.deepEqual(outside.map((s) => `${s.file}:${s.line} ${s.name}`), [], 'UI calls outside the door');
    const inDoor = new Set(sites.filter((s) => s.file === DOOR).map((s) => s.name));
    for (const name of ['showInformationMessage', 'showWarningMessage', 'showErrorMessage', 'withProgress', 'showQuickPick', 'showInputBox', 'createTerminal', 'createStatusBarItem', 'TreeItem']) {
      assert.ok(inDoor.has(name), `the door no longer wraps ${name}: has a caller found another way?`);
    }
  });

  it('the scan finds a direct call, a destructured one and a bracketed one (so an empty result means something)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ui-door-'));
    const probe = path.join(dir, 'probe.ts');
    fs.writeFileSync(probe, [
      "import * as vscode from 'vscode';",
      "import { createTerminal } from 'vscode-like';",
      "void vscode.window.showErrorMessage('x'); // showInputBox in a comment does not count",
      'const { showQuickPick } = vscode.window;',
      "void vscode.window['withProgress'];",
      "new vscode.TreeItem('showWarningMessage');",
      'void showQuickPick, createTerminal;',
    ].join('\n'));
    try {
      const found = callSites(restricted, [probe]).map((s) => s.name);
      assert.deepEqual(found.sort(), ['TreeItem', 'createTerminal', 'showErrorMessage', 'showQuickPick', 'withProgress']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('ESLint with the project config refuses such a call in any other src file, and allows it in the door', async () => {
    // The project's config as it is, minus type information (slow to build, and not what this rule needs).
    const eslint = new ESLint({
      cwd: ROOT,
      overrideConfig: {
        files: ['**/*.ts'],
        languageOptions: { parserOptions: { projectService: false } },
        rules: { '@typescript-eslint/no-floating-promises': 'off', '@typescript-eslint/no-misused-promises': 'off',
          '@typescript-eslint/switch-exhaustiveness-check': 'off' },
      },
    });
    const code = "import * as vscode from 'vscode';\nexport function f(path: string): void {\n  void vscode.window.showInformationMessage(`Opened ${path}`);\n}\n";
    const [outside] = await eslint.lintText(code, { filePath: path.join(ROOT, 'src/vscode/statusBar.ts') });
    assert.deepEqual(outside.messages.map((m) => m.ruleId), ['no-restricted-properties'], JSON.stringify(outside.messages));
    assert.match(outside.messages[0].message, /only through src\/vscode\/ui\.ts/);
    const [door] = await eslint.lintText(code, { filePath: path.join(ROOT, DOOR) });
    assert.deepEqual(door.messages.map((m) => m.ruleId), [], JSON.stringify(door.messages));
  });
});
