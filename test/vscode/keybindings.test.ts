import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

const EXTENSION_ID = 'client-tools.client-tools';

interface Keybinding {
  key: string;
  command: string;
  when?: string;
}

/** `Ctrl+Alt+K` and `alt+ctrl+k` are one key: modifiers sorted, lower case; chords kept in order. */
function normalize(key: string): string {
  return key.toLowerCase().split(' ').filter(Boolean)
    .map((part) => part.split('+').sort((a, b) => a.localeCompare(b)).join('+'))
    .join(' ');
}

/** VS Code's own default keybindings for this platform, as its "Open Default Keyboard Shortcuts (JSON)" lists them. */
async function defaultKeybindings(): Promise<Keybinding[]> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse('vscode://defaultsettings/keybindings.json'));
  // The file is JSON with `//` comment lines (the unbound commands are listed as comments).
  const json = doc.getText().split('\n').filter((line) => !line.trim().startsWith('//')).join('\n');
  return JSON.parse(json) as Keybinding[];
}

describe('Client Tools keybindings', () => {
  it('contributes a key for Focus Chat and Ask About Selection that none of VS Code\'s default keybindings uses', async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension);
    const ours = (extension.packageJSON as { contributes: { keybindings?: Keybinding[] } }).contributes.keybindings ?? [];
    assert.deepEqual(ours.map((k) => k.command).sort(), ['clientTools.askAboutSelection', 'clientTools.focusChat']);
    const defaults = await defaultKeybindings();
    assert.ok(defaults.length > 300, `only ${defaults.length} default keybindings read`);
    for (const binding of ours) {
      const key = normalize(binding.key);
      const clashes = defaults.filter((d) => !d.command.startsWith('clientTools.') && !d.command.startsWith('-')
        && (normalize(d.key) === key || normalize(d.key).startsWith(`${key} `) || key.startsWith(`${normalize(d.key)} `)));
      assert.deepEqual(clashes.map((d) => `${d.key} → ${d.command}`), [], `${binding.key} (${binding.command}) is already VS Code's`);
    }
  });
});
