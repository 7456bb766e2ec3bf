/**
 * Defects the fuzzer's own tests plant in a process under test (planted.fuzz.ts): work quadratic in a
 * run of one character (the class the token counter had) over every string of what the process
 * read, and a store that keeps every message it read. A host plants them where it reads its input,
 * so that the test proves the fuzzer finds them through that entry point's cases.
 */

export type Plant = 'none' | 'freeze' | 'leak';

/** The longest run of one character, found the quadratic way (from every fourth character: a 64 KiB run is about half a second, 1 KiB nothing). */
export function longestRunSlowly(s: string): number {
  let longest = 0;
  for (let i = 0; i < s.length; i += 4) {
    let j = i;
    while (j < s.length && s.charCodeAt(j) === s.charCodeAt(i)) j++;
    longest = Math.max(longest, j - i);
  }
  return longest;
}

/** Every string in `value`, without recursion. */
export function strings(value: unknown, visit: (s: string) => void): void {
  const stack = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') visit(v);
    else if (v !== null && typeof v === 'object') stack.push(...Object.values(v));
  }
}

const kept: unknown[] = [];

/** What `plant` does to an input the host has read: nothing, the quadratic scan of its strings, or keeping it. */
export function planted(plant: Plant | undefined, input: unknown): void {
  if (plant === 'leak') kept.push(input);
  else if (plant === 'freeze') strings(input, (s) => longestRunSlowly(s));
}
