/**
 * The extension under test in a process of its own, as far as it runs in plain Node: `ClientCore`
 * with every built-in tool group and a `Fuzz` group, a fake host on a real temporary workspace
 * that puts prompts and notifications through the same door as the extension's presenters (src/vscode/prompts/, uiText), the
 * log's line formatting, and the chat's path for what the backend sends (src/vscode/chat/chatBridge.ts
 * to the webview's message schema, its reducer and its markdown renderer, as the view does per
 * frame on `flush`); tool group state through the door as the Tool Groups view shows it.
 *
 *   argv: {"url": "ws://127.0.0.1:N", "token": "..."}
 */
import { writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { lineLogger } from '../../../src/base/logger';
import { ClientCore } from '../../../src/core/clientCore';
import { uiText } from '../../../src/core/uiText';
import { HostToWebview } from '../../../src/protocol/webview';
import { registerBuiltinGroups } from '../../../src/tools';
import { toChatCallRecord, toChatRunEvent } from '../../../src/vscode/chat/chatBridge';
import { renderMarkdown } from '../../../src/webview/markdown';
import { initialState, reduce, transcriptOf, type ChatState } from '../../../src/webview/state';
import { fuzzTools, workspace } from '../support/doorHost';
import { ready, onRequest, serveHealth } from '../support/hostAgent';

async function main(): Promise<void> {
  const { url, token } = JSON.parse(process.argv[2]) as { url: string; token: string };
  const { host, folder, restoreFiles } = await workspace();
  // Messages the connection refused unread, counted from its log: a refused call has no request id to answer.
  let refused = 0;
  const core = new ClientCore({
    url,
    token,
    clientInfo: { name: 'fuzz', version: '0.0.0', ide: 'none' },
    host,
    presenter: host,
    logger: lineLogger((_level, line) => void (line.startsWith('message from the backend refused') && refused++)),
    connection: { handshakeTimeoutMs: 1_000, heartbeatMs: 60_000, reconnect: { initialDelayMs: 5, maxDelayMs: 20, maxAttempts: 1_000_000 } },
    permissions: { backgroundCalls: 'allow', barrage: { maxPromptsPerMinute: 1_000_000 } },
  });
  registerBuiltinGroups(core.registry);
  core.registry.register({ name: 'Fuzz', description: 'Tools of the fuzzer.' }, fuzzTools());

  // The chat: what the view would receive, checked by its schema, reduced; rendered on flush.
  let chat: ChatState = initialState();
  const rendered = new Map<string, string>();
  const post = (message: unknown) => {
    const parsed = HostToWebview.safeParse(JSON.parse(JSON.stringify(message)));
    if (parsed.success) chat = reduce(chat, parsed.data);
  };
  const toBase64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
  core.onRunEvent((e) => post({ type: 'runEvent', event: toChatRunEvent(e, toBase64) }));
  core.onCallRecord((r) => post({ type: 'callRecord', record: toChatCallRecord(r, toBase64) }));
  core.onServerError((e) => uiText(`backend error ${e.code}: ${e.message}`));
  core.onToolGroupState((s) => {
    for (const g of s.groups) {
      uiText(g.name);
      uiText(g.description);
      for (const t of g.tools) uiText(t.name);
    }
  });
  core.onWelcome((w) => uiText(w.server.model.name));

  onRequest('flush', async () => {
    const shown = new Set<string>();
    for (const item of chat.items) {
      if (item.kind !== 'answer') continue;
      shown.add(item.id);
      if (rendered.get(item.id) === item.text) continue;
      renderMarkdown(item.text);
      rendered.set(item.id, item.text);
    }
    for (const id of rendered.keys()) if (!shown.has(id)) rendered.delete(id);
    transcriptOf(chat);
    await restoreFiles();
    return { items: chat.items.length };
  });
  onRequest('ensureConnected', () => {
    if (core.state.kind === 'stopped' || core.state.kind === 'idle') core.start();
    return core.state.kind;
  });
  onRequest('state', () => core.state.kind);
  onRequest('refused', () => refused);
  // For npm run bench's attacks: a file of the attack's own in the workspace.
  onRequest('write', async (payload) => {
    const { relative, content } = payload as { relative: string; content: string };
    await writeFile(path.join(folder, path.basename(relative)), content);
  });
  core.start();
  ready({ healthUrl: await serveHealth(), tools: core.registry.allDefinitions().flatMap((g) => g.tools.map((t) => ({ name: t.name, parameters: t.parameters }))) }, async () => core.dispose());
}

void main();
