// @ts-check
import tseslint from 'typescript-eslint';
import { layerRules } from './scripts/layers.mjs';

export { LAYERS } from './scripts/layers.mjs';

/** VS Code API members that put text in front of the user; only src/vscode/ui.ts may use them. */
export const UI_DOOR_ONLY = [
  'showInformationMessage', 'showWarningMessage', 'showErrorMessage', 'withProgress', 'showQuickPick', 'createQuickPick',
  'showInputBox', 'createInputBox', 'createTerminal', 'createStatusBarItem', 'TreeItem',
];

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'media/**', 'node_modules/**', '.vscode-test/**', 'schema/**', 'bench/.out/**', 'bench/.scratch/**', 'test/fixtures/compile-fail/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'scripts/**/*.ts', 'bench/**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      eqeqeq: ['error', 'smart'],
      // A switch over a union lists every member or ends in assertNever (src/protocol/assertNever.ts).
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: false, requireDefaultForNonUnion: false }],
      'no-restricted-imports': 'off',
    },
  },
  {
    // The demo model switches over its own intent kinds, not over messages, and answers the rest
    // with a deliberate default.
    files: ['src/backend/demo/**/*.ts'],
    rules: { '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }] },
  },
  // Layer directions (scripts/layers.mjs): each src/<layer>/ imports only the layers below it, and
  // only src/vscode may touch the VS Code API; core, tools, protocol and backend stay plain Node.
  ...layerRules(),
  {
    // One door for text into VS Code's UI: only src/vscode/ui.ts may open notifications, modals,
    // progress, quick picks, input boxes, terminals, status bar items and tree items, and it takes
    // only SafeText (src/core/uiText.ts). test/unit/core/uiCallSites.test.ts scans src/ for the same names.
    files: ['src/**/*.ts'],
    ignores: ['src/vscode/ui.ts'],
    rules: { 'no-restricted-properties': ['error', ...UI_DOOR_ONLY.map((property) => ({ property, message: 'Text reaches VS Code UI only through src/vscode/ui.ts (SafeText from src/core/uiText.ts).' }))] },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' } },
  },
);
