/**
 * Total-token economy over a scripted coding task: the real backend (real `openai` SDK, model gpt-4.1: a window that needs no compaction) against a
 * fake endpoint that plays a model fixing a failing test in nine tool calls and a closing answer,
 * while bench/lib/prefixCache.ts prices every request as a provider's prefix cache would. The same
 * task runs with the tools flat (collapsing off), with every group expanded from the start, and
 * collapsed: the model expanding each group when it first needs it ("lazy") or the groups the task
 * needs together in its first step ("planned"). Then again with a 100-tool group the task does not
 * use (an MCP server of a large service). Cost counts a cached token at a tenth of an uncached one
 * (OpenAI's gpt-4.1 and gpt-5 families, Anthropic's cache reads); the target is collapsed cheaper
 * than flat in that total, not only in definitions.
 */
import type { ToolGroupDefinition } from '../src/protocol';
import { toFunctionName } from '../src/protocol';
import { createBackend } from '../src/backend';
import { TestClient } from '../test/support/backend-client';
import { startFakeOpenAI, type RecordedRequest, type Script } from '../test/support/fake-openai';
import { PrefixCache } from './lib/prefixCache';
import { builtinGroups, hundredToolGroup } from './tokens';

/** What a cached input token costs against an uncached one. */
export const CACHED_PRICE = 0.1;

export type TaskMode = 'flat' | 'all expanded' | 'collapsed, lazy' | 'collapsed, planned';
export const TASK_MODES: TaskMode[] = ['flat', 'all expanded', 'collapsed, lazy', 'collapsed, planned'];

export interface TaskRun {
  mode: TaskMode;
  requests: number;
  input: number;
  cached: number;
  uncached: number;
  definitions: number;
  /** uncached + CACHED_PRICE × cached. */
  cost: number;
  /** Requests whose cached prefix was shorter than the request before it (the cache broke). */
  cacheBreaks: number;
}

export interface TokenTaskResult {
  cachedPrice: number;
  builtin: TaskRun[];
  withHundred: TaskRun[];
}

interface Step {
  tool: string;
  args: Record<string, unknown>;
  /** The text the editor answers. */
  result: string;
}

const TOKEN = 'bench-token-task-0123456789abcdef';
const TASK = 'The test "parses a header with a continuation line" fails since yesterday. Find out why and fix it, then run the tests.';

export async function benchTokenTask(): Promise<TokenTaskResult> {
  const builtin = builtinGroups();
  const result: TokenTaskResult = { cachedPrice: CACHED_PRICE, builtin: [], withHundred: [] };
  for (const mode of TASK_MODES) result.builtin.push(await runTask(mode, builtin));
  for (const mode of TASK_MODES) result.withHundred.push(await runTask(mode, [...builtin, hundredToolGroup()]));
  return result;
}

async function runTask(mode: TaskMode, groups: ToolGroupDefinition[]): Promise<TaskRun> {
  const steps = taskSteps();
  const groupOf = new Map(groups.flatMap((g) => g.tools.map((t) => [t.name, g.name] as const)));
  const needed = [...new Set(steps.map((s) => groupOf.get(s.tool)!))];
  let next = 0;
  let planned = false;
  let serial = 0;
  const fake = await startFakeOpenAI({
    respond: (request: RecordedRequest): Script => {
      const offered = new Set((request.body.tools ?? []).map((t) => t.function.name));
      if (mode === 'collapsed, planned' && !planned) {
        planned = true;
        const containers = needed.map(toFunctionName).filter((c) => offered.has(c));
        if (containers.length) return { toolCalls: containers.map((name) => ({ name, arguments: {}, id: `call_${++serial}` })), text: 'I will search, read, edit and test.' };
      }
      const step = steps[next];
      if (!step) return { text: 'Fixed: the header parser dropped a continuation line that began with a tab. The test passes now.' };
      if (!offered.has(step.tool)) return { toolCalls: [{ name: toFunctionName(groupOf.get(step.tool)!), arguments: {}, id: `call_${++serial}` }] };
      next++;
      return { toolCalls: [{ name: step.tool, arguments: step.args, id: `call_${++serial}` }] };
    },
  });
  const backend = await createBackend({
    token: TOKEN,
    model: { baseURL: fake.baseURL, model: 'gpt-4.1', apiKey: 'sk-bench', maxRetries: 0 },
    collapsing: mode !== 'flat',
    log: () => {},
  });
  const client = await TestClient.connect(backend.url, TOKEN);
  try {
    await client.hello({ toolGroups: groups, ...(mode === 'all expanded' ? { preExpanded: groups.map((g) => g.name) } : {}) });
    const resultOf = new Map(steps.map((s) => [s.tool + JSON.stringify(s.args), s.result]));
    client.autoAnswer((req) => ({ success: true, content: [{ type: 'text', text: resultOf.get(req.toolName + JSON.stringify(req.arguments)) ?? 'done' }] }));
    const { finished } = await client.run('t1', TASK, 60_000);
    if (finished.reason !== 'completed' || next < steps.length) throw new Error(`the ${mode} task did not complete (${finished.reason}, ${next} of ${steps.length} steps)`);

    return price(mode, fake.requests);
  } finally {
    await client.drop();
    await backend.close();
    await fake.close();
  }
}

function price(mode: TaskMode, requests: RecordedRequest[]): TaskRun {
  const cache = new PrefixCache();
  const run: TaskRun = { mode, requests: requests.length, input: 0, cached: 0, uncached: 0, definitions: 0, cost: 0, cacheBreaks: 0 };
  let lastCached = 0;
  for (const r of requests) {
    const p = cache.price(r.body);
    run.input += p.input;
    run.cached += p.cached;
    run.uncached += p.uncached;
    run.definitions += p.definitions;
    if (p.cached < lastCached) run.cacheBreaks++;
    lastCached = p.cached;
  }
  run.cost = Math.round(run.uncached + CACHED_PRICE * run.cached);
  return run;
}

/** Nine tool calls of a realistic bug fix, with results of realistic sizes (code, test output, a diff). */
function taskSteps(): Step[] {
  const parser = sourceFile('parser', 120);
  const test = sourceFile('parser.test', 70);
  return [
    { tool: 'SearchText', args: { query: 'continuation line' }, result: matches(14) },
    { tool: 'ReadFile', args: { path: 'src/parser.ts' }, result: parser },
    { tool: 'ReadFile', args: { path: 'test/parser.test.ts' }, result: test },
    { tool: 'GetDiagnostics', args: { path: 'src/parser.ts' }, result: '[]' },
    { tool: 'ApplyEdit', args: { path: 'src/parser.ts', edits: [{ startLine: 48, startColumn: 1, endLine: 49, endColumn: 1, newText: "    if (line.startsWith(' ') || line.startsWith('\\t')) {\n" }] }, result: 'Applied 1 edit to src/parser.ts.' },
    { tool: 'RunInTerminal', args: { command: 'npm test -- test/parser.test.ts' }, result: testOutput(1) },
    { tool: 'ApplyEdit', args: { path: 'src/parser.ts', edits: [{ startLine: 52, startColumn: 1, endLine: 53, endColumn: 1, newText: '      value += line.trimStart();\n' }] }, result: 'Applied 1 edit to src/parser.ts.' },
    { tool: 'RunInTerminal', args: { command: 'npm test -- test/parser.test.ts' }, result: testOutput(0) },
    { tool: 'GitDiff', args: {}, result: diff() },
  ];
}

function sourceFile(name: string, lines: number): string {
  const out: string[] = [`// ${name}.ts`];
  for (let i = 1; i < lines; i++) {
    out.push(i % 9 === 0 ? '' : `  ${i % 3 === 0 ? 'const' : 'let'} field${i} = header${i % 7}.slice(offset${i % 5}, end${i % 4}).trim(); // part ${i}`);
  }
  return out.join('\n');
}

function matches(n: number): string {
  return Array.from({ length: n }, (_, i) => `src/${i % 2 ? 'parser' : 'lexer'}.ts:${10 + i * 7}: // a continuation line begins with whitespace (RFC 5322 ${i})`).join('\n');
}

function testOutput(failing: number): string {
  const passing = Array.from({ length: 24 }, (_, i) => `  ✔ parses header case ${i} (${i % 4} ms)`);
  const fail = failing ? ['  1) parses a header with a continuation line', '', '  AssertionError: expected "a b" to equal "a\\tb"', '      at Context.<anonymous> (test/parser.test.ts:41:12)'] : [];
  return ['> mocha test/parser.test.ts', '', '  parser', ...passing, ...fail, '', `  ${24 + 1 - failing} passing (84ms)`, ...(failing ? ['  1 failing'] : [])].join('\n');
}

function diff(): string {
  return ['diff --git a/src/parser.ts b/src/parser.ts', '--- a/src/parser.ts', '+++ b/src/parser.ts', '@@ -48,6 +48,6 @@', "-    if (line.startsWith(' ')) {", "+    if (line.startsWith(' ') || line.startsWith('\\t')) {", '-      value += line;', '+      value += line.trimStart();'].join('\n');
}
