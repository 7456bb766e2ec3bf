/**
 * 7. Attacks: the backend's event-loop delay (perf_hooks.monitorEventLoopDelay, in the backend's
 *    own process, backend-child.ts) while one client with the token runs each attack: crafted chat
 *    messages for the offline demo model's parser; then, with a real model configuration (the
 *    `openai` SDK against the fake endpoint, so the context budget and token counts run as with a
 *    real model), a `^(a+)+$` schema pattern met by a 31-character argument, a `$ref` fan-out,
 *    `uniqueItems` on 20,000 items, a hello with 16,384 distinct schemas, a schema nested 1,500
 *    deep, a ReadFile result of 256 KiB of one character, the longest chat message, three 2 MB tool
 *    arguments in one turn, and a model answer without end. Each attack gets a fresh backend; while it
 *    runs, an honest client connects, and its handshake time is reported too. An attack that has
 *    not ended after ATTACK_BOUND_MS is stopped by killing the backend (a frozen event loop cannot
 *    be interrupted otherwise), so the benchmark ends even where the backend does not defend itself;
 *    the figure is then "at least the bound".
 */
import { randomUUID } from 'node:crypto';
import type { BackendOptions } from '../src/backend';
import type { ClientToServer, ToolDefinition, ToolGroupDefinition } from '../src/protocol';
import { helloMessage, ideGroup, TestClient } from '../test/support/backend-client';
import { startFakeOpenAI, type FakeOpenAI } from '../test/support/fake-openai';
import { BackendProcess } from './lib/backendProcess';

/** Longer than any attack takes on a backend that defends itself; the undefended ones are cut here. */
export const ATTACK_BOUND_MS = 30_000;

export interface AttackResult {
  name: string;
  /** What the backend did: answered, refused, closed, or nothing before the bound. */
  outcome: string;
  /** The attack had not ended at the bound (the backend was killed). */
  hitBound: boolean;
  attackMs: number;
  /** An honest client's handshake, started just after the attack was sent; undefined: none within the bound. */
  honestHandshakeMs: number | undefined;
  /** undefined when the backend could not answer (frozen). */
  eventLoopDelay: { maxMs: number; p99Ms: number } | undefined;
}

interface Attack {
  name: string;
  /** The backend runs the offline demo model, or the fake OpenAI endpoint that `script` fills. */
  model: 'demo' | 'openai';
  script?: (fake: FakeOpenAI) => void;
  /** Sends the attack; resolves with what the backend did. */
  run(url: string, token: string): Promise<string>;
}

const DEPTH_OF_REF_FAN_OUT = 30;
const NESTING_DEPTH = 1_500;
const UNIQUE_ITEMS = 20_000;
const SCHEMAS_IN_HELLO = 16_384;

function showMessageTool(message: Record<string, unknown>, extra: Record<string, unknown> = {}): ToolDefinition {
  return {
    name: 'ShowMessage',
    description: 'Show a message',
    parameters: { type: 'object', properties: { message, severity: { type: 'string', enum: ['info', 'warning', 'error'] } }, required: ['message'], ...extra },
  };
}

/** $defs where each level refers to the one below twice: 2 KB of schema, 2^depth checks of one string. */
function refFanOut(depth: number): Record<string, unknown> {
  const defs: Record<string, unknown> = { d0: { type: 'string' } };
  for (let i = 1; i <= depth; i++) defs[`d${i}`] = { allOf: [{ $ref: `#/$defs/d${i - 1}` }, { $ref: `#/$defs/d${i - 1}` }] };
  return defs;
}

function nested(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < depth; i++) schema = { type: 'object', properties: { a: schema } };
  return schema;
}

function manySchemas(count: number): ToolGroupDefinition[] {
  const groups: ToolGroupDefinition[] = [];
  for (let g = 0; g * 512 < count; g++) {
    const tools: ToolDefinition[] = [];
    for (let i = g * 512; i < Math.min(count, (g + 1) * 512); i++) {
      tools.push({ name: `T${i}`, description: 't', parameters: { type: 'object', properties: { [`p${i}`]: { type: 'string', maxLength: i } }, required: [`p${i}`] } });
    }
    groups.push({ name: `Many${g}`, description: 'Many schemas.', tools });
  }
  return groups;
}

/** Connects and says hello; resolves with the outcome: welcome, an error, or the close. */
async function hello(url: string, token: string, toolGroups: ToolGroupDefinition[]): Promise<{ client: TestClient; outcome: string }> {
  const client = await TestClient.connect(url, token);
  client.send(helloMessage({ toolGroups }));
  const outcome = await Promise.race([
    client.next('welcome', () => true, ATTACK_BOUND_MS).then(() => 'welcome'),
    client.next('error', () => true, ATTACK_BOUND_MS).then((e) => `error ${e.code}`),
    client.closed.then((c) => `closed ${c.code}`),
  ]).catch(() => 'no answer');
  return { client, outcome };
}

/** Sends a chat message and waits for its run to end; answers any tool call at once with `answer`. */
async function chat(url: string, token: string, toolGroups: ToolGroupDefinition[], text: string, answer = 'ok'): Promise<string> {
  const { client, outcome } = await hello(url, token, toolGroups);
  if (outcome !== 'welcome') return `hello: ${outcome}`;
  client.autoAnswer(() => ({ success: true, content: [{ type: 'text', text: answer }] }));
  const message: ClientToServer = { type: 'userMessage', threadId: 'attack', text };
  client.send(message);
  try {
    const started = await client.next('runStarted', () => true, ATTACK_BOUND_MS);
    const finished = await client.next('runFinished', (m) => m.runId === started.runId, ATTACK_BOUND_MS);
    const calls = client.all('toolCallEnded', (m) => m.runId === started.runId).map((m) => m.outcome);
    return `run ${finished.reason}${calls.length ? ` (tool calls: ${calls.join(', ')})` : ''}`;
  } finally {
    void client.drop();
  }
}

/** The model calls `name` with `args`, then answers "done" (to the summary request too, should the turn need one). */
function calls(name: string, args: unknown): (fake: FakeOpenAI) => void {
  return (fake) => fake.enqueue({ toolCalls: [{ name, arguments: args }] }, ...Array.from({ length: 4 }, () => ({ text: 'done' })));
}

const DATA_GROUP: ToolGroupDefinition = {
  name: 'Data',
  description: 'Data tools.',
  startCollapsed: false,
  tools: [{ name: 'Take', description: 'Takes items', parameters: { type: 'object', properties: { items: { type: 'array', uniqueItems: true } }, required: ['items'] } }],
};
const OPEN_IDE = ideGroup({ startCollapsed: false });

const attacks: Attack[] = [
  {
    name: 'none (baseline: an ordinary demo turn)',
    model: 'demo',
    run: (url, token) => chat(url, token, [ideGroup()], 'open README.md'),
  },
  {
    name: 'none (baseline: a real-model turn)',
    model: 'openai',
    script: calls('ReadFile', { path: 'README.md' }),
    run: (url, token) => chat(url, token, [OPEN_IDE], 'read README.md'),
  },
  {
    name: 'demo model: "run" + 3,000 spaces + "x"',
    model: 'demo',
    run: (url, token) => chat(url, token, [ideGroup()], `run${' '.repeat(3_000)}x`),
  },
  {
    name: 'demo model: "run" + 99,996 spaces + "x"',
    model: 'demo',
    run: (url, token) => chat(url, token, [ideGroup()], `run${' '.repeat(100_000 - 4)}x`),
  },
  {
    name: 'pattern ^(a+)+$, 31-char argument',
    model: 'openai',
    script: calls('ShowMessage', { message: `${'a'.repeat(30)}b` }),
    run: (url, token) => chat(url, token, [ideGroup({ startCollapsed: false, tools: [showMessageTool({ type: 'string', pattern: '^(a+)+$' })] })], 'show a warning'),
  },
  {
    name: `$ref fan-out, 2^${DEPTH_OF_REF_FAN_OUT} checks`,
    model: 'openai',
    script: calls('ShowMessage', { message: 'hi' }),
    run: (url, token) => chat(url, token, [ideGroup({ startCollapsed: false, tools: [showMessageTool({ $ref: `#/$defs/d${DEPTH_OF_REF_FAN_OUT}` }, { $defs: refFanOut(DEPTH_OF_REF_FAN_OUT) })] })], 'show a warning'),
  },
  {
    name: `uniqueItems, ${UNIQUE_ITEMS.toLocaleString('en-US')} items`,
    model: 'openai',
    script: calls('Take', { items: Array.from({ length: UNIQUE_ITEMS }, (_, i) => [i]) }),
    run: (url, token) => chat(url, token, [DATA_GROUP], 'take them'),
  },
  {
    name: `hello with ${SCHEMAS_IN_HELLO.toLocaleString('en-US')} distinct schemas`,
    model: 'openai',
    run: async (url, token) => {
      const { client, outcome } = await hello(url, token, manySchemas(SCHEMAS_IN_HELLO));
      void client.drop();
      return `hello: ${outcome}`;
    },
  },
  {
    name: `schema nested ${NESTING_DEPTH.toLocaleString('en-US')} deep`,
    model: 'openai',
    run: async (url, token) => {
      const { client, outcome } = await hello(url, token, [ideGroup({ tools: [{ name: 'Deep', description: 'Deep', parameters: nested(NESTING_DEPTH) }] })]);
      void client.drop();
      return `hello: ${outcome}`;
    },
  },
  {
    name: 'ReadFile result: 256 KiB of one character',
    model: 'openai',
    script: calls('ReadFile', { path: 'bundle.min.js' }),
    run: (url, token) => chat(url, token, [OPEN_IDE], 'read the bundle', 'a'.repeat(256 * 1024)),
  },
  {
    name: 'chat message of 100,000 characters',
    model: 'openai',
    script: (fake) => fake.enqueue(...Array.from({ length: 4 }, () => ({ text: 'done' }))),
    run: (url, token) => chat(url, token, [OPEN_IDE], 'a'.repeat(100_000)),
  },
  {
    name: 'three 2 MB tool arguments in one turn',
    model: 'openai',
    script: (fake) => fake.enqueue({ toolCalls: [1, 2, 3].map((i) => ({ name: 'ShowMessage', id: `call_${i}`, arguments: { message: 'x'.repeat(2 * 1024 * 1024) } })) }, ...Array.from({ length: 4 }, () => ({ text: 'done' }))),
    run: (url, token) => chat(url, token, [OPEN_IDE], 'show three long messages'),
  },
  {
    name: 'a model answer without end',
    model: 'openai',
    script: (fake) => fake.enqueue({ endless: { text: 'x'.repeat(16 * 1024), everyMs: 0 } }),
    run: (url, token) => chat(url, token, [OPEN_IDE], 'write forever'),
  },
];

/** An honest client's handshake time, or undefined when it got none within the bound. */
async function honestHandshake(url: string, token: string): Promise<number | undefined> {
  const t0 = performance.now();
  try {
    const client = await TestClient.connect(url, token);
    client.send(helloMessage());
    await client.next('welcome', () => true, ATTACK_BOUND_MS);
    void client.drop();
    return performance.now() - t0;
  } catch {
    return undefined;
  }
}

async function runAttack(attack: Attack): Promise<AttackResult> {
  const token = `attack-${randomUUID()}`;
  const fake = attack.model === 'openai' ? await startFakeOpenAI() : undefined;
  const model: BackendOptions['model'] = fake ? { model: 'fake', baseURL: fake.baseURL, apiKey: 'bench', maxRetries: 0 } : 'offline';
  const backend = await BackendProcess.start({ token, model, maxConnections: 32 });
  let frozen = false;
  try {
    if (fake) attack.script?.(fake);
    await backend.reset();
    const t0 = performance.now();
    const attacked = attack.run(backend.url, token).then(
      (outcome) => ({ outcome, hitBound: false }),
      (e: unknown) => ({ outcome: `failed: ${e instanceof Error ? e.message : String(e)}`, hitBound: false }),
    );
    const honest = honestHandshake(backend.url, token);
    const bound = new Promise<{ outcome: string; hitBound: boolean }>((resolve) => setTimeout(() => resolve({ outcome: `nothing within ${ATTACK_BOUND_MS / 1000} s`, hitBound: true }), ATTACK_BOUND_MS).unref());
    const { outcome, hitBound } = await Promise.race([attacked, bound]);
    const attackMs = performance.now() - t0;
    const stats = await backend.stats(hitBound ? 2_000 : 10_000);
    frozen = stats === undefined;
    const honestMs = frozen ? undefined : await honest;
    return {
      name: attack.name,
      outcome,
      hitBound,
      attackMs,
      honestHandshakeMs: honestMs,
      eventLoopDelay: stats && { maxMs: stats.eventLoopDelay.maxMs, p99Ms: stats.eventLoopDelay.p99Ms },
    };
  } finally {
    await backend.stop(frozen);
    await fake?.close();
  }
}

export async function benchAttacks(): Promise<AttackResult[]> {
  const results: AttackResult[] = [];
  for (const attack of attacks) {
    const result = await runAttack(attack);
    results.push(result);
    if (result.hitBound) process.stderr.write(`\n[bench] attack "${attack.name}" hit the ${ATTACK_BOUND_MS / 1000} s bound; its backend was killed\n`);
  }
  return results;
}
