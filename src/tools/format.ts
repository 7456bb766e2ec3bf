/** Small text helpers shared by the IDE tools. */

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

/** "1 entry", "37 entries". */
export function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/**
 * Makes backend text safe to show in a VS Code notification or prompt: VS Code renders
 * `[label](target)` there as a link, and a `command:` target runs a command when clicked. Links
 * become their label (web links keep their address as plain text), any remaining `command:` is
 * broken up, and control and bidirectional-override characters (which can disguise text) are removed.
 */
export function sanitizeForNotification(text: string, maxLength = 2000): string {
  let s = text.replace(/[\u0000-\u0008\u000b-\u001f\u007f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '');
  // [label](target "title") → label, or "label (https://…)" for a web link; nested brackets are not links.
  // Repeated because removing an inner link can complete an outer one: [[a](x)](command:y).
  for (let pass = 0; pass < 5; pass++) {
    const before = s;
    s = s.replace(/\[([^\[\]]*)\]\(\s*<?([^)>\s]*)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g, (_m, label: string, target: string) => {
      const shown = label.trim() || target;
      return /^https?:\/\//i.test(target) && shown !== target ? `${shown} (${target})` : shown;
    });
    if (s === before) break;
  }
  // No link syntax may survive: separate "](" and break the command: scheme wherever it appears.
  s = s.replace(/\]\s*\(/g, '] (');
  s = s.replace(/command\s*:/gi, 'command\u2009:');
  s = s.replace(/\s+$/g, '');
  return s.length > maxLength ? `${s.slice(0, maxLength - 1)}…` : s;
}
