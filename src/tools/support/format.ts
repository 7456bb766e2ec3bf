/** Small text helpers shared by the built-in tools. */

/** 1234 → "1.2 KB"; 1024-based, one decimal below 10 units. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** Equal apart from line endings (the editor may normalise them): a proposal that is the file as it is. */
export function sameText(a: string, b: string): boolean {
  return a.replace(/\r\n?/g, '\n') === b.replace(/\r\n?/g, '\n');
}

/** "1 entry", "37 entries". */
export function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** Characters of a source line a result shows (search hits, context lines, language results). */
export const MAX_LINE_CHARS = 400;

/** At most MAX_LINE_CHARS of a line, keeping the part around `index` (a match) in view. */
export function clipAround(line: string, index: number): string {
  if (line.length <= MAX_LINE_CHARS) return line;
  const start = Math.max(0, Math.min(index - Math.floor(MAX_LINE_CHARS / 4), line.length - MAX_LINE_CHARS));
  return `${start > 0 ? '…' : ''}${line.slice(start, start + MAX_LINE_CHARS)}${start + MAX_LINE_CHARS < line.length ? '…' : ''}`;
}
