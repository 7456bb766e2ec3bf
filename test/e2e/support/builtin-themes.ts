/**
 * The `--vscode-*` values VS Code's built-in themes give the variables the chat's status text and its
 * backgrounds use. Source: VS Code as shipped in code-server 4.139.1 (`lib/vscode`):
 * `extensions/theme-defaults/themes/{dark_modern,light_modern,light_vs,hc_black,hc_light}.json`
 * for what a theme sets, and the colour registry's defaults in `out/vs/code/browser/workbench/workbench.js`
 * (`registerColor('errorForeground', { dark, light, hcDark, hcLight })` and the like) for what it
 * leaves unset. A default given as `transparent(foreground, 0.7)` is written as the foreground with alpha b3.
 */
export const BUILTIN_THEMES: Record<string, { bodyClass: string; colors: Record<string, string> }> = {
  'Light Modern': {
    bodyClass: 'vscode-light',
    colors: {
      '--vscode-foreground': '#3b3b3b',
      '--vscode-descriptionForeground': '#3b3b3b',
      '--vscode-editor-background': '#ffffff',
      '--vscode-sideBar-background': '#f8f8f8',
      '--vscode-editorWidget-background': '#f8f8f8',
      '--vscode-panel-border': '#e5e5e5',
      '--vscode-widget-border': '#e5e5e5',
      '--vscode-errorForeground': '#f85149',
      '--vscode-editorWarning-foreground': '#bf8803',
      '--vscode-testing-iconPassed': '#73c991',
      '--vscode-progressBar-background': '#005fb8',
    },
  },
  'Light+': {
    bodyClass: 'vscode-light',
    colors: {
      '--vscode-foreground': '#616161',
      '--vscode-descriptionForeground': '#717171',
      '--vscode-editor-background': '#ffffff',
      '--vscode-sideBar-background': '#f3f3f3',
      '--vscode-editorWidget-background': '#f3f3f3',
      '--vscode-errorForeground': '#a1260d',
      '--vscode-editorWarning-foreground': '#bf8803',
      '--vscode-testing-iconPassed': '#73c991',
      '--vscode-progressBar-background': '#0e70c0',
    },
  },
  'Dark Modern': {
    bodyClass: 'vscode-dark',
    colors: {
      '--vscode-foreground': '#cccccc',
      '--vscode-descriptionForeground': '#9d9d9d',
      '--vscode-editor-background': '#1f1f1f',
      '--vscode-sideBar-background': '#181818',
      '--vscode-editorWidget-background': '#202020',
      '--vscode-panel-border': '#2b2b2b',
      '--vscode-widget-border': '#313131',
      '--vscode-errorForeground': '#f85149',
      '--vscode-editorWarning-foreground': '#cca700',
      '--vscode-testing-iconPassed': '#73c991',
      '--vscode-progressBar-background': '#0078d4',
    },
  },
  'Dark High Contrast': {
    bodyClass: 'vscode-high-contrast',
    colors: {
      '--vscode-foreground': '#ffffff',
      '--vscode-descriptionForeground': '#ffffffb3',
      '--vscode-editor-background': '#000000',
      '--vscode-sideBar-background': '#000000',
      '--vscode-editorWidget-background': '#0c141f',
      '--vscode-panel-border': '#6fc3df',
      '--vscode-widget-border': '#6fc3df',
      '--vscode-errorForeground': '#f48771',
      '--vscode-editorWarning-foreground': '#ffd370',
      '--vscode-testing-iconPassed': '#73c991',
      '--vscode-progressBar-background': '#6fc3df',
    },
  },
  'Light High Contrast': {
    bodyClass: 'vscode-high-contrast-light',
    colors: {
      '--vscode-foreground': '#292929',
      '--vscode-descriptionForeground': '#292929b3',
      '--vscode-editor-background': '#ffffff',
      '--vscode-sideBar-background': '#ffffff',
      '--vscode-editorWidget-background': '#ffffff',
      '--vscode-panel-border': '#0f4a85',
      '--vscode-widget-border': '#0f4a85',
      '--vscode-errorForeground': '#b5200d',
      '--vscode-editorWarning-foreground': '#895503',
      '--vscode-testing-iconPassed': '#007100',
      '--vscode-progressBar-background': '#0f4a85',
    },
  },
};
