// Builds every bundle the project ships or tests:
//   dist/extension.js        the VS Code extension (CJS, Node, `vscode` external)
//   dist/agentLauncher.js    the launcher each ACP agent is started through (found beside extension.js)
//   dist/backend/cli.js      the backend CLI (`client-tools-backend`)
//   dist/backend/index.js    the backend library API for other Node agents
//   dist/backend/imageWorker.js  the worker thread that downscales images (found beside cli.js/index.js)
//   dist/backend/o200kEncoding.js  the tokenizer's tables, loaded from beside cli.js/index.js at the first count
//   dist/conformance/cli.js  the conformance kit (`client-tools-conformance`)
//   dist/kit/package/cli.js  the same kit, minified, for its own npm package (--kit only; scripts/pack-kit.mjs)
//   media/chat.js            the sidebar chat webview (browser IIFE)
//   out/test/vscode/index.js the suite that runs inside a real extension host
//   bench/.out/*.js          the benchmarks (--bench only)
// Flags: --watch rebuilds on change; --production minifies and drops source maps; --bench builds
// only the benchmarks; --kit builds only the kit's package bundle.
import * as esbuild from 'esbuild';
import { readdirSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');
const bench = process.argv.includes('--bench');
const kit = process.argv.includes('--kit');

const common = {
  bundle: true,
  sourcemap: production ? false : 'linked',
  minify: production,
  legalComments: 'linked',
  logLevel: 'info',
  target: 'node20',
};

const nodeTargets = [
  {
    ...common,
    // agentProcess.ts starts the launcher by path from __dirname: it must sit beside extension.js.
    entryPoints: { extension: 'src/vscode/extension.ts', agentLauncher: 'src/agents/agentLauncher.ts' },
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    external: ['vscode'],
    // The extension never needs the model SDK; keep it out so activation stays fast.
    plugins: [forbid(['openai'])],
  },
  {
    ...common,
    entryPoints: { cli: 'src/backend/cli.ts', index: 'src/backend/index.ts' },
    outdir: 'dist/backend',
    platform: 'node',
    format: 'cjs',
    // cli.js is the package's `bin`; Node ignores the line when index.js is required.
    banner: { js: '#!/usr/bin/env node' },
    plugins: [forbid(['vscode']), besideBundle('./o200kEncoding')],
  },
  {
    ...common,
    // The tokenizer's tables (4 MB), loaded from beside cli.js and index.js at the first count.
    entryPoints: { o200kEncoding: 'src/backend/context/o200kEncoding.ts' },
    outdir: 'dist/backend',
    platform: 'node',
    format: 'cjs',
    plugins: [forbid(['vscode', 'openai'])],
  },
  {
    ...common,
    // images.ts starts it by path from __dirname: it must sit beside cli.js and index.js.
    entryPoints: { imageWorker: 'src/backend/model/imageWorker.ts' },
    outdir: 'dist/backend',
    platform: 'node',
    format: 'cjs',
    plugins: [forbid(['vscode', 'openai'])],
  },
  kitTarget('dist/conformance'),
];

/** The conformance kit as one file that needs nothing but Node (scripts/pack-kit.mjs ships it). */
function kitTarget(outdir) {
  return {
    ...common,
    entryPoints: { cli: 'src/conformance/cli.ts' },
    outdir,
    platform: 'node',
    format: 'cjs',
    banner: { js: '#!/usr/bin/env node' },
    // The kit checks any backend and extension from the outside: neither may be bundled into it.
    plugins: [forbid(['vscode', 'openai'])],
  };
}

const webviewTargets = [
  {
    ...common,
    target: 'es2022',
    entryPoints: { chat: 'src/webview/main.ts' },
    outdir: 'media',
    platform: 'browser',
    format: 'iife',
  },
];

const testEntries = {};
for (const dir of ['test/vscode']) {
  if (!existsSync(dir)) continue;
  for (const f of readdirSync(dir)) {
    if (f.endsWith('.ts')) testEntries[path.basename(f, '.ts')] = path.join(dir, f);
  }
}
const testTargets = Object.keys(testEntries).length
  ? [{
      ...common,
      sourcemap: 'inline',
      minify: false,
      entryPoints: testEntries,
      outdir: 'out/test/vscode',
      platform: 'node',
      format: 'cjs',
      external: ['vscode', 'mocha'],
    }]
  : [];

// The benchmarks run bundled, as the extension and backend ship: run from source through tsx, every
// function our code creates also pays for tsx's keep-names helper, which the baselines' plain
// JavaScript in node_modules does not (about 10 % of the round trip).
const benchTargets = [{
  ...common,
  sourcemap: 'inline',
  entryPoints: { run: 'bench/run.ts', profile: 'bench/profile.ts', 'flood-client': 'bench/flood-client.ts', 'host-child': 'bench/host-child.ts', 'backend-child': 'bench/backend-child.ts', resilience: 'bench/resilience.ts', scaling: 'bench/scaling-main.ts', 'fake-model-child': 'bench/fake-model-child.ts', imageWorker: 'src/backend/model/imageWorker.ts' },
  outdir: 'bench/.out',
  platform: 'node',
  format: 'cjs',
  packages: 'external',
}];

/** Fails the build if a bundle pulls in a package that must stay out of it. */
function forbid(names) {
  return {
    name: 'forbid',
    setup(build) {
      const filter = new RegExp(`^(${names.map((n) => n.replace(/[/]/g, '\\/')).join('|')})($|/)`);
      build.onResolve({ filter }, (args) => ({
        errors: [{ text: `${args.path} must not be bundled here (imported from ${args.importer})` }],
      }));
    },
  };
}

/**
 * Leaves a relative import out of the bundle as a file beside it: `require('./x')` stays in the
 * output and Node finds `x.js` next to the bundle (built from its own entry point).
 */
function besideBundle(specifier) {
  return {
    name: 'beside-bundle',
    setup(build) {
      const filter = new RegExp(`^${specifier.replace(/[.]/g, '\\.')}$`);
      build.onResolve({ filter }, () => ({ path: `${specifier}.js`, external: true }));
    },
  };
}

// A production build starts clean so no stale source maps or bundles end up in the .vsix.
if (production && !kit) {
  for (const p of ['dist', 'media/chat.js.map']) rmSync(p, { recursive: true, force: true });
}

// Its metafile tells scripts/pack-kit.mjs which packages the bundle holds (their licences ship with it).
const kitTargets = [{ ...kitTarget('dist/kit/package'), sourcemap: false, minify: true, metafile: true }];
const targets = kit ? kitTargets : bench ? benchTargets : [...nodeTargets, ...webviewTargets, ...(production ? [] : testTargets)];
if (watch) {
  const contexts = await Promise.all(targets.map((t) => esbuild.context(t)));
  await Promise.all(contexts.map((c) => c.watch()));
  console.log('[watch] watching for changes');
} else {
  const results = await Promise.all(targets.map((t) => esbuild.build(t)));
  if (kit) writeFileSync('dist/kit/meta.json', JSON.stringify(results[0].metafile));
}
