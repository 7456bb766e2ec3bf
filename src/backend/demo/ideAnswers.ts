/**
 * The demo model's answers from the Search, Language, SourceControl and Tasks groups' results
 * ("find usages of greet", "search for TODO", "what changed?", "what tasks are there?"): a sentence
 * and the first few items, read defensively from whatever JSON the tool returned.
 */
import { code, count, firstString, objects, strings, type Json } from './demoText';

/** Items an answer lists before "and N more". */
const SHOWN = 10;

export function describeReferences(symbol: string, v: Json): string {
  const places = objects(v.locations);
  if (places.length === 0) return `I found no uses of ${code(symbol)}.`;
  const total = typeof v.total === 'number' ? v.total : places.length;
  return `${code(symbol)} appears in ${count(total, 'place')}:\n\n${lines(places.map((p) => located(p)), total)}`;
}

export function describeSearch(query: string, v: Json): string {
  const matches = objects(v.matches);
  const total = typeof v.matchingLines === 'number' ? v.matchingLines : matches.length;
  if (matches.length === 0) return `Nothing in the workspace matches ${code(query)}.`;
  const files = typeof v.files === 'number' ? ` in ${count(v.files, 'file')}` : '';
  const partial = v.complete === false ? ' (the search stopped early, so there may be more)' : '';
  return `${count(total, 'line')} match${total === 1 ? 'es' : ''} ${code(query)}${files}${partial}:\n\n${lines(matches.map((m) => located(m)), total)}`;
}

export function describeGitChanges(v: Json): string {
  const branch = firstString(v.branch);
  const on = branch ? `On branch ${code(branch)}` : 'With a detached HEAD';
  const kinds: [string, string][] = [['staged', 'staged'], ['unstaged', 'changed'], ['untracked', 'untracked'], ['conflicts', 'in conflict']];
  const parts = kinds.map(([key, word]) => [strings(v[key]), word] as const).filter(([files]) => files.length > 0);
  if (parts.length === 0) return `${on}, nothing has changed.`;
  return `${on}:\n\n${parts.map(([files, word]) => `- ${count(files.length, 'file')} ${word}: ${files.slice(0, SHOWN).join(', ')}${files.length > SHOWN ? ` and ${files.length - SHOWN} more` : ''}`).join('\n')}`;
}

export function describeTasks(v: Json): string {
  const tasks = objects(v.tasks);
  if (tasks.length === 0) return 'The workspace has no tasks.';
  const named = tasks.map((t) => {
    const how = firstString(t.command);
    return `${firstString(t.name) ?? '?'} (${firstString(t.source) ?? '?'}${how ? `: ${code(how)}` : ''})`;
  });
  return `The workspace has ${count(tasks.length, 'task')}:\n\n${lines(named, tasks.length)}`;
}

/** "path:line:col `text`" for a location or a match. */
function located(item: Json): string {
  const where = firstString(item.location) ?? '?';
  const text = firstString(item.text);
  return text ? `${where} ${code(text.trim())}` : where;
}

function lines(items: string[], total: number): string {
  const shown = items.slice(0, SHOWN).map((i) => `- ${i}`).join('\n');
  return total > Math.min(items.length, SHOWN) ? `${shown}\n- … and ${total - Math.min(items.length, SHOWN)} more` : shown;
}
