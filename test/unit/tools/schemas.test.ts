import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { SCHEMA_COMPILER_OPTIONS } from '../../../src/core/registry';
import type { ClientTool } from '../../../src/core/tool';

/**
 * The extension registers its built-in groups with `schemasChecked` (the meta-schema is not
 * compiled at activation); this is the check that makes that safe. Every `*ToolGroup()` exported
 * from src/tools/ is found, so a new group is covered without touching this file.
 */
function builtinGroups(): { name: string; tools: readonly ClientTool[] }[] {
  const dir = path.resolve(__dirname, '../../../src/tools');
  const groups: { name: string; tools: readonly ClientTool[] }[] = [];
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- found at run time, so a new group module is covered too
    const mod = require(path.join(dir, file)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(mod)) {
      if (!/ToolGroup$/.test(name) || typeof value !== 'function' || value.length !== 0) continue;
      const made = (value as () => { group: { name: string }; tools: readonly ClientTool[] })();
      groups.push({ name: made.group.name, tools: made.tools });
    }
  }
  return groups;
}

function builtinTools(): ClientTool[] {
  return builtinGroups().flatMap((g) => g.tools);
}

describe('built-in tool schemas', () => {
  it('every built-in tool\'s parameter schema passes the JSON Schema 2020-12 meta-schema', () => {
    const ajv = new Ajv2020({ strict: true, strictTypes: false, strictTuples: false, logger: false });
    // The four groups the extension registers with schemasChecked (src/vscode/context.ts) are all found.
    assert.deepEqual(builtinGroups().map((g) => g.name).sort(), ['Editor', 'IDE', 'Terminal', 'Workspace']);
    const tools = builtinTools();
    for (const t of tools) assert.ok(ajv.validateSchema(t.parameters), `${t.name}: ${ajv.errorsText(ajv.errors)}`);
  });

  it('every built-in tool\'s parameter schema compiles with the registry\'s strict options (it compiles them lazily, at the first call)', () => {
    const ajv = new Ajv2020(SCHEMA_COMPILER_OPTIONS);
    for (const t of builtinTools()) assert.doesNotThrow(() => ajv.compile(t.parameters), t.name);
  });
});
