#!/usr/bin/env node
// Draws the marketplace icon, media/icon.png (256×256), from the activity bar's media/icon.svg: the
// same chat bubble with `</>` inside, white on a blue rounded square (the gallery banner's colour,
// package.json `galleryBanner.color`). The marketplace takes no SVG icon. Rendered by the Chromium the
// UI tests use (Debian's, through playwright-core), so it needs nothing else installed.
//   node scripts/make-icon.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { PNG } from 'pngjs';
import { CHROMIUM_ARGS, DEFAULT_CHROMIUM } from './vscode-harness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SIZE = 256;
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const background = manifest.galleryBanner?.color ?? '#0b5cad';

const paths = [...readFileSync(path.join(root, 'media', 'icon.svg'), 'utf8').matchAll(/<path d="([^"]+)"\s*\/>/g)].map((m) => m[1]);
if (paths.length === 0) throw new Error('media/icon.svg has no <path d="…"/> to draw');

// The bubble spans x 2.5–21.5 and y 4.5–21 of the 24-unit box: centred and scaled into the square.
const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}" viewBox="0 0 24 24">
  <defs><linearGradient id="bg" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#ffffff" stop-opacity="0.14"/><stop offset="1" stop-color="#000000" stop-opacity="0.12"/></linearGradient></defs>
  <rect width="24" height="24" rx="5" fill="${background}"/>
  <rect width="24" height="24" rx="5" fill="url(#bg)"/>
  <g transform="translate(12 12) scale(0.8) translate(-12 -12.75)" fill="none" stroke="#ffffff" stroke-width="1.6" stroke-linecap="round" stroke-linejoin="round">
    ${paths.map((d) => `<path d="${d}"/>`).join('\n    ')}
  </g>
</svg>`;

const browser = await chromium.launch({ executablePath: DEFAULT_CHROMIUM, headless: true, args: CHROMIUM_ARGS });
try {
  const page = await browser.newPage({ viewport: { width: SIZE, height: SIZE }, deviceScaleFactor: 1 });
  await page.setContent(`<!doctype html><html><body style="margin:0;background:transparent">${svg}</body></html>`);
  const png = await page.locator('svg').screenshot({ omitBackground: true });
  const decoded = PNG.sync.read(png);
  if (decoded.width !== SIZE || decoded.height !== SIZE) throw new Error(`rendered ${decoded.width}×${decoded.height}, not ${SIZE}×${SIZE}`);
  writeFileSync(path.join(root, 'media', 'icon.png'), png);
  console.log(`media/icon.png: ${SIZE}×${SIZE} px, ${png.length} bytes`);
} finally {
  await browser.close();
}
