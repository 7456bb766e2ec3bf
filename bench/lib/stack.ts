/**
 * The full stack the round-trip benchmarks drive: the backend library (createBackend) listening on
 * loopback, and the extension's real ClientCore (connection, registry, permission gate, dispatcher)
 * with the plain-Node fake host, connected to it over a real WebSocket, with the benchmark's tools
 * registered in one group. Both sides run in this process.
 */
import type { Backend, BackendOptions } from '../../src/backend';
import { createBackend } from '../../src/backend';
import { ClientCore, defineTool, type ClientLimits, type ClientTool, type ToolResult } from '../../src/core';
import { createTempWorkspace, type TempWorkspace } from '../../test/support/fake-host';

export const TOKEN = 'bench-token-0123456789abcdef';
export const GROUP = 'Bench';

export interface Stack {
  backend: Backend;
  core: ClientCore;
  sessionId: string;
  workspace: TempWorkspace;
  close(): Promise<void>;
}

const EMPTY = { type: 'object', properties: {}, additionalProperties: false };

/** A tool that does nothing and answers "ok". */
export const noopTool: ClientTool = defineTool({
  name: 'Noop',
  group: GROUP,
  description: 'Does nothing and answers ok.',
  parameters: EMPTY,
  requiresPermission: false,
  declineStrategy: 'reject',
  availableWhenUntrusted: true,
  run: async (): Promise<ToolResult> => ({ content: [{ type: 'text', text: 'ok' }] }),
});

/** A tool that answers with `size` bytes of binary content (the same buffer every time, as a file cache would). */
export function blobTool(buffers: ReadonlyMap<number, Uint8Array>): ClientTool {
  return defineTool<{ size: number }>({
    name: 'Blob',
    group: GROUP,
    description: 'Returns binary content of the given size.',
    parameters: { type: 'object', properties: { size: { type: 'integer' } }, required: ['size'], additionalProperties: false },
    requiresPermission: false,
    declineStrategy: 'reject',
    availableWhenUntrusted: true,
    run: async (args): Promise<ToolResult> => {
      const bytes = buffers.get(args.size) as Uint8Array<ArrayBuffer> | undefined;
      if (!bytes) throw new Error(`no buffer of ${args.size} bytes`);
      return { content: [{ type: 'binary', mimeType: 'application/octet-stream', bytes }] };
    },
  });
}

export async function startStack(tools: ClientTool[], options: { backend?: BackendOptions; limits?: Partial<ClientLimits> } = {}): Promise<Stack> {
  const backend = await createBackend({ token: TOKEN, builtinTools: false, ...options.backend });
  const sessionIds: string[] = [];
  backend.on('session', (s) => sessionIds.push(s.sessionId));
  const workspace = await createTempWorkspace(['ws']);
  const core = new ClientCore({
    url: backend.url,
    token: TOKEN,
    clientInfo: { name: 'bench', version: '0', ide: 'node' },
    host: workspace.host,
    limits: options.limits,
    preExpanded: [GROUP],
    // The benchmark's backend calls tools outside any chat run; measure the calls, not prompts.
    permissions: { backgroundCalls: 'allow' },
  });
  core.registry.register({ name: GROUP, description: 'Benchmark tools.', startCollapsed: false }, tools);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the client did not connect within 10 s')), 10_000);
    const sub = core.onDidChangeState((s) => {
      if (s.kind === 'connected') {
        clearTimeout(timer);
        sub.dispose();
        resolve();
      } else if (s.kind === 'stopped') {
        clearTimeout(timer);
        reject(new Error(`the client stopped: ${s.reason}`));
      }
    });
    core.start();
  });
  while (sessionIds.length === 0) await new Promise((r) => setTimeout(r, 5));
  return {
    backend,
    core,
    sessionId: sessionIds[0],
    workspace,
    async close() {
      core.dispose();
      await backend.close();
      await workspace.dispose();
    },
  };
}
