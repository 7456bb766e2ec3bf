import { strict as assert } from 'node:assert';
import { PNG } from 'pngjs';
import type { ChatRequestMessage } from '../../../support/fake-openai';
import type { Harness } from '../../../support/backend-harness';
import { harness } from '../../../support/backend-harness';

/** A `width`×`height` opaque green PNG. */
function greenPng(width: number, height: number): Uint8Array<ArrayBuffer> {
  const png = new PNG({ width, height });
  for (let i = 0; i < png.data.length; i += 4) png.data.set([0, 200, 0, 255], i);
  return new Uint8Array(PNG.sync.write(png));
}

/** The model reads a PNG a client tool returned: the second request holds what reached it. */
async function readLogo(h: Harness, bytes: Uint8Array<ArrayBuffer>): Promise<ChatRequestMessage[]> {
  h.fake.enqueue({ toolCalls: [{ name: 'ReadFile', id: 'call_read', arguments: { path: 'logo.png' } }] }, { text: 'A green rectangle.' });
  h.client.autoAnswer(() => ({ success: true, content: [{ type: 'binary', mimeType: 'image/png', filename: 'logo.png', bytes }] }));
  const { finished } = await h.client.run('t1', 'what is in logo.png?');
  assert.equal(finished.reason, 'completed');
  assert.equal(h.fake.requests.length, 2);
  return h.fake.requests[1].body.messages;
}

describe('backend agent: images from client tools reach the model', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('a vision model (gpt-4o, vision auto) gets the PNG downscaled as an image part in a user message after the tool result', async () => {
    h = await harness({}, { preExpanded: ['IDE'] }, { model: 'gpt-4o' });
    const bytes = greenPng(2000, 1000);
    const messages = await readLogo(h, bytes);
    const tool = messages.findIndex((m) => m.role === 'tool');
    assert.equal(messages[tool].content, `[logo.png: image/png, ${bytes.length} bytes; image 1 below, downscaled from 2000x1000 to 1568x784]`);
    const next = messages[tool + 1];
    assert.equal(next.role, 'user');
    assert.ok(Array.isArray(next.content));
    assert.deepEqual(next.content[0], { type: 'text', text: 'Images returned by the tool calls above:' });
    const url = next.content[1].image_url?.url ?? '';
    assert.match(url, /^data:image\/png;base64,/);
    const sent = PNG.sync.read(Buffer.from(url.slice(url.indexOf(',') + 1), 'base64'));
    assert.deepEqual([sent.width, sent.height], [1568, 784]);
    assert.deepEqual([...sent.data.subarray(0, 4)], [0, 200, 0, 255]);
  });

  it('a model not known for vision (vision auto) gets the text placeholder and no image part', async () => {
    h = await harness({}, { preExpanded: ['IDE'] }, { model: 'llama3.1' });
    const bytes = greenPng(64, 64);
    const messages = await readLogo(h, bytes);
    assert.equal(messages.find((m) => m.role === 'tool')?.content, `[logo.png: image/png, ${bytes.length} bytes]`);
    assert.ok(!messages.some((m) => Array.isArray(m.content)), 'no message with content parts');
  });

  it('vision on sends the image to any model, as it is when it fits; vision off keeps it from a vision model', async () => {
    h = await harness({}, { preExpanded: ['IDE'] }, { model: 'llama3.1', vision: 'on' });
    const bytes = greenPng(64, 32);
    const messages = await readLogo(h, bytes);
    assert.equal(messages.find((m) => m.role === 'tool')?.content, `[logo.png: image/png, ${bytes.length} bytes; image 1 below, 64x32]`);
    const parts = messages.find((m) => Array.isArray(m.content))?.content;
    assert.ok(Array.isArray(parts));
    assert.equal(parts[1].image_url?.url, `data:image/png;base64,${Buffer.from(bytes).toString('base64')}`);
    await h.close();

    h = await harness({}, { preExpanded: ['IDE'] }, { model: 'gpt-4o', vision: 'off' });
    const off = await readLogo(h, bytes);
    assert.equal(off.find((m) => m.role === 'tool')?.content, `[logo.png: image/png, ${bytes.length} bytes]`);
    assert.ok(!off.some((m) => Array.isArray(m.content)));
  });
});
