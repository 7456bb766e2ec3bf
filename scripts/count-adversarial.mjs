#!/usr/bin/env node
/**
 * Prints the adversarial cases per group, as the Markdown table in docs/SECURITY.md (Adversarial tests):
 * each top-level `describe('…')` of test/adversarial/*.test.ts is a group, each `it(` in it a case.
 *
 *   node scripts/count-adversarial.mjs
 *
 * It parses the files rather than running them, so it refuses what it cannot count honestly:
 * `it(` inside a loop (one line, many cases) and skipped or exclusive tests.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const dir = path.join(import.meta.dirname, '..', 'test', 'adversarial');
const files = readdirSync(dir).filter((f) => f.endsWith('.test.ts')).sort();
const groups = [];
const problems = [];

for (const file of files) {
  const lines = readFileSync(path.join(dir, file), 'utf8').split('\n');
  let group;
  let loopDepth = -1;
  lines.forEach((line, i) => {
    const where = `${file}:${i + 1}`;
    const top = /^describe\((['"`])((?:\\.|(?!\1).)*)\1/.exec(line);
    if (top) {
      group = { name: top[2].replace(/\\'/g, "'"), file, cases: 0 };
      groups.push(group);
      return;
    }
    const indent = line.search(/\S/);
    if (loopDepth >= 0 && indent <= loopDepth && /^\s*}/.test(line)) loopDepth = -1;
    // A loop that opens a block; a one-line loop cannot hold an `it(` on the next lines.
    if (/^\s*(for|while)\s*\(.*\{\s*$|\.forEach\(.*\{\s*$/.test(line)) loopDepth = indent;
    if (/\b(it|describe)\.(skip|only)\(|\bxit\(/.test(line)) problems.push(`${where}: skipped or exclusive test`);
    if (/^\s*it\(/.test(line)) {
      if (!group) problems.push(`${where}: a case outside any describe`);
      else if (loopDepth >= 0) problems.push(`${where}: a case inside a loop cannot be counted from the source`);
      else group.cases++;
    }
  });
}

if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
const total = groups.reduce((n, g) => n + g.cases, 0);
console.log('| Group | Cases | File |');
console.log('| --- | ---: | --- |');
for (const g of groups) console.log(`| ${g.name} | ${g.cases} | \`test/adversarial/${g.file}\` |`);
console.log(`| **Total** | **${total}** | |`);
