// Builds the conformance kit as a product a stranger can run with nothing but Node, no clone:
//   client-tools-conformance-<version>.tgz  an npm package with no dependencies (the kit bundled in
//                                           one file, the protocol's docs and schema/), for
//                                           `npx --yes ./client-tools-conformance-<version>.tgz …`
//   client-tools-conformance-<version>.cjs  the same kit as a single file, for `node <file> …`
// Usage: node scripts/pack-kit.mjs [--out DIR] (default: the repository root). `npm run package`
// runs it. Plain Node and npm; prints the two paths as JSON on its last line.
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outArg = process.argv.indexOf('--out');
const out = path.resolve(outArg >= 0 ? process.argv[outArg + 1] : root);
const stage = path.join(root, 'dist/kit/package');
const { version, license } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));

function run(command, args) {
  const r = spawnSync(command, args, { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.stdout}`);
  return r.stdout;
}

rmSync(path.join(root, 'dist/kit'), { recursive: true, force: true });
run(process.execPath, ['esbuild.mjs', '--kit']);

// The protocol's published set travels with the kit: a backend author needs nothing else.
mkdirSync(path.join(stage, 'docs'), { recursive: true });
for (const doc of ['PROTOCOL.md', 'CONFORMANCE.md']) copyFileSync(path.join(root, 'docs', doc), path.join(stage, 'docs', doc));
cpSync(path.join(root, 'schema'), path.join(stage, 'schema'), { recursive: true });
copyFileSync(path.join(root, 'LICENSE'), path.join(stage, 'LICENSE'));
writeFileSync(path.join(stage, 'THIRD-PARTY-NOTICES.txt'), thirdPartyNotices());
writeFileSync(path.join(stage, 'README.md'), readme());
const manifest = {
  name: 'client-tools-conformance',
  version,
  description: 'Conformance kit for the Client Tools protocol (client-tools/1): checks a backend or an extension from the outside, check by check.',
  license,
  bin: { 'client-tools-conformance': 'cli.js' },
  files: ['cli.js', 'docs/', 'schema/', 'README.md', 'LICENSE', 'THIRD-PARTY-NOTICES.txt'],
  engines: { node: '>=20' },
};
writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);

mkdirSync(out, { recursive: true });
const packed = JSON.parse(run('npm', ['pack', stage, '--pack-destination', out, '--json', '--loglevel=error']));
const tarball = path.join(out, packed[0].filename);
const single = path.join(out, `client-tools-conformance-${version}.cjs`);
copyFileSync(path.join(stage, 'cli.js'), single);
console.log(JSON.stringify({ tarball, single }));

/** The licences of the packages bundled into cli.js, as esbuild's metafile lists them. */
function thirdPartyNotices() {
  const meta = JSON.parse(readFileSync(path.join(root, 'dist/kit/meta.json'), 'utf8'));
  const names = new Set();
  for (const input of Object.keys(meta.inputs)) {
    const rest = input.split('node_modules/').at(-1);
    if (rest === input) continue;
    const parts = rest.split('/');
    names.add(parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]);
  }
  return [...names].sort().map((name) => {
    const dir = path.join(root, 'node_modules', name);
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    const file = ['LICENSE', 'LICENSE.md', 'LICENSE.txt', 'license'].map((f) => path.join(dir, f)).find((f) => existsSync(f));
    if (!file) throw new Error(`${name} has no licence file to ship`);
    return `${name} ${pkg.version} (${pkg.license})\n\n${readFileSync(file, 'utf8').trim()}\n`;
  }).join('\n---\n\n');
}

function readme() {
  return `# client-tools-conformance ${version}

The conformance kit of the Client Tools protocol (\`client-tools/1\`): it plays a scripted extension
against your backend (or, with \`--serve\`, a scripted backend against an extension) and reports,
check by check, what the peer gets right. It needs Node 20 or later and nothing else: \`cli.js\` is
self-contained and this package has no dependencies.

\`\`\`sh
npx --yes ./client-tools-conformance-${version}.tgz ws://127.0.0.1:PORT --token "$TOKEN"
node client-tools-conformance-${version}.cjs ws://127.0.0.1:PORT --token "$TOKEN"   # the single-file build
npx --yes ./client-tools-conformance-${version}.tgz --help
\`\`\`

The exit code is 0 only when every required check passed. \`docs/CONFORMANCE.md\` lists the checks,
the options and a GitHub Actions job; \`docs/PROTOCOL.md\` and \`schema/\` are the protocol itself.
`;
}
