/**
 * Sections 6 (soak) and 7 (attacks) of `npm run bench` alone, bundled like the rest:
 *
 *   npm run build && node esbuild.mjs --bench && node bench/.out/resilience.js
 *   CLIENT_TOOLS_SOAK_SECONDS=10 node bench/.out/resilience.js     a short soak
 *
 * Prints the two sections and writes bench/results/resilience.json.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { benchAttacks } from './attacks';
import { benchExtensionAttacks } from './extensionAttacks';
import { RESULTS_DIR } from './lib/paths';
import { attackLines, soakLines } from './resilienceReport';
import { benchSoak } from './soak';

async function main(): Promise<void> {
  process.stderr.write('[bench] 6. soak…\n');
  const soak = await benchSoak();
  process.stderr.write('[bench] 7. attacks…\n');
  const attacks = [...(await benchAttacks()), ...(await benchExtensionAttacks())];
  console.log([...soakLines(soak), '', ...attackLines(attacks)].join('\n'));
  const file = path.join(RESULTS_DIR, 'resilience.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify({ date: new Date().toISOString(), soak, attacks }, null, 2)}\n`);
}

main().then(
  () => process.exit(),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
