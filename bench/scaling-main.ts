/**
 * Section 9 (scaling) of `npm run bench` alone, bundled like the rest:
 *
 *   npm run build && node esbuild.mjs --bench && node bench/.out/scaling.js
 *   CLIENT_TOOLS_SCALING_SECONDS=10 node bench/.out/scaling.js      shorter rounds (default 20 s)
 *   CLIENT_TOOLS_SCALING_REPLICAS=1,3 node bench/.out/scaling.js    some rounds only (default 1,2,3)
 *
 * Prints the section and writes bench/results/scaling.json.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RESULTS_DIR } from './lib/paths';
import { benchScaling, scalingLines } from './scaling';

async function main(): Promise<void> {
  const load = os.loadavg().map((l) => l.toFixed(2)).join(' ');
  process.stderr.write('[bench] 9. scaling…');
  const only = process.env.CLIENT_TOOLS_SCALING_REPLICAS?.split(',').map(Number);
  const scaling = await benchScaling(only ? { replicas: only } : {});
  process.stderr.write('\n');
  console.log([`${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${os.cpus().length} cores, Node ${process.version}, load average at start ${load}`, ...scalingLines(scaling)].join('\n'));
  const file = path.join(RESULTS_DIR, 'scaling.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify({ date: new Date().toISOString(), loadAverageAtStart: load, loadAverageAtEnd: os.loadavg(), scaling }, null, 2)}\n`);
}

main().then(
  () => process.exit(),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
