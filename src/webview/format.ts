/** Labels and numbers as the chat shows them. Pure functions, tested in Node. */
import type { CardStatus } from './state';

export const STATUS_LABEL: Record<CardStatus, string> = {
  pending: 'Pending',
  'awaiting-permission': 'Awaiting permission',
  running: 'Running',
  succeeded: 'Succeeded',
  failed: 'Failed',
  denied: 'Denied',
  skipped: 'Skipped',
  cancelled: 'Cancelled',
};

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return `${minutes} min ${seconds} s`;
}

/** "1,234 bytes of application/pdf" */
export function describeBinary(byteLength: number, mimeType: string): string {
  return `${byteLength.toLocaleString('en-US')} byte${byteLength === 1 ? '' : 's'} of ${mimeType}`;
}

/** 340, 1.2k, 12k, 1.2M: token counts at a glance. */
export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 10_000) return `${trimZero((n / 1000).toFixed(1))}k`;
  if (n < 1_000_000) return `${Math.round(n / 1000)}k`;
  return `${trimZero((n / 1_000_000).toFixed(1))}M`;
}

function trimZero(s: string): string {
  return s.endsWith('.0') ? s.slice(0, -2) : s;
}

export interface TokenCountsLike {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens?: number;
}

/** "1.2k in · 340 out · 800 cached" (cached only when some were). */
export function describeUsage(u: TokenCountsLike): string {
  const parts = [`${formatTokens(u.inputTokens)} in`, `${formatTokens(u.outputTokens)} out`];
  if (u.cachedInputTokens) parts.push(`${formatTokens(u.cachedInputTokens)} cached`);
  return parts.join(' · ');
}

/** The same in words with exact numbers, for screen readers and tooltips. */
export function describeUsageInWords(u: TokenCountsLike): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const tokens = (x: number, kind: string) => `${n(x)} ${kind} token${x === 1 ? '' : 's'}`;
  const cached = u.cachedInputTokens ? ` (${n(u.cachedInputTokens)} of them cached)` : '';
  return `${tokens(u.inputTokens, 'input')}${cached}, ${tokens(u.outputTokens, 'output')}`;
}

const MAX_LISTED_TOOLS = 8;

/** "IDE expanded: OpenFile, ReadFile" */
export function describeExpansion(group: string, tools: string[], skill?: string): string {
  const head = skill ? `${group} expanded (skill ${skill})` : `${group} expanded`;
  if (tools.length === 0) return head;
  const listed = tools.slice(0, MAX_LISTED_TOOLS).join(', ');
  const more = tools.length > MAX_LISTED_TOOLS ? `, +${tools.length - MAX_LISTED_TOOLS} more` : '';
  return `${head}: ${listed}${more}`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY_MS = 24 * 60 * 60 * 1000;

/** A thread's date in the history list, in local time: "14:05" today, "Yesterday 09:30", else "Nov 3, 2026". */
export function formatThreadDate(ms: number, now: number): string {
  const d = new Date(ms);
  const time = `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
  const startOfToday = new Date(now).setHours(0, 0, 0, 0);
  if (ms >= startOfToday) return time;
  if (ms >= startOfToday - DAY_MS) return `Yesterday ${time}`;
  return `${MONTHS[d.getMonth()]} ${d.getDate()}, ${d.getFullYear()}`;
}
