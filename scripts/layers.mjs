// @ts-check
/**
 * The layers of src/ and which layers each may import: the one table eslint.config.mjs enforces
 * (no-restricted-imports) and docs/ARCHITECTURE.md describes. A layer may always import itself.
 * The extension stacks base ← protocol ← net ← core ← tools ← agents ← vscode; the webview sees only the
 * protocol; the backend and the conformance kit stand beside the extension and never import it.
 */
export const LAYERS = /** @type {const} */ ({
  base: [],
  protocol: ['base'],
  net: ['base', 'protocol'],
  core: ['base', 'protocol', 'net'],
  tools: ['base', 'protocol', 'net', 'core'],
  agents: ['base', 'protocol', 'net', 'core', 'tools'],
  vscode: ['base', 'protocol', 'net', 'core', 'tools', 'agents'],
  webview: ['protocol'],
  backend: ['base', 'protocol', 'net'],
  conformance: ['base', 'protocol', 'net'],
});

/** The only layers that may import the `vscode` module. */
export const VSCODE_API_LAYERS = ['vscode'];

/** @param {string} layer */
function allowedFor(layer) {
  return LAYERS[/** @type {keyof typeof LAYERS} */ (layer)];
}

/**
 * The no-restricted-imports options for files of `layer`.
 * @param {string} layer
 */
function restrictions(layer) {
  const allowed = allowedFor(layer);
  const forbidden = Object.keys(LAYERS).filter((other) => other !== layer && !allowed.includes(other));
  return ['error', {
    paths: VSCODE_API_LAYERS.includes(layer) ? [] : [{ name: 'vscode', message: 'Only src/vscode/ may import vscode.' }],
    patterns: forbidden.length === 0 ? [] : [{
      // A relative specifier that climbs out to src/<layer>/.
      regex: `^(?:\\.\\./)+(?:${forbidden.join('|')})(?:/|$)`,
      message: `src/${layer}/ may import only ${allowed.length ? allowed.map((l) => `src/${l}/`).join(', ') : 'nothing else in src/'} (layer table: scripts/layers.mjs).`,
    }],
  }];
}

/** Flat-config blocks, one per layer: its files may not import the layers the table leaves out, nor `vscode` unless the layer may. */
export function layerRules() {
  const layers = Object.keys(LAYERS).map((layer) => ({
    files: [`src/${layer}/**/*.ts`],
    rules: { 'no-restricted-imports': restrictions(layer) },
  }));
  return layers;
}
