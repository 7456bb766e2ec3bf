import * as vscode from 'vscode';
import type { Grant } from '../core';
import type { ToolPolicy } from '../core/consent/permissionGate';
import type { EditorContext } from '../protocol';
import type { ClientToolsContext } from './context';
import { safe, uiText, type SafeText } from '../core/uiText';
import { readConfig } from './settings/config';
import { Commands, SecretKeys, Views } from './ids';
import { selectionLabel } from './chat/editorContextSummary';
import * as ui from './ui';

const MAX_SELECTION_CHARS = 20_000;

/** Registers every palette command; each is owned by the extension context's subscriptions. */
export function registerCommands(ctx: ClientToolsContext): vscode.Disposable[] {
  const reg = (id: string, fn: (...args: unknown[]) => unknown) => vscode.commands.registerCommand(id, fn);
  return [
    reg(Commands.focusChat, () => focusChat(ctx)),
    reg(Commands.newChat, () => ctx.newChat()),
    reg(Commands.showChatHistory, () => ctx.showHistory()),
    reg(Commands.askAboutSelection, (question) => askAboutSelection(ctx, question)),
    reg(Commands.connect, () => ctx.connect()),
    reg(Commands.disconnect, () => ctx.disconnect()),
    reg(Commands.reconnect, () => ctx.reconnect()),
    reg(Commands.showToolGroups, () => vscode.commands.executeCommand(`${Views.toolGroups}.focus`)),
    reg(Commands.resetPermissions, () => resetPermissions(ctx)),
    reg(Commands.setApiKey, (value) => setSecret(ctx, SecretKeys.apiKey, safe`API key for the OpenAI-compatible endpoint`, safe`sk-…`, value)),
    reg(Commands.setBackendToken, (value) => setSecret(ctx, SecretKeys.backendToken, safe`Token of the agent backend set in clientTools.backendUrl`, safe``, value)),
    reg(Commands.selectModel, () => selectModel(ctx)),
    reg(Commands.useOfflineDemo, () => useOfflineDemo()),
    reg(Commands.showLog, () => ctx.log.show()),
    reg(Commands.copyConnectionInfo, () => copyConnectionInfo(ctx)),
    reg(Commands.statusBarActions, () => statusBarActions(ctx)),
    // From the Tool Groups view's context menu VS Code passes the tree's node.
    reg(Commands.allowTool, (node) => setToolPolicy(ctx, node, 'allow')),
    reg(Commands.askTool, (node) => setToolPolicy(ctx, node, 'ask')),
    reg(Commands.denyTool, (node) => setToolPolicy(ctx, node, 'deny')),
    reg(Commands.allowToolCurrent, (node) => setToolPolicy(ctx, node, 'allow')),
    reg(Commands.askToolCurrent, (node) => setToolPolicy(ctx, node, 'ask')),
    reg(Commands.denyToolCurrent, (node) => setToolPolicy(ctx, node, 'deny')),
    reg(Commands.refreshToolGroups, () => ctx.toolGroups.refresh()),
    reg(Commands.restartMcpServers, () => ctx.mcpServers.restartAll()),
    // From the diff editor's title bar VS Code passes the proposed document's URI.
    reg(Commands.acceptDiff, (uri) => decideDiff(ctx, uri, true)),
    reg(Commands.rejectDiff, (uri) => decideDiff(ctx, uri, false)),
  ];
}

/** Builds the editor context sent with a question: file, language, selection (capped). */
export function editorContext(editor: vscode.TextEditor | undefined): EditorContext | undefined {
  if (!editor) return undefined;
  const { document, selection } = editor;
  const text = document.getText(selection);
  return {
    file: vscode.workspace.asRelativePath(document.uri, false),
    language: document.languageId,
    selection: { startLine: selection.start.line, startCharacter: selection.start.character, endLine: selection.end.line, endCharacter: selection.end.character },
    selectedText: text.length > MAX_SELECTION_CHARS ? text.slice(0, MAX_SELECTION_CHARS) : text,
  };
}

/** Opens the chat with the keyboard in its message box. */
async function focusChat(ctx: ClientToolsContext): Promise<void> {
  await vscode.commands.executeCommand(`${Views.chat}.focus`);
  ctx.chat.focusInput();
}

/**
 * Ask About Selection: the selection goes to the chat's message box as a chip the user can remove,
 * and the question is typed there. A question given as the command's argument (automation) is sent
 * at once with the selection.
 */
async function askAboutSelection(ctx: ClientToolsContext, given: unknown): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.selection.isEmpty) {
    void ui.showInfo(safe`Select some text in an editor first.`);
    return;
  }
  const context = editorContext(editor);
  if (!context) return;
  await vscode.commands.executeCommand(`${Views.chat}.focus`);
  if (typeof given === 'string' && given.trim()) {
    ctx.send(given.trim(), context, true);
    return;
  }
  ctx.chat.attachSelection({ label: selectionLabel(context) ?? context.file ?? 'selection', context });
}

interface GrantItem extends ui.SafeQuickPickItem {
  /** Absent on "Forget all". */
  grant?: Grant;
}

/** Lists every remembered grant as its button said it; the user revokes any of them, or all. */
async function resetPermissions(ctx: ClientToolsContext): Promise<void> {
  const gate = ctx.core.permissions;
  const grants = gate.remembered();
  if (grants.length === 0 && !gate.denyingAll) {
    void ui.showInfo(safe`Client Tools: no remembered permissions.`);
    return;
  }
  const all: GrantItem = {
    label: safe`Forget all`,
    description: gate.denyingAll ? safe`${uiText(String(grants.length))} remembered, and lift "Deny All from This Backend"` : safe`${uiText(String(grants.length))} remembered`,
  };
  const items: GrantItem[] = [
    all,
    ...grants.map((grant) => ({
      // Labels name paths a backend chose: through the door, like any backend text.
      label: uiText(grant.label, { maxLength: 300 }),
      description: grant.scope === 'session' ? safe`this window` : safe`this workspace, kept across restarts`,
      grant,
    })),
  ];
  const picked = await ui.pickMany(items, { title: safe`Reset Permissions`, placeHolder: safe`Choose the remembered permissions to revoke` });
  if (!picked || picked.length === 0) return;
  if (picked.includes(all)) {
    await gate.forget();
    void ui.showInfo(safe`Client Tools: all remembered permissions forgotten.`);
    return;
  }
  for (const item of picked) if (item.grant) await gate.forget(item.grant);
  const count = uiText(`${picked.length} remembered permission${picked.length === 1 ? '' : 's'}`);
  void ui.showInfo(safe`Client Tools: ${count} revoked; those calls will ask again.`);
}

/** Stores a secret typed by the user, or passed as the command's argument (keybindings, automation). */
async function setSecret(ctx: ClientToolsContext, key: string, prompt: SafeText, placeHolder: SafeText, given: unknown): Promise<void> {
  const value = typeof given === 'string' ? given : await ui.askForText({ title: safe`Client Tools`, prompt, placeHolder, password: true, ignoreFocusOut: true });
  if (value === undefined) return;
  if (value === '') await ctx.extension.secrets.delete(key);
  else await ctx.extension.secrets.store(key, value.trim());
  void ui.showInfo(value === '' ? safe`Client Tools: secret removed.` : safe`Client Tools: secret saved in the secret store.`);
}

/** Select Model, then the key where the endpoint needs one, then a connection test that says how it went. */
async function selectModel(ctx: ClientToolsContext): Promise<void> {
  const chosen = await chooseModel();
  if (!chosen) return;
  if (chosen.needsKey && !(await ctx.extension.secrets.get(SecretKeys.apiKey))) {
    await setSecret(ctx, SecretKeys.apiKey, safe`API key for ${chosen.label} (kept in VS Code's secret store)`, safe`sk-…`, undefined);
  }
  const config = readConfig();
  const probe = await ui.withNotificationProgress(safe`Client Tools: testing the connection to the model…`, false,
    async () => ctx.modelEndpoint.check(config.model, await ctx.extension.secrets.get(SecretKeys.apiKey)));
  // The URL and name come from settings, which the user just typed: through the door all the same.
  const where = uiText(config.model.baseUrl);
  const name = uiText(config.model.name);
  if (!probe) return;
  if (!probe.reachable) void ui.showWarning(safe`Client Tools: ${uiText(probe.reason)}. The chat shows "Model unreachable" until it answers.`);
  else if (probe.modelListed === false) void ui.showWarning(safe`Client Tools: ${where} answered, but does not list the model ${name}.`);
  else void ui.showInfo(safe`Client Tools: ${where} answered; the chat now uses ${name}.`);
}

/** Switches the bundled backend to the offline demo model (no endpoint, no key): the way out of a model that does not answer. */
async function useOfflineDemo(): Promise<void> {
  const config = vscode.workspace.getConfiguration('clientTools');
  await config.update('model.baseUrl', '', vscode.ConfigurationTarget.Global);
  await config.update('model.name', '', vscode.ConfigurationTarget.Global);
  await config.update('model.provider', undefined, vscode.ConfigurationTarget.Global);
}

/** The picker and the questions that follow it; writes the settings. Undefined when the user gave up. */
async function chooseModel(): Promise<{ label: SafeText; needsKey: boolean } | undefined> {
  const config = vscode.workspace.getConfiguration('clientTools');
  const current = config.get<string>('model.name', '');
  const presets = [
    { label: safe`$(circle-slash) Offline demo model`, description: safe`no endpoint, works without a key`, baseUrl: '', name: '' },
    { label: safe`OpenAI`, description: safe`api.openai.com (asks for the API key)`, baseUrl: 'https://api.openai.com/v1', name: 'gpt-4.1-mini', needsKey: true },
    { label: safe`Ollama`, description: safe`http://127.0.0.1:11434/v1`, baseUrl: 'http://127.0.0.1:11434/v1', name: 'llama3.1' },
    { label: safe`LM Studio`, description: safe`http://127.0.0.1:1234/v1`, baseUrl: 'http://127.0.0.1:1234/v1', name: '' },
    { label: safe`vLLM`, description: safe`http://127.0.0.1:8000/v1`, baseUrl: 'http://127.0.0.1:8000/v1', name: '' },
    { label: safe`Azure OpenAI`, description: safe`your resource and deployment (set the API key)`, baseUrl: '', name: '', azure: true },
  ];
  // The current name comes from settings, which a workspace can set: through the door.
  const pick = await ui.pickOne(presets, { title: safe`Select Model`, placeHolder: current ? safe`Current: ${uiText(current)}` : safe`Current: offline demo model` });
  if (!pick) return undefined;
  if ('azure' in pick) return (await selectAzureModel(config, current)) ? { label: safe`Azure OpenAI`, needsKey: true } : undefined;
  let name = pick.name;
  if (pick.baseUrl) {
    const typed = await ui.askForText({ title: safe`Model name`, value: name || current, prompt: safe`Model served by ${pick.description}` });
    if (typed === undefined) return undefined;
    name = typed.trim();
  }
  await config.update('model.baseUrl', pick.baseUrl, vscode.ConfigurationTarget.Global);
  await config.update('model.name', name, vscode.ConfigurationTarget.Global);
  await config.update('model.provider', undefined, vscode.ConfigurationTarget.Global);
  return { label: pick.label, needsKey: 'needsKey' in pick };
}

/** Azure routes by resource and deployment, not base URL and model: ask for those two. */
async function selectAzureModel(config: vscode.WorkspaceConfiguration, current: string): Promise<boolean> {
  const endpoint = await ui.askForText({ title: safe`Azure OpenAI resource`, value: config.get<string>('model.azure.endpoint', ''), prompt: safe`e.g. https://my-resource.openai.azure.com/`, ignoreFocusOut: true });
  if (!endpoint?.trim()) return false;
  const deployment = await ui.askForText({ title: safe`Azure OpenAI deployment`, value: current, prompt: safe`The deployment name (it is also sent as the model name)`, ignoreFocusOut: true });
  if (!deployment?.trim()) return false;
  await config.update('model.baseUrl', '', vscode.ConfigurationTarget.Global);
  await config.update('model.provider', 'azure', vscode.ConfigurationTarget.Global);
  await config.update('model.azure.endpoint', endpoint.trim(), vscode.ConfigurationTarget.Global);
  await config.update('model.name', deployment.trim(), vscode.ConfigurationTarget.Global);
  return true;
}

async function copyConnectionInfo(ctx: ClientToolsContext): Promise<void> {
  const s = ctx.connectionState;
  // The token stays out: it is a secret and the clipboard is not.
  const info = {
    endpoint: ctx.endpoint,
    state: s.kind,
    ...(s.kind === 'connected' ? { sessionId: s.sessionId, model: s.welcome.server.model, server: `${s.welcome.server.name} ${s.welcome.server.version}`, protocol: s.welcome.protocol } : {}),
    client: `${vscode.env.appName} ${vscode.version}`,
  };
  await vscode.env.clipboard.writeText(JSON.stringify(info, null, 2));
  void ui.showInfo(safe`Client Tools: connection info copied (without the token).`);
}

async function statusBarActions(ctx: ClientToolsContext): Promise<void> {
  // While a prompt waits in the chat, the status bar's "awaiting permission" leads straight to it.
  if (ctx.chatPrompts.isOpen) {
    await vscode.commands.executeCommand(`${Views.chat}.focus`);
    return;
  }
  const s = ctx.connectionState.kind;
  const items: (ui.SafeQuickPickItem & { command: string })[] = [
    { label: safe`$(comment-discussion) Focus Chat`, command: Commands.focusChat },
    ...(s === 'connected' ? [{ label: safe`$(debug-disconnect) Disconnect`, command: Commands.disconnect }] : [{ label: safe`$(plug) Connect`, command: Commands.connect }]),
    { label: safe`$(refresh) Reconnect`, command: Commands.reconnect },
    { label: safe`$(list-tree) Show Tool Groups`, command: Commands.showToolGroups },
    { label: safe`$(hubot) Select Model`, command: Commands.selectModel },
    { label: safe`$(output) Show Log`, command: Commands.showLog },
  ];
  const pick = await ui.pickOne(items, { title: safe`Client Tools` });
  if (pick) await vscode.commands.executeCommand(pick.command);
}

/** A tool's policy from the Tool Groups view; only for a tool node of a tool that asks permission. */
async function setToolPolicy(ctx: ClientToolsContext, node: unknown, policy: ToolPolicy): Promise<void> {
  const name = node !== null && typeof node === 'object' && (node as { kind?: unknown }).kind === 'tool' ? (node as { name?: unknown }).name : undefined;
  const entry = typeof name === 'string' ? ctx.core.registry.get(name) : undefined;
  if (!entry?.tool.requiresPermission) return;
  // Kept under the tool's identity, so it follows this tool and no other of the same name.
  await ctx.toolPolicies.set(entry.key, entry.tool.name, policy);
  ctx.log.info(`Tool policy of ${entry.tool.name} (${entry.key}): ${policy}`);
}

/**
 * Accept or Reject for a review (OpenDiff's or a multi-file change's): the one the title bar names or
 * the active editor shows, else the only one open of either kind. Exactly one review is decided, so
 * an Accept declined in its modal never falls through to another review.
 */
async function decideDiff(ctx: ClientToolsContext, uri: unknown, accept: boolean): Promise<boolean> {
  const { diffs, changes } = ctx.host;
  const open = diffs.pending + changes.pending;
  const reviews = changes.shows(uri) ? changes : diffs.shows(uri) ? diffs : open === 1 ? (diffs.pending === 1 ? diffs : changes) : undefined;
  const done = reviews !== undefined && (accept ? await reviews.accept(uri) : await reviews.reject(uri));
  if (reviews === undefined) {
    void ui.showInfo(open === 0 ? safe`Client Tools: no proposed change is waiting for review.` : safe`Client Tools: focus the diff to accept or reject first.`);
  }
  return done;
}
