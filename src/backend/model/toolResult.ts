/**
 * A tool result as both OpenAI wires send it (Chat Completions and Responses): the text the model
 * reads in the tool message, and the images that follow the batch of results in a user message (the
 * wires take images only there). One home, so the two adapters cannot drift apart.
 */
import type { ContentItem } from '../../protocol';
import { safeJson } from './client';
import { imageNote, isModelImage, prepareImage, type ImageLimits } from './images';

const TEXT_MIME = /^(text\/[\w.+-]+|application\/(json|xml|javascript|x-yaml|yaml|x-sh)|[\w.+-]+\/[\w.+-]+\+(json|xml))$/;
/** Largest binary result decoded as text for the model. */
const MAX_TEXT_BINARY = 256 * 1024;

export interface ModelToolResult {
  text: string;
  /** `data:` URLs of the images to send after the batch, scaled down to the limits. */
  imageUrls: string[];
}

/**
 * The result's text and images. `imagesBefore` counts the images of the batch so far, so each binary
 * item's label says which image of the following message is its own (or why none is).
 */
export async function toModelToolResult(content: readonly ContentItem[], limits: ImageLimits | undefined, imagesBefore: number): Promise<ModelToolResult> {
  const notes = new Map<ContentItem, string>();
  const imageUrls: string[] = [];
  if (limits) {
    for (const c of content) {
      if (!isModelImage(c)) continue;
      const image = await prepareImage(c.bytes, limits);
      if (image.ok) imageUrls.push(`data:${image.mimeType};base64,${Buffer.from(image.bytes).toString('base64')}`);
      notes.set(c, imageNote(image, imagesBefore + imageUrls.length));
    }
  }
  return { text: toolResultText(content, notes), imageUrls };
}

/**
 * A tool result as the text a chat model reads (the agent already put any error sentence into
 * `content`). `notes` adds a sentence to a binary item's label, e.g. where its image went.
 */
export function toolResultText(content: readonly ContentItem[], notes?: ReadonlyMap<ContentItem, string>): string {
  const parts = content.map((c) => {
    switch (c.type) {
      case 'text':
        return c.text;
      case 'json':
        return safeJson(c.value);
      case 'binary': {
        const note = notes?.get(c);
        const label = `[${c.filename ? `${c.filename}: ` : ''}${c.mimeType}, ${c.bytes.byteLength} bytes${note ? `; ${note}` : ''}]`;
        if (TEXT_MIME.test(c.mimeType) && c.bytes.byteLength <= MAX_TEXT_BINARY) return `${label}\n${Buffer.from(c.bytes).toString('utf8')}`;
        return label;
      }
    }
  });
  return parts.join('\n') || '(no content)';
}
