/**
 * The fuzzer's table: per entry point the cases run, the failures, the worst stall and the case
 * that caused it, the heap after GC at the start and the end, and the RSS at the start, at its
 * peak and at the end; then every failure.
 */
import { mib, STALL_MS, type EntryReport } from './runner';

export function reportLines(reports: readonly EntryReport[]): string[] {
  const header = ['entry point', 'cases run of planned', 'failed', 'worst stall', 'heap after GC start → end', 'RSS start / peak / end', 'time'];
  const rows = reports.map((r) => {
    const worst = r.cases.reduce((a, b) => (b.stallMs > a.stallMs ? b : a), r.cases[0]);
    const failed = r.cases.filter((c) => c.failure).length;
    return [
      r.entry,
      `${r.cases.length} of ${r.planned}${r.skipped ? ` (${r.skipped} skipped)` : ''}`,
      String(failed),
      worst ? `${Math.round(worst.stallMs)} ms, wall ${Math.round(worst.wallMs)} ms (${worst.message} · ${worst.position} · ${worst.value})` : '-',
      `${mib(r.heapStart)} → ${mib(r.heapEnd)}`,
      `${mib(r.rssStart)} / ${mib(r.rssPeak)} / ${mib(r.rssEnd)}`,
      `${r.seconds.toFixed(0)} s`,
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  const out = [`Freeze-and-bloat fuzzer: a case fails when a health probe waits over ${STALL_MS} ms (counted in the target's own CPU time), or memory does not come back`, line(header), line(widths.map((w) => '-'.repeat(w)))];
  out.push(...rows.map(line));
  for (const r of reports) {
    for (const c of r.cases.filter((x) => x.failure)) out.push(`FAILED ${r.entry} · ${c.message} · ${c.position} · ${c.value}: ${c.failure} (outcome: ${c.outcome})`);
    if (r.restarts) out.push(`${r.entry}: the target was restarted ${r.restarts} time(s) after it died or froze`);
  }
  return out;
}
