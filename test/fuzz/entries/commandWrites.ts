/**
 * Entry point: the extension from a terminal command's writes. A command the user approved (or what
 * it runs) can create, change and delete any number of files with any names and contents, and
 * another extension can hold any documents open; the extension watches while the command runs
 * (src/core/commandWrites.ts, src/vscode/host/commandWriteWatch.ts). A case is the open documents
 * when the command starts, the watcher's events, and what each file holds afterwards, every position
 * with every value class, up to 32 MiB in all (about 800,000 events). The events reach the process
 * under test (hosts/commandWritesHost.ts) in batches of 500, as VS Code's file watcher hands them on
 * (its throttled worker's chunks), each batch answered before the next; the documents too, before the
 * command starts (the editor holds them already: what is measured is the extension's work on them);
 * the case ends when the run's change list has every write the command's report holds.
 */
import type { WatchedChange } from '../../../src/core/commandWrites';
import type { CommandCase } from '../hosts/commandWritesHost';
import { planCases } from '../support/plan';
import type { Plant } from '../support/planted';
import type { EntryDriver } from '../support/runner';
import { shapeOf, type Json, type JsonSchema } from '../support/shape';
import { Target } from '../support/target';

const LIMIT = 32 * 1024 * 1024;
const BATCH = 500;
/**
 * Documents the editor holds open: the editor's own state, not the command's. Only another extension
 * could open hundreds of thousands, and one that can shares the extension host and could block it
 * outright; their texts (workspace files) are hostile, their number is not.
 */
const OPEN_DOCUMENTS = 10_000;

const text = { type: 'string' };
const SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    documents: { type: 'array', maxItems: OPEN_DOCUMENTS, items: { type: 'object', properties: { path: text, text, dirty: { type: 'boolean' } } } },
    events: { type: 'array', items: { type: 'object', properties: { change: { enum: ['created', 'changed', 'deleted'] }, path: text } } },
    files: { type: 'array', items: { type: 'object', properties: { path: text, text } } },
  },
};

/** The command changes `a`, which the editor held open and unchanged, and creates `b`. */
const SAMPLE: CommandCase = {
  documents: [{ path: 'a', text: 'line one\nline two\n', dirty: false }],
  events: [{ change: 'changed', path: 'a' }],
  files: [{ path: 'a', text: 'line one\nline 2\n' }],
};

/** `plant`: a defect planted in the process under test (planted.fuzz.ts). */
export function commandWrites(plant: Plant = 'none'): EntryDriver {
  return {
    name: 'extension from a terminal command\'s writes',
    start: () => Target.start('commandWritesHost.ts', { plant }),
    cases: () => planCases('extension from a terminal command\'s writes', [{ message: 'command', shape: shapeOf(SCHEMA), limit: LIMIT, fixed: () => SAMPLE as unknown as Json }]),
    async run(c, target) {
      // What VS Code hands on is strings (a document's text, a Uri's path): a structure where one goes cannot arrive.
      const command = JSON.parse(c.text()) as { [K in keyof CommandCase]?: unknown };
      const list = <T>(v: unknown, keep: (item: Record<string, unknown>) => T | undefined): T[] => (Array.isArray(v) ? v.flatMap((item: unknown) => (item !== null && typeof item === 'object' ? (keep(item as Record<string, unknown>) ?? []) : [])) : []);
      const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
      const documents = list(command.documents, (d) => (str(d.path) !== undefined && str(d.text) !== undefined ? { path: d.path as string, text: d.text as string, dirty: d.dirty === true } : undefined));
      const events = list(command.events, (e) => (str(e.path) !== undefined && str(e.change) !== undefined ? { change: e.change as WatchedChange, path: e.path as string } : undefined));
      const files = list(command.files, (f) => (str(f.path) !== undefined && str(f.text) !== undefined ? { path: f.path as string, text: f.text as string } : undefined));
      for (let i = 0; i < documents.length; i += BATCH) await target.request('documents', { batch: documents.slice(i, i + BATCH) }, 30_000);
      const kept = await target.request<number>('begin', undefined, 30_000);
      for (let i = 0; i < events.length; i += BATCH) await target.request('events', { batch: events.slice(i, i + BATCH) }, 30_000);
      for (let i = 0; i < files.length; i += BATCH) await target.request('files', { batch: files.slice(i, i + BATCH) }, 30_000);
      const outcome = await target.request<string>('end', undefined, 30_000);
      return `${kept} open texts kept; ${outcome}`;
    },
    stop: async () => {},
  };
}
