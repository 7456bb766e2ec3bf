/**
 * The host's copy of the transcript the chat view shows, item by item: the view sends what changed
 * (`transcriptPatch`, src/protocol/webview.ts) instead of the whole transcript every second, and the
 * copy gives back the same JSON text a whole save would, for the thread index to write as before.
 * A patch is the view's word, so it is checked: one that does not fit the copy (another revision,
 * an index out of range, an item that is not a JSON object) is refused with a coded error and
 * leaves the copy as it was; the caller asks the view for the whole transcript.
 */
import { ErrorCode } from '../../protocol/errors';
import { MAX_TRANSCRIPT_CHARS, MAX_TRANSCRIPT_ITEMS, type TranscriptPatch } from '../../protocol/webview';

export type PatchResult = { ok: true; json: string } | { ok: false; code: typeof ErrorCode.InvalidMessage; message: string };

interface Copy {
  threadId: string;
  revision: number;
  items: string[];
  rest: string;
}

export class TranscriptCopy {
  private copy: Copy | undefined;

  /** Applies `patch`; on success the transcript's JSON text as a whole save of it would be. */
  apply(patch: TranscriptPatch): PatchResult {
    const next = patch.base === null ? this.snapshot(patch) : this.change(patch);
    if (typeof next === 'string') {
      // A whole transcript that does not hold is not kept either: the next patch needs a new one.
      if (patch.base === null) this.copy = undefined;
      return { ok: false, code: ErrorCode.InvalidMessage, message: next };
    }
    // The JSON text is bounded as a whole save was (the thread index would not write a longer one).
    const json = transcriptText(next);
    if (json.length > MAX_TRANSCRIPT_CHARS) {
      if (patch.base === null) this.copy = undefined;
      return { ok: false, code: ErrorCode.InvalidMessage, message: `the transcript would be ${json.length} characters, over ${MAX_TRANSCRIPT_CHARS}` };
    }
    this.copy = next;
    return { ok: true, json };
  }

  /** Forgets the copy (its thread was deleted): the next patch for it is refused. */
  forget(threadId: string): void {
    if (this.copy?.threadId === threadId) this.copy = undefined;
  }

  private snapshot(patch: TranscriptPatch): Copy | string {
    if (patch.drop !== 0 || patch.keep !== 0 || patch.set.length > 0) return 'a whole transcript drops, keeps or replaces nothing';
    if (patch.rest === undefined) return 'a whole transcript has its rest';
    const bad = badTexts(patch.append, patch.rest);
    if (bad) return bad;
    return { threadId: patch.threadId, revision: patch.revision, items: patch.append.slice(), rest: patch.rest };
  }

  private change(patch: TranscriptPatch): Copy | string {
    const copy = this.copy;
    if (copy === undefined || copy.threadId !== patch.threadId) return `no copy of this thread to patch (revision ${patch.base})`;
    if (patch.base !== copy.revision) return `the patch is for revision ${patch.base}, the copy is at ${copy.revision}`;
    if (patch.revision <= copy.revision) return `revision ${patch.revision} does not follow ${copy.revision}`;
    if (patch.drop + patch.keep > copy.items.length) return `drops ${patch.drop} and keeps ${patch.keep} of ${copy.items.length} items`;
    if (patch.keep + patch.append.length > MAX_TRANSCRIPT_ITEMS) return `over ${MAX_TRANSCRIPT_ITEMS} items`;
    for (const [index] of patch.set) if (index >= patch.keep) return `replaces item ${index} of the ${patch.keep} kept`;
    const bad = badTexts([...patch.set.map(([, text]) => text), ...patch.append], patch.rest);
    if (bad) return bad;
    const items = copy.items.slice(patch.drop, patch.drop + patch.keep);
    for (const [index, text] of patch.set) items[index] = text;
    items.push(...patch.append);
    return { threadId: copy.threadId, revision: patch.revision, items, rest: patch.rest ?? copy.rest };
  }
}

/** `{"items":[…],…rest}`: the items joined as they came, then the rest's keys. */
function transcriptText(copy: Copy): string {
  const inner = copy.rest.trim().slice(1, -1).trim();
  return `{"items":[${copy.items.join(',')}]${inner === '' ? '' : `,${inner}`}}`;
}

/** Each text must be one JSON object (so joining them cannot make anything else); the rest one without `items`. */
function badTexts(items: readonly string[], rest: string | undefined): string | undefined {
  for (let i = 0; i < items.length; i++) if (parsedObject(items[i]) === undefined) return `item text ${i} is not a JSON object`;
  if (rest === undefined) return undefined;
  const parsed = parsedObject(rest);
  return parsed === undefined || Object.hasOwn(parsed, 'items') ? 'the rest is not a JSON object without items' : undefined;
}

function parsedObject(text: string): object | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
