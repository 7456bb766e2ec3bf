import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_LIMITS, PROTOCOL, SUBPROTOCOL, TOKEN_HEADER } from '../../../src/protocol/constants';
import { CLIENT_TO_SERVER_TYPES, SERVER_TO_CLIENT_TYPES } from '../../../src/protocol/schemas';

const ROOT = path.join(__dirname, '..', '..', '..');
const doc = readFileSync(path.join(ROOT, 'docs', 'PROTOCOL.md'), 'utf8');

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
}

describe('docs/PROTOCOL.md', () => {
  it('states the constants the code uses', () => {
    for (const text of [PROTOCOL, SUBPROTOCOL, TOKEN_HEADER]) assert.ok(doc.includes(text), `mentions ${text}`);
    assert.ok(doc.includes('32 MiB') && DEFAULT_LIMITS.maxMessageBytes === 32 * 1024 * 1024);
    assert.ok(doc.includes('16 MiB') && DEFAULT_LIMITS.maxResultBytes === 16 * 1024 * 1024);
    assert.ok(doc.includes('10 minutes') && DEFAULT_LIMITS.replayWindowMs === 10 * 60_000);
    assert.ok(doc.includes('30 s') && DEFAULT_LIMITS.invokeTimeoutMs === 30_000);
    assert.ok(doc.includes('every `DEFAULT_LIMITS.heartbeatMs` (10 s)') && DEFAULT_LIMITS.heartbeatMs === 10_000);
    assert.ok(doc.includes(`| ${DEFAULT_LIMITS.maxInFlight} |`));
  });

  it('has a section, with its direction, for every message type', () => {
    for (const type of CLIENT_TO_SERVER_TYPES) {
      assert.ok(doc.includes(`\n### ${type}\n\nExtension → backend`), `### ${type} says extension → backend`);
      assert.match(doc, new RegExp(`\\| \\[\`${type}\`\\]\\(#${type.toLowerCase()}\\) \\| extension → backend \\|`));
    }
    for (const type of SERVER_TO_CLIENT_TYPES) {
      assert.ok(doc.includes(`\n### ${type}\n\nBackend → extension`), `### ${type} says backend → extension`);
      assert.match(doc, new RegExp(`\\| \\[\`${type}\`\\]\\(#${type.toLowerCase()}\\) \\| backend → extension \\|`));
    }
  });

  it('has the sequence diagrams, each a well-formed mermaid sequenceDiagram', () => {
    const blocks = [...doc.matchAll(/```mermaid\n([\s\S]*?)```/g)].map((m) => m[1]);
    assert.ok(blocks.length >= 7, 'handshake plus six flows');
    for (const block of blocks) {
      const lines = block.split('\n').filter((l) => l.trim());
      assert.equal(lines[0], 'sequenceDiagram');
      const participants = new Set(lines.filter((l) => /^\s*participant /.test(l)).map((l) => l.trim().split(/\s+/)[1]));
      assert.ok(participants.size >= 2);
      for (const line of lines.slice(1)) {
        assert.ok(!line.includes(';'), `a semicolon ends a mermaid statement early: ${line}`);
        const arrow = /^\s*(\w+)\s*(?:->>|-->>|->|-->|-x|--x)\s*(\w+)\s*:/.exec(line);
        if (arrow) {
          assert.ok(participants.has(arrow[1]) && participants.has(arrow[2]), `undeclared participant in: ${line}`);
          continue;
        }
        assert.match(line, /^\s*(participant \w+ as .+|Note (over|left of|right of) [\w,]+: .+|alt .+|else .+|par .+|and .+|end|opt .+|loop .+)$/, `not mermaid: ${line}`);
      }
    }
    for (const title of ['A plain call', 'A call that needs permission', 'An expansion', 'An augmentation', 'A cancel', 'A reconnect']) {
      assert.match(doc, new RegExp(`\\n### ${title}[^\\n]*\\n\\n\`\`\`mermaid\\n`), `diagram "${title}"`);
    }
  });

  it('links only to headings and files that exist', () => {
    const anchors = new Set([...doc.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchor(m[1])));
    for (const [, target] of doc.matchAll(/\]\(([^)]+)\)/g)) {
      if (target.startsWith('#')) assert.ok(anchors.has(target.slice(1)), `no heading for ${target}`);
      else if (!/^[a-z]+:/.test(target)) assert.ok(existsSync(path.join(ROOT, 'docs', target)), `no file ${target}`);
    }
  });
});
