/**
 * Entry point: the extension from a backend. Every backend → extension message type
 * (`WireMessages.byDirection.serverToClient`) from a hostile backend in the fuzzer's process to
 * `ClientCore` in its own (hosts/coreHost.ts), and for `clientToolInvokeRequest` also every
 * position of every registered tool's own parameter schema, so each tool does its real work on the
 * value (a path names a file that exists). Run events arrive inside a run the chat knows, and every
 * case ends with a call that must be answered (the barrier) and the chat rendered (`flush`).
 */
import { WireMessages } from '../../../src/protocol/schemas';
import { MAX_JSON_BYTES } from '../../../src/core/clientCore';
import type { ClientToolInvokeResponse } from '../../../src/protocol';
import { BACKEND_TOKEN, HostileBackend, validWelcome } from '../support/hostileBackend';
import { planCases, type MessagePlan, type PlannedCase } from '../support/plan';
import type { EntryDriver } from '../support/runner';
import { shapeOf, type Json, type JsonSchema, type Position } from '../support/shape';
import { Target } from '../support/target';
import { messageShapes } from '../support/zodShapes';

const ANSWER_MS = 10_000;

export function backendToCore(): EntryDriver {
  let backend: HostileBackend | undefined;
  let serial = 0;

  function invoke(b: HostileBackend, toolName: string, args: Record<string, unknown>, requestId = `r${++serial}`): string {
    b.send({ type: 'clientToolInvokeRequest', requestId, toolName, callId: `c${serial}`, arguments: args });
    return requestId;
  }

  async function answerOf(b: HostileBackend, requestId: string, timeoutMs = ANSWER_MS): Promise<string> {
    const r = (await b.next((m) => m.type === 'clientToolInvokeResponse' && m.requestId === requestId, timeoutMs)) as ClientToolInvokeResponse | undefined;
    return r ? (r.success ? 'answered' : `refused ${r.errorCode}`) : 'no answer';
  }

  /** The extension is connected and answers a call: everything sent before was dealt with. */
  async function barrier(target: Target, b: HostileBackend): Promise<string> {
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      if (!b.connected) {
        await target.request('ensureConnected');
        await new Promise((r) => setTimeout(r, 20));
        continue;
      }
      const answer = await answerOf(b, invoke(b, 'Echo', {}), 3_000);
      if (answer === 'answered') return 'then a call was answered';
    }
    return 'no call was answered afterwards';
  }

  async function runEvent(c: PlannedCase, b: HostileBackend): Promise<string> {
    const runId = `run${++serial}`;
    b.send({ type: 'runStarted', threadId: 't', runId, model: 'm' });
    b.sendText(c.text((s) => ({ ...(s as object), threadId: 't', runId })));
    return 'sent';
  }

  const scenarios: Record<string, (c: PlannedCase, b: HostileBackend, t: Target) => Promise<string>> = {
    async welcome(c, b) {
      b.nextWelcome = c.text(() => validWelcome(`hostile-${++serial}`) as unknown as Json);
      const hello = b.nextHello();
      b.drop();
      return (await hello) ? 'welcome sent' : 'no hello';
    },
    async clientToolInvokeRequest(c, b, t) {
      const requestId = `r${++serial}`;
      const refusedBefore = await t.request<number>('refused');
      b.sendText(c.text((s) => ({ ...(s as object), requestId, callId: `c${serial}` })));
      // Without its own request id the message cannot be answered by id; the barrier shows it was dealt with.
      const answerable = c.position.path.length > 0 && c.position.path[0] !== 'requestId';
      if (!answerable) return 'sent';
      // A message refused unread has no request id to answer either: the core's count of them says so.
      let answered = false;
      const refused = (async () => {
        while (!answered) {
          if ((await t.request<number>('refused')) > refusedBefore) return 'refused unread';
          await new Promise((r) => setTimeout(r, 20));
        }
        return '';
      })();
      const outcome = await Promise.race([answerOf(b, requestId), refused]);
      answered = true;
      return outcome;
    },
    async clientToolCancel(c, b, t) {
      const requestId = invoke(b, 'Wait', {});
      b.sendText(c.text((s) => ({ ...(s as object), requestId })));
      // Once a later call was answered the cancel was dealt with: a cancel taken has ended the call by then, give or take a turn.
      await barrier(t, b);
      let answer = await answerOf(b, requestId, 100);
      if (answer === 'no answer') {
        b.send({ type: 'clientToolCancel', requestId });
        answer = `${answer}; after a valid cancel ${await answerOf(b, requestId)}`;
      }
      return answer;
    },
  };

  return {
    name: 'extension core from a backend',
    async start() {
      backend ??= await HostileBackend.start();
      const target = await Target.start('coreHost.ts', { url: backend.url, token: BACKEND_TOKEN });
      if (!backend.connected) await backend.nextHello();
      return target;
    },
    cases(target) {
      const plans: MessagePlan[] = messageShapes(WireMessages.byDirection.serverToClient).map(({ type, shape }) => ({
        message: type,
        shape,
        // Values fill a message up to the JSON the extension announces it takes (a larger one is refused unread).
        limit: MAX_JSON_BYTES,
      }));
      const invoke = plans.find((p) => p.message === 'clientToolInvokeRequest');
      const tools = (target.info.tools ?? []) as { name: string; parameters: JsonSchema }[];
      if (!invoke || tools.length === 0) throw new Error('no clientToolInvokeRequest schema, or the extension registered no tools');
      // `Wait` is the fuzzer's own tool for clientToolCancel: it runs until cancelled, whatever its arguments.
      for (const tool of tools.filter((t) => t.name !== 'Wait')) plans.push(toolPlan(invoke, tool.name, tool.parameters));
      return planCases('extension core from a backend', plans);
    },
    async run(c, target) {
      const b = backend as HostileBackend;
      b.clear();
      if (!b.connected) await barrier(target, b);
      const scenario = scenarios[c.message.split(' ')[0]] ?? runEvent;
      const what = await scenario(c, b, target);
      const after = await barrier(target, b);
      await target.request('flush', undefined, 30_000);
      b.send({ type: 'runFinished', threadId: 't', runId: 'done', reason: 'completed' });
      return `${what}; ${after}`;
    },
    async stop() {
      await backend?.close();
      backend = undefined;
    },
  };
}

/** The `clientToolInvokeRequest` for one tool: its name fixed, the positions of its own parameters under `arguments`. */
function toolPlan(invoke: MessagePlan, toolName: string, parameters: JsonSchema): MessagePlan {
  const args = shapeOf(parameters);
  const under = (p: Position): Position => ({
    ...p,
    path: ['arguments', ...p.path],
    label: p.label === '(root)' ? 'arguments' : `arguments.${p.label}`,
    variants: p.variants.map((v) => ({ ...v, path: ['arguments', ...v.path] })),
  });
  const sample = { ...(invoke.shape.sample as object), toolName, arguments: args.sample } as Json;
  return { message: `clientToolInvokeRequest ${toolName}`, shape: { sample, positions: args.positions.map(under) }, limit: invoke.limit };
}
