/**
 * A process with a planted defect, for the fuzzer's own test (test/fuzz/planted.fuzz.ts): it reads
 * each message it is given and looks at every string in it, as a parser does. `freeze` plants the
 * class the token counter had (work quadratic in a run of one character), `leak` keeps every
 * message it read, `none` plants nothing. The fuzzer must fail the first two and pass the third.
 *
 *   argv: {"plant": "none" | "freeze" | "leak"}
 */
import { onRequest, ready, serveHealth } from '../support/hostAgent';
import { longestRunSlowly, strings, type Plant } from '../support/planted';

const kept: unknown[] = [];

async function main(): Promise<void> {
  const { plant } = JSON.parse(process.argv[2]) as { plant: Plant };
  onRequest('take', (payload) => {
    let message: unknown;
    try {
      message = JSON.parse(payload as string);
    } catch {
      return 'refused: not JSON';
    }
    if (plant === 'leak') kept.push(message);
    let longest = 0;
    strings(message, (s) => (longest = Math.max(longest, plant === 'freeze' ? longestRunSlowly(s) : Math.min(s.length, 1))));
    return `read (${longest})`;
  });
  ready({ healthUrl: await serveHealth() });
}

void main();
