/**
 * The shipped backend bundle downscales images through its own worker: dist/backend/index.js,
 * required by plain Node (no tsx, so the worker cannot come from the TypeScript source), finds
 * dist/backend/imageWorker.js beside itself and sends the model the downscaled PNG.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { PNG } from 'pngjs';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../..');
const BUNDLE = path.join(ROOT, 'dist/backend/index.js');
const WORKER = path.join(ROOT, 'dist/backend/imageWorker.js');

// Runs in a child `node`: an OpenAIChatModel from the bundle whose fetch keeps the request body.
const CHILD = `
const { OpenAIChatModel } = require(process.argv[1]);
const bytes = new Uint8Array(require('node:fs').readFileSync(process.argv[2]));
let body;
const model = new OpenAIChatModel({ model: 'gpt-4o', apiKey: 'sk-x', maxRetries: 0, imageMaxSide: 100,
  fetch: async (_url, init) => { body = JSON.parse(init.body); throw new Error('no network in this test'); } });
(async () => {
  const messages = [
    { role: 'user', content: 'read it' },
    { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'ReadFile', arguments: '{}' }] },
    { role: 'tool', toolCallId: 'c1', toolName: 'ReadFile', content: [{ type: 'binary', mimeType: 'image/png', filename: 'wide.png', bytes }] },
  ];
  try { for await (const _ of model.stream({ messages, tools: [] }, new AbortController().signal)); } catch {}
  process.stdout.write(JSON.stringify(body.messages.slice(-2)));
})();
`;

describe('backend bundle: images', () => {
  let dir: string;
  before(async function () {
    this.timeout(120_000);
    if (!existsSync(BUNDLE) || !existsSync(WORKER)) await run(process.execPath, ['esbuild.mjs'], { cwd: ROOT });
    dir = mkdtempSync(path.join(tmpdir(), 'ct-bundle-images-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('dist/backend/index.js, run by plain Node, downscales a PNG through dist/backend/imageWorker.js', async function () {
    this.timeout(60_000);
    const png = new PNG({ width: 400, height: 200 });
    png.data.fill(200);
    const file = path.join(dir, 'wide.png');
    writeFileSync(file, PNG.sync.write(png));
    const { stdout } = await run(process.execPath, ['-e', CHILD, BUNDLE, file], { cwd: dir, env: { ...process.env, NODE_OPTIONS: '' } });
    const [tool, user] = JSON.parse(stdout) as [{ content: string }, { content: { type: string; image_url?: { url: string } }[] }];
    assert.match(tool.content, /^\[wide\.png: image\/png, \d+ bytes; image 1 below, downscaled from 400x200 to 100x50\]$/);
    const url = user.content[1].image_url?.url ?? '';
    assert.match(url, /^data:image\/png;base64,/);
    const sent = PNG.sync.read(Buffer.from(url.slice('data:image/png;base64,'.length), 'base64'));
    assert.deepEqual([sent.width, sent.height], [100, 50]);
  });
});
