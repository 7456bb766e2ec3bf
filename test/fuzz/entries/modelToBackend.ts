/**
 * Entry point: the backend from a model endpoint's responses, on the Chat Completions wire and on
 * the Responses wire (one entry each), streamed and not. The OpenAI SDK publishes no schema of what
 * it reads, so the positions come from the real wire itself: the responses of the fake endpoint
 * (test/support/fake-openai.ts, which speaks the service's format) to a text answer and to a tool
 * call, each event's every string, number, array and object (a tool call's `arguments`, JSON inside
 * a string, gets structures inside the text too), and the stream as an array of events. The backend
 * (its own process) asks the fuzzer's endpoint, which answers the next request with the case and
 * every other with a plain answer; the fuzzer is the editor, answering tool calls, and after each
 * run a second turn reads the history back.
 */
import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServerToClient } from '../../../src/protocol';
import { startFakeOpenAI } from '../../support/fake-openai';
import { describe as said, EditorPeer } from '../support/editorPeer';
import { planCases, type MessagePlan, type PlannedCase } from '../support/plan';
import type { EntryDriver } from '../support/runner';
import { positionsOfValue, type Json, type Position } from '../support/shape';
import { Target } from '../support/target';
import { fuzzHello } from './editorToBackend';

const EVENT_LIMIT = 32 * 1024 * 1024;

/** One event of a stream (`event:` name, `data:` JSON), or a whole JSON body. */
interface WireEvent {
  event?: string;
  data: Json;
}

interface Sample {
  name: string;
  streamed: boolean;
  events: WireEvent[];
  /** Text after the events (`data: [DONE]` on Chat Completions). */
  trailer: string;
}

type Wire = 'chat' | 'responses';

/** Responses of the fake endpoint to a text answer and to a tool call, streamed and not, on `wire`. */
async function captureSamples(wire: Wire): Promise<Sample[]> {
  const fake = await startFakeOpenAI();
  const samples: Sample[] = [];
  try {
    for (const streamed of [true, false]) {
      for (const kind of ['text', 'tool call'] as const) {
        fake.enqueue(kind === 'text' ? { text: 'Hello there.', pieces: 2 } : { toolCalls: [{ name: 'Echo', arguments: { text: 'hi' } }] });
        const body = wire === 'chat'
          ? { model: 'gpt-4.1-mini', stream: streamed, stream_options: streamed ? { include_usage: true } : undefined, messages: [{ role: 'user', content: 'hi' }] }
          : { model: 'gpt-4.1-mini', stream: streamed, input: [{ role: 'user', content: 'hi' }] };
        const res = await fetch(`${fake.baseURL}/${wire === 'chat' ? 'chat/completions' : 'responses'}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        const text = await res.text();
        samples.push({ name: `${streamed ? 'stream' : 'body'}, ${kind}`, streamed, ...(streamed ? parseSse(text) : { events: [{ data: JSON.parse(text) as Json }], trailer: '' }) });
      }
    }
  } finally {
    await fake.close();
  }
  return samples;
}

function parseSse(text: string): { events: WireEvent[]; trailer: string } {
  const events: WireEvent[] = [];
  let trailer = '';
  for (const block of text.split('\n\n').filter((b) => b.trim() !== '')) {
    const event = /^event: (.*)$/m.exec(block)?.[1];
    const data = /^data: (.*)$/m.exec(block)?.[1] ?? '';
    if (data === '[DONE]') trailer = 'data: [DONE]\n\n';
    else events.push({ ...(event ? { event } : {}), data: JSON.parse(data) as Json });
  }
  return { events, trailer };
}

/** The body a sample is served as, with event `index`'s JSON replaced by `hostile` (or the stream's events by `stream`). */
function serialize(sample: Sample, index: number, hostile: string | undefined, stream?: string[]): string {
  if (!sample.streamed) return hostile ?? JSON.stringify(sample.events[0].data);
  const lines = stream ?? sample.events.map((e, i) => `${e.event ? `event: ${e.event}\n` : ''}data: ${i === index && hostile !== undefined ? hostile : JSON.stringify(e.data)}\n\n`);
  return lines.join('') + sample.trailer;
}

/** The fuzzer's model endpoint: the next request gets `pending`, every other a plain text answer. */
class HostileEndpoint {
  pending: { body: () => string; streamed: boolean } | undefined;
  private constructor(private readonly server: http.Server, private readonly plain: Sample) {
    server.on('request', (req, res) => {
      req.resume();
      req.on('end', () => {
        const answer = this.pending ?? { body: () => serialize(this.plain, -1, undefined), streamed: true };
        this.pending = undefined;
        res.writeHead(200, { 'content-type': answer.streamed ? 'text/event-stream' : 'application/json' });
        res.end(answer.body());
      });
    });
  }

  static async start(plain: Sample): Promise<HostileEndpoint> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new HostileEndpoint(server, plain);
  }

  get baseURL(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const ends = (m: ServerToClient) => m.type === 'runFinished' || m.type === 'runError' || m.type === 'clientToolInvokeRequest';

/** Waits for the run on `threadId` to end, answering its tool calls; what it ended with. The wait is generous (a slow run on a shared machine is not a hang; a stall is judged by the probes). */
async function runToEnd(peer: EditorPeer, threadId: string): Promise<string> {
  for (let calls = 0; calls < 10; calls++) {
    const m = await peer.next((x) => ends(x) && (x.type === 'clientToolInvokeRequest' || ('threadId' in x && x.threadId === threadId)), 30_000);
    if (typeof m !== 'string' && m.type === 'clientToolInvokeRequest') {
      peer.send({ type: 'clientToolInvokeResponse', requestId: m.requestId, success: true, content: [{ type: 'text', text: 'ok' }] });
      continue;
    }
    return said(m);
  }
  return 'more than 10 tool calls';
}

export function modelToBackend(wire: Wire): EntryDriver {
  const token = `fuzz-${randomUUID()}`;
  const name = `backend from a model endpoint (${wire === 'chat' ? 'Chat Completions' : 'Responses'})`;
  let samples: Sample[] = [];
  let endpoint: HostileEndpoint | undefined;
  let url = '';
  const bodies = new Map<PlannedCase, () => string>();

  return {
    name,
    async start() {
      if (samples.length === 0) samples = await captureSamples(wire);
      endpoint ??= await HostileEndpoint.start(samples[0]);
      const target = await Target.start('backendHost.ts', { token, baseURL: endpoint.baseURL, api: wire });
      url = String(target.info.url);
      return target;
    },
    cases() {
      const plans: (MessagePlan & { sample: Sample; index: number })[] = [];
      const seen = new Set<string>();
      for (const sample of samples) {
        sample.events.forEach((e, index) => {
          // The backend asks for a stream: a whole body in its place is read as no events at all, so
          // its fields are never looked at; the body as a whole is the position there.
          const positions = positionsOfValue(e.data).filter((p) => {
            if (!sample.streamed && p.path.length > 0) return false;
            const key = `${sample.streamed}|${p.label}`;
            if (seen.has(key)) return false;
            seen.add(key);
            return true;
          });
          if (positions.length > 0) plans.push({ message: `${sample.name} · ${e.event ?? (e.data as { object?: string }).object ?? 'body'}`, shape: { sample: e.data, positions }, limit: EVENT_LIMIT, sample, index });
        });
        if (sample.streamed) plans.push(streamPlan(sample));
      }
      const cases: PlannedCase[] = [];
      for (const plan of plans) {
        for (const c of planCases(name, [plan])) {
          cases.push(c);
          bodies.set(c, plan.index < 0 ? () => streamBody(plan.sample, c) : () => serialize(plan.sample, plan.index, c.text()));
        }
      }
      return cases;
    },
    async run(c, target) {
      const peer = await EditorPeer.connect(url, token);
      try {
        peer.send(fuzzHello());
        const welcome = await peer.next((m) => m.type === 'welcome' || m.type === 'error');
        if (typeof welcome === 'string' || welcome.type !== 'welcome') return `handshake: ${said(welcome)}`;
        const body = bodies.get(c) as () => string;
        (endpoint as HostileEndpoint).pending = { body, streamed: c.message.startsWith('stream') };
        peer.send({ type: 'userMessage', threadId: 't', text: 'Go on.' });
        const first = await runToEnd(peer, 't');
        peer.send({ type: 'userMessage', threadId: 't', text: 'And now?' });
        const second = await runToEnd(peer, 't');
        return `${first}, then ${second}${peer.undecodable.length ? `; the backend sent what the protocol refuses: ${peer.undecodable.join('; ')}` : ''}`;
      } finally {
        peer.terminate();
        await target.request('settled');
      }
    },
    async stop() {
      await endpoint?.close();
      endpoint = undefined;
    },
  };
}

/**
 * The stream itself as an array position: its events, the first one that carries a text or argument
 * delta repeated (the rest as they are), so an answer or an argument arrives one piece at a time.
 */
function streamPlan(sample: Sample): MessagePlan & { sample: Sample; index: number } {
  const delta = sample.events.findIndex((e) => /"(content|arguments|delta)":"[^"]/.test(JSON.stringify(e.data)));
  const item = sample.events[Math.max(0, delta)].data;
  const position: Position = { path: [], kind: 'array', item, variants: [], label: 'events' };
  return { message: `${sample.name} · the stream`, shape: { sample: [item], positions: [position] }, limit: 8 * 1024 * 1024, sample, index: -1 };
}

/** A stream whose delta event is the case's array of events (each item one event), the other events around it. */
function streamBody(sample: Sample, c: PlannedCase): string {
  const delta = sample.events.findIndex((e) => e.data === (c.position.item ?? null));
  const text = c.text();
  // The case is a JSON array of events: its items become events of their own; a value that is not
  // an array of objects (nesting, a number) is sent as one event.
  let items: string[];
  try {
    const parsed = JSON.parse(text) as unknown;
    items = Array.isArray(parsed) && parsed.every((x) => x !== null && typeof x === 'object' && !Array.isArray(x)) ? parsed.map((x) => JSON.stringify(x)) : [text];
  } catch {
    items = [text];
  }
  const name = sample.events[delta]?.event;
  const lines = sample.events.flatMap((e, i) => (i === delta ? items.map((data) => `${name ? `event: ${name}\n` : ''}data: ${data}\n\n`) : [`${e.event ? `event: ${e.event}\n` : ''}data: ${JSON.stringify(e.data)}\n\n`]));
  return serialize(sample, -1, undefined, lines);
}
