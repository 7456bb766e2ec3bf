/**
 * The OpenAI wires for real agents, on fake-openai.ts (the same SSE the `openai` SDK tests use):
 * the Responses API for Codex (`POST /v1/responses`; Codex offers MCP tools inside a
 * `{type: 'namespace', name, tools}` tool and expects the call to carry that `namespace`; tool
 * results come back as `function_call_output` items) and Chat Completions for opencode (tool
 * results as `role: 'tool'` messages; its title request has no tools and is a side call).
 */
import { startFakeOpenAI, type RecordedRequest, type Script } from '../fake-openai';
import { RequestLog, stepFor, textOf, type AgentStep, type FakeModel, type ModelRequest } from './script';

export async function startFakeOpenAIAgents(initial: AgentStep[], wire: 'openai-responses' | 'openai-chat'): Promise<FakeModel> {
  let steps = initial;
  const requests = new RequestLog();
  const fake = await startFakeOpenAI({
    respond: (recorded) => {
      const request = wire === 'openai-responses' ? readResponses(recorded) : readChat(recorded);
      requests.add(request);
      if (request.side) return { text: 'Fake title' };
      let resolved: ReturnType<typeof stepFor>;
      try {
        resolved = stepFor(steps, request);
      } catch (e) {
        return { status: 400, message: (e as Error).message };
      }
      return scriptOf(resolved);
    },
  });
  return {
    baseUrl: fake.baseURL.replace(/\/v1$/, ''),
    requests,
    setSteps: (next) => (steps = next),
    close: () => fake.close(),
  };
}

function scriptOf({ step, toolName }: ReturnType<typeof stepFor>): Script {
  if (!('tool' in step)) return { text: step.text, usage: { prompt: 150, completion: 25 } };
  const name = toolName as string;
  const dot = name.lastIndexOf('.');
  const call = dot > 0 ? { namespace: name.slice(0, dot), name: name.slice(dot + 1) } : { name };
  return { toolCalls: [{ ...call, arguments: step.args }], ...(step.text ? { text: step.text } : {}), usage: { prompt: 150, completion: 25 } };
}

function readResponses(recorded: RecordedRequest): ModelRequest {
  const body = recorded.body as Record<string, unknown>;
  const input = Array.isArray(body.input) ? body.input as Record<string, unknown>[] : [];
  const tools: string[] = [];
  for (const t of Array.isArray(body.tools) ? body.tools as Record<string, unknown>[] : []) {
    if (t.type === 'namespace' && Array.isArray(t.tools)) {
      for (const inner of t.tools as { name?: unknown }[]) tools.push(`${String(t.name)}.${String(inner.name)}`);
    } else if (typeof t.name === 'string') {
      tools.push(t.name);
    }
  }
  return {
    wire: 'openai-responses',
    path: recorded.path,
    body,
    headers: recorded.headers,
    side: tools.length === 0,
    replies: input.filter((i) => i.type === 'function_call' || (i.type === 'message' && i.role === 'assistant')).length,
    toolResults: input.filter((i) => i.type === 'function_call_output').map((i) => textOf(i.output)),
    tools,
  };
}

function readChat(recorded: RecordedRequest): ModelRequest {
  const body = recorded.body;
  const tools = (body.tools ?? []).map((t) => t.function.name);
  return {
    wire: 'openai-chat',
    path: recorded.path,
    body: body as Record<string, unknown>,
    headers: recorded.headers,
    side: tools.length === 0,
    replies: body.messages.filter((m) => m.role === 'assistant').length,
    toolResults: body.messages.filter((m) => m.role === 'tool').map((m) => textOf(m.content)),
    tools,
  };
}
