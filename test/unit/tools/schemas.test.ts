import * as assert from 'node:assert/strict';
import Ajv2020 from 'ajv/dist/2020';
import { SCHEMA_COMPILER_OPTIONS } from '../../../src/core/registry';
import type { ClientTool } from '../../../src/core/tool';
import { BUILTIN_GROUPS } from '../../../src/tools';

/**
 * The extension registers its built-in groups with `schemasChecked` (the meta-schema is not
 * compiled at activation); this is the check that makes that safe, for every group of BUILTIN_GROUPS.
 */
function builtinTools(): ClientTool[] {
  return BUILTIN_GROUPS.flatMap((g) => g.tools);
}

describe('built-in tool schemas', () => {
  it('every built-in tool\'s parameter schema passes the JSON Schema 2020-12 meta-schema', () => {
    const ajv = new Ajv2020({ strict: true, strictTypes: false, strictTuples: false, logger: false });
    // The four groups the extension registers with schemasChecked (src/vscode/context.ts) are all checked.
    assert.deepEqual(BUILTIN_GROUPS.map((g) => g.group.name).sort(), ['Editor', 'IDE', 'Language', 'Search', 'SourceControl', 'Tasks', 'Terminal', 'Workspace']);
    const tools = builtinTools();
    for (const t of tools) assert.ok(ajv.validateSchema(t.parameters), `${t.name}: ${ajv.errorsText(ajv.errors)}`);
  });

  it('every built-in tool\'s parameter schema compiles with the registry\'s strict options (it compiles them lazily, at the first call)', () => {
    const ajv = new Ajv2020(SCHEMA_COMPILER_OPTIONS);
    for (const t of builtinTools()) assert.doesNotThrow(() => ajv.compile(t.parameters), t.name);
  });
});
