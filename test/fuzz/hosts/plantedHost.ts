/**
 * A process with a planted defect, for the fuzzer's own test (test/fuzz/planted.fuzz.ts): it reads
 * each message it is given and looks at every string in it, as a parser does. `freeze` plants the
 * class the token counter had (work quadratic in a run of one character), `leak` keeps every
 * message it read, `none` plants nothing. The fuzzer must fail the first two and pass the third.
 *
 *   argv: {"plant": "none" | "freeze" | "leak"}
 */
import { onRequest, ready, serveHealth } from '../support/hostAgent';

type Plant = 'none' | 'freeze' | 'leak';

const kept: unknown[] = [];

/** The longest run of one character, found the quadratic way (from every fourth character: a 64 KiB run is about half a second, 1 KiB nothing). */
function longestRunSlowly(s: string): number {
  let longest = 0;
  for (let i = 0; i < s.length; i += 4) {
    let j = i;
    while (j < s.length && s.charCodeAt(j) === s.charCodeAt(i)) j++;
    longest = Math.max(longest, j - i);
  }
  return longest;
}

function strings(value: unknown, visit: (s: string) => void): void {
  const stack = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') visit(v);
    else if (v !== null && typeof v === 'object') stack.push(...Object.values(v));
  }
}

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
