/**
 * Bundle sizes: what `npm run build` wrote (dist/extension.js, media/chat.js, dist/backend/cli.js),
 * and the same entry points built minified (as `--production` does) into a temporary folder with a
 * metafile, which also proves the extension bundle holds nothing from the `openai` package (the
 * model SDK belongs to the backend process only).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { BENCH_DIR } from './lib/paths';

export interface BundleResult {
  /** Bytes as built by `npm run build` (not minified, source maps linked). */
  dev: Record<string, number>;
  /** Bytes minified, without source maps. */
  production: Record<string, number>;
  /** Input files from node_modules/openai in the extension bundle (must be 0). */
  openaiFilesInExtension: number;
  /** Input files from node_modules/openai in the backend bundle (the backend does use it). */
  openaiFilesInBackend: number;
}

const ROOT = path.resolve(BENCH_DIR, '..');
const FILES = { 'dist/extension.js': 'extension', 'media/chat.js': 'webview', 'dist/backend/cli.js': 'backend' } as const;

export async function benchBundles(): Promise<BundleResult> {
  const dev: Record<string, number> = {};
  for (const file of Object.keys(FILES)) dev[file] = fs.statSync(path.join(ROOT, file)).size;

  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'client-tools-bench-bundles-'));
  try {
    const common = { absWorkingDir: ROOT, bundle: true, minify: true, sourcemap: false, legalComments: 'none', metafile: true, logLevel: 'silent', write: true } as const;
    const [extension, webview, backend] = await Promise.all([
      esbuild.build({ ...common, entryPoints: { extension: 'src/vscode/extension.ts' }, outdir: out, platform: 'node', format: 'cjs', target: 'node20', external: ['vscode'] }),
      esbuild.build({ ...common, entryPoints: { chat: 'src/webview/main.ts' }, outdir: out, platform: 'browser', format: 'iife', target: 'es2022' }),
      // The tokenizer's tables are a file of their own beside cli.js, as esbuild.mjs builds it.
      esbuild.build({ ...common, entryPoints: { cli: 'src/backend/cli.ts' }, outdir: out, platform: 'node', format: 'cjs', target: 'node20', plugins: [besideBundle('./o200kEncoding')] }),
    ]);
    const production = {
      'dist/extension.js': fs.statSync(path.join(out, 'extension.js')).size,
      'media/chat.js': fs.statSync(path.join(out, 'chat.js')).size,
      'dist/backend/cli.js': fs.statSync(path.join(out, 'cli.js')).size,
    };
    const openaiFiles = (r: esbuild.BuildResult) => Object.keys(r.metafile?.inputs ?? {}).filter((f) => /(^|\/)node_modules\/openai\//.test(f)).length;
    if (!webview.metafile) throw new Error('no metafile');
    return { dev, production, openaiFilesInExtension: openaiFiles(extension), openaiFilesInBackend: openaiFiles(backend) };
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

/** Leaves a relative import out of the bundle as a file beside it (esbuild.mjs's plugin of the same name). */
function besideBundle(specifier: string): esbuild.Plugin {
  return {
    name: 'beside-bundle',
    setup(build) {
      build.onResolve({ filter: new RegExp(`^${specifier.replace(/[.]/g, '\\.')}$`) }, () => ({ path: `${specifier}.js`, external: true }));
    },
  };
}
