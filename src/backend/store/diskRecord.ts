/**
 * A record as the log holds it: JSON, with binary content replaced by a reference to a blob file
 * (`blob`: the SHA-256 of its bytes), so images do not bloat the log nor get re-read with every
 * scan. What is read back is parsed with a schema: a file in the data folder is input like any other.
 */
import { z } from 'zod';
import { Schemas } from '../../protocol';
import type { ContentItem } from '../../protocol';
import type { ChatMessage } from '../model/chatModel';
import type { StoredRecord } from './conversationStore';

const BlobContent = z.object({
  type: z.literal('binary'),
  mimeType: z.string().min(1).max(200).regex(/^[\w.+-]+\/[\w.+-]+$/),
  filename: z.string().max(1000).optional(),
  byteLength: z.number().int().nonnegative(),
  blob: z.string().regex(/^[0-9a-f]{64}$/),
});
type BlobContent = z.infer<typeof BlobContent>;
const DiskContent = z.discriminatedUnion('type', [Schemas.TextContent, Schemas.JsonContent, BlobContent]);
type DiskContent = z.infer<typeof DiskContent>;

const ToolCall = z.object({ id: z.string(), name: z.string(), arguments: z.string() });
const DiskMessage = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({ role: z.literal('user'), content: z.string(), runId: z.string().max(200).optional() }),
  z.object({ role: z.literal('assistant'), content: z.string(), toolCalls: z.array(ToolCall).optional() }),
  z.object({ role: z.literal('tool'), toolCallId: z.string(), toolName: z.string(), content: z.array(DiskContent), errorCode: z.string().optional() }),
]);
type DiskMessage = z.infer<typeof DiskMessage>;

export const DiskRecord = z.discriminatedUnion('kind', [
  /** The first record of every file: which thread it holds (file names are digests of the id). */
  z.object({ kind: z.literal('thread'), threadId: z.string().min(1).max(1000), createdAt: z.number() }),
  z.object({ kind: z.literal('message'), message: DiskMessage }),
  z.object({
    kind: z.literal('toolState'),
    state: z.object({ expanded: z.array(z.string()), skills: z.array(z.object({ group: z.string(), skill: z.string() })) }),
  }),
  z.object({
    kind: z.literal('run'),
    run: z.discriminatedUnion('status', [
      z.object({ runId: z.string(), status: z.literal('started') }),
      z.object({ runId: z.string(), status: z.literal('finished'), reason: Schemas.FinishReason }),
    ]),
  }),
  z.object({ kind: z.literal('historyReset') }),
]);
export type DiskRecord = z.infer<typeof DiskRecord>;

/** The record or undefined when the payload is not one (not JSON, or not a record's shape). */
export function parseDiskRecord(payload: Buffer): DiskRecord | undefined {
  try {
    const parsed = DiskRecord.safeParse(JSON.parse(payload.toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The record to write, its binary items swapped for references made by `putBlob` (which writes the bytes first). */
export async function toDiskRecord(record: StoredRecord, putBlob: (bytes: Uint8Array) => Promise<string>): Promise<DiskRecord> {
  if (record.kind !== 'message') return record;
  if (record.message.role !== 'tool') return { kind: 'message', message: record.message };
  const content: DiskContent[] = [];
  for (const c of record.message.content) {
    if (c.type !== 'binary') content.push(c);
    else content.push({ type: 'binary', mimeType: c.mimeType, ...(c.filename !== undefined ? { filename: c.filename } : {}), byteLength: c.bytes.byteLength, blob: await putBlob(c.bytes) });
  }
  return { kind: 'message', message: { ...record.message, content } };
}

/** The record as the agent uses it, blobs read back by `getBlob` (undefined: gone, so a placeholder says so). */
export async function fromDiskRecord(record: Exclude<DiskRecord, { kind: 'thread' }>, getBlob: (ref: BlobContent) => Promise<Uint8Array<ArrayBuffer> | undefined>): Promise<StoredRecord> {
  if (record.kind !== 'message') return record;
  return { kind: 'message', message: await hydrate(record.message, getBlob) };
}

async function hydrate(message: DiskMessage, getBlob: (ref: BlobContent) => Promise<Uint8Array<ArrayBuffer> | undefined>): Promise<ChatMessage> {
  if (message.role !== 'tool') return message;
  const content: ContentItem[] = [];
  for (const c of message.content) {
    if (c.type !== 'binary') {
      content.push(c);
      continue;
    }
    const bytes = await getBlob(c);
    const name = c.filename !== undefined ? `${c.filename}: ` : '';
    if (bytes) content.push({ type: 'binary', mimeType: c.mimeType, ...(c.filename !== undefined ? { filename: c.filename } : {}), bytes });
    else content.push({ type: 'text', text: `[${name}${c.mimeType}, ${c.byteLength} bytes: no longer stored]` });
  }
  return { ...message, content };
}

export type { BlobContent };
