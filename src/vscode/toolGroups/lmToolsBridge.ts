/**
 * The `VSCodeTools` group: language-model tools registered by other extensions (`vscode.lm.tools`),
 * offered to the agent when the user enables them in `clientTools.vscodeTools.enabled` (off by
 * default). Calls go through `vscode.lm.invokeTool`, so each tool's own confirmation still applies;
 * our permission prompt is added only with `clientTools.vscodeTools.askPermission`.
 *
 * VS Code 1.100 has no event for changes to `vscode.lm.tools`, so the list is compared every 10 s
 * (a cheap check while enabled; nothing runs when the setting is empty). A change re-registers the
 * group, and the registry's change event tells the backend (`updateToolGroups`).
 */
import * as vscode from 'vscode';
import type { ContentItem } from '../../protocol';
import type { Disposable, ToolRegistry } from '../../core';
import { bridgeTools, isEnabled, type LmToolInfo } from '../../tools/vscodeTools/lmBridge';
import { readVscodeToolsConfig } from '../settings/config';

export const POLL_MS = 10_000;
const MIME = /^[\w.+-]+\/[\w.+-]+$/;

export class LmToolsBridge implements vscode.Disposable {
  private registration: Disposable | undefined;
  private signature = '';
  private poll: NodeJS.Timeout | undefined;
  private readonly disposables: vscode.Disposable[];

  constructor(
    private readonly registry: ToolRegistry,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.disposables = [
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('clientTools.vscodeTools')) this.refresh();
      }),
    ];
    this.refresh();
  }

  /** Whether the group is registered right now. */
  get registered(): boolean {
    return this.registration !== undefined;
  }

  /** Re-reads the setting and `vscode.lm.tools`; re-registers the group when anything changed. */
  refresh(): void {
    const config = readVscodeToolsConfig();
    if (config.enabled.length === 0) {
      this.stopPolling();
      this.unregister();
      this.signature = '';
      return;
    }
    this.poll ??= setInterval(() => this.refresh(), POLL_MS);
    const infos: LmToolInfo[] = (vscode.lm.tools ?? [])
      .filter((t) => isEnabled(t.name, config.enabled))
      .map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
    const signature = JSON.stringify([config.askPermission, config.enabled, infos]);
    if (signature === this.signature) return;
    this.signature = signature;
    this.unregister();
    if (infos.length === 0) return;
    const bridged = bridgeTools(infos, config.enabled, invokeLmTool, {
      isTaken: (name) => this.registry.holdsFunctionName(name),
      requirePermission: config.askPermission,
    });
    for (const s of bridged.skipped) this.log.warn(`VS Code tool left out: ${s}`);
    try {
      this.registration = this.registry.register(bridged.group, bridged.tools, { source: { kind: 'vscode' } });
      this.log.info(`VS Code tools offered to the agent: ${[...bridged.names].map(([ours, theirs]) => (ours === theirs ? ours : `${ours} (${theirs})`)).join(', ')}`);
    } catch (e) {
      this.log.error(`Could not offer VS Code tools to the agent: ${(e as Error).message}`);
    }
  }

  dispose(): void {
    this.stopPolling();
    this.unregister();
    for (const d of this.disposables) d.dispose();
  }

  private unregister(): void {
    this.registration?.dispose();
    this.registration = undefined;
  }

  private stopPolling(): void {
    clearInterval(this.poll);
    this.poll = undefined;
  }
}

async function invokeLmTool(name: string, input: Record<string, unknown>, signal: AbortSignal): Promise<ContentItem[]> {
  const source = new vscode.CancellationTokenSource();
  const onAbort = () => source.cancel();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }, source.token);
    return result.content.map(toContentItem);
  } finally {
    signal.removeEventListener('abort', onAbort);
    source.dispose();
  }
}

/**
 * Text parts become text; prompt-tsx parts their JSON; a data part (`mimeType` + `data` bytes, not in
 * the 1.100 API but sent by newer VS Code) binary content; anything else JSON.
 */
export function toContentItem(part: unknown): ContentItem {
  if (part instanceof vscode.LanguageModelTextPart) return { type: 'text', text: part.value };
  if (part instanceof vscode.LanguageModelPromptTsxPart) return { type: 'json', value: jsonSafe(part.value) };
  if (typeof part === 'object' && part !== null) {
    const p = part as { mimeType?: unknown; data?: unknown; value?: unknown };
    if (typeof p.mimeType === 'string' && p.data instanceof Uint8Array) {
      const mimeType = MIME.test(p.mimeType) ? p.mimeType : 'application/octet-stream';
      if (mimeType.startsWith('text/') || mimeType === 'application/json') return { type: 'text', text: new TextDecoder().decode(p.data) };
      return { type: 'binary', mimeType, bytes: new Uint8Array(p.data) };
    }
    if (typeof p.value === 'string') return { type: 'text', text: p.value };
  }
  return { type: 'json', value: jsonSafe(part) };
}

function jsonSafe(value: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(value ?? null)) as unknown;
  } catch {
    return String(value);
  }
}
