#!/usr/bin/env node
// Remakes the README's pictures: runs the UI test that takes them in a real VS Code
// (test/e2e/readme-screenshots.e2e.test.ts: the side bar at its default 300 px, in Light Modern and
// Dark Modern) and copies its PNGs from test-results/ to docs/images/. `npm run screenshots` builds
// first. Refuses to copy anything when the test fails, so docs/images/ never mixes two runs.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const results = path.join(root, 'test-results');
const images = path.join(root, 'docs', 'images');
/** The states the README shows, each in both themes. */
const STATES = ['empty', 'tool-card', 'prompt', 'review', 'model-error'];
const THEMES = ['light', 'dark'];

const shots = STATES.flatMap((state) => THEMES.map((theme) => `${state}-${theme}.png`));
for (const name of shots) rmSync(path.join(results, `readme-${name}`), { force: true });

const mocha = path.join(root, 'node_modules', 'mocha', 'bin', 'mocha.js');
const test = spawnSync(process.execPath, [mocha, '--no-config', '--require', 'tsx/cjs', '--extension', 'ts', '--timeout', '300000', '--exit', 'test/e2e/readme-screenshots.e2e.test.ts'], { cwd: root, stdio: 'inherit' });
if (test.status !== 0) {
  console.error(`the screenshot test failed (exit ${test.status}); docs/images/ is unchanged`);
  process.exit(1);
}

mkdirSync(images, { recursive: true });
for (const name of shots) {
  const from = path.join(results, `readme-${name}`);
  const png = readFileSync(from);
  // A PNG's IHDR chunk holds its width and height right after the 8-byte signature and the chunk header.
  console.log(`docs/images/${name}: ${png.readUInt32BE(16)}×${png.readUInt32BE(20)} px, ${png.length} bytes`);
  copyFileSync(from, path.join(images, name));
}
