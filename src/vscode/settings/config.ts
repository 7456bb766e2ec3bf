import * as vscode from 'vscode';
import { readRememberScope, userValue } from './userSetting';
import type { BackgroundCallPolicy } from '../../core/callRecord';
import { RECONNECT_SETTINGS, SETTINGS, SETTINGS_SECTION, type SettingKey } from './settingsTable';

/**
 * Typed view of the `clientTools.*` settings, with the defaults, bounds and choices of the settings
 * table (settingsTable.ts). Read fresh each time: settings can change at any moment.
 */
export interface ClientToolsConfig {
  backendUrl: string;
  model: { baseUrl: string; name: string; api: 'chat' | 'responses'; provider: 'openai' | 'azure'; azure: { endpoint: string; deployment: string; apiVersion: string }; /** Tokens; 0 = by model family. */ contextWindow: number; vision: 'auto' | 'on' | 'off'; imageMaxSide: number; firstByteTimeoutSeconds: number; idleTimeoutSeconds: number; retries: number };
  invokeTimeoutSeconds: number;
  disconnectStrategy: 'failFast' | 'retryWithBackoff' | 'fallbackMessage' | 'suspend';
  permissions: { rememberScope: 'session' | 'workspace'; promptTimeoutSeconds: number; backgroundCalls: BackgroundCallPolicy };
  limits: { maxMessageBytes: number; maxInFlight: number; maxResultBytes: number };
  reconnect: { maxAttempts: number; maxDelaySeconds: number };
}

const ROOT = SETTINGS_SECTION;

export function readConfig(): ClientToolsConfig {
  const c = vscode.workspace.getConfiguration(ROOT);
  return {
    backendUrl: machineValue(c, 'backendUrl'),
    model: {
      baseUrl: machineValue(c, 'model.baseUrl'),
      name: machineValue(c, 'model.name'),
      api: machineValue(c, 'model.api') === 'responses' ? 'responses' : 'chat',
      provider: machineValue(c, 'model.provider') === 'azure' ? 'azure' : 'openai',
      azure: { endpoint: machineValue(c, 'model.azure.endpoint'), deployment: machineValue(c, 'model.azure.deployment'), apiVersion: machineValue(c, 'model.azure.apiVersion') },
      contextWindow: contextWindowValue(c),
      vision: oneOf(c, 'model.vision'),
      imageMaxSide: num(c, 'model.imageMaxSide'),
      firstByteTimeoutSeconds: num(c, 'model.firstByteTimeoutSeconds'),
      idleTimeoutSeconds: num(c, 'model.idleTimeoutSeconds'),
      retries: num(c, 'model.retries'),
    },
    invokeTimeoutSeconds: num(c, 'invokeTimeoutSeconds'),
    disconnectStrategy: oneOf(c, 'disconnectStrategy'),
    permissions: {
      // User settings only: a workspace must not widen a grant beyond what its button says.
      rememberScope: readRememberScope(c),
      promptTimeoutSeconds: num(c, 'permissions.promptTimeoutSeconds'),
      backgroundCalls: readBackgroundCalls(c),
    },
    limits: {
      maxMessageBytes: num(c, 'limits.maxMessageBytes'),
      maxInFlight: num(c, 'limits.maxInFlight'),
      maxResultBytes: num(c, 'limits.maxResultBytes'),
    },
    reconnect: {
      maxAttempts: num(c, 'reconnect.maxAttempts'),
      maxDelaySeconds: num(c, 'reconnect.maxDelaySeconds'),
    },
  };
}

/** `clientTools.chat.showExpansionSteps`: group expansions as their own card and line in the chat (default: folded into the tool card). */
export function readShowExpansionSteps(): boolean {
  return vscode.workspace.getConfiguration(ROOT).get<unknown>('chat.showExpansionSteps', false) === true;
}

/**
 * A number setting held to the bounds package.json declares: VS Code does not enforce `minimum` and
 * `maximum`, and a 0 or negative limit would switch a safety cap off.
 */
function num(c: vscode.WorkspaceConfiguration, key: NumberKey): number {
  const { default: fallback, minimum: min, maximum: max } = SETTINGS[key];
  const v = c.get<unknown>(key, fallback);
  return typeof v === 'number' && Number.isFinite(v) ? Math.min(max, Math.max(min, Math.floor(v))) : fallback;
}

function oneOf<K extends ChoiceKey>(c: vscode.WorkspaceConfiguration, key: K): (typeof SETTINGS)[K]['enum'][number] {
  const { default: fallback, enum: allowed } = SETTINGS[key];
  const v = c.get<unknown>(key, fallback);
  return (allowed as readonly unknown[]).includes(v) ? (v as (typeof SETTINGS)[K]['enum'][number]) : fallback;
}

/** The number settings with both bounds, and the settings with a list of choices. */
type NumberKey = { [K in SettingKey]: (typeof SETTINGS)[K] extends { type: 'number'; minimum: number; maximum: number } ? K : never }[SettingKey];
type ChoiceKey = { [K in SettingKey]: (typeof SETTINGS)[K] extends { enum: readonly string[] } ? K : never }[SettingKey];
/** String settings the table says are read from the user's settings only. */
type UserStringKey = { [K in SettingKey]: (typeof SETTINGS)[K] extends { type: 'string'; userOnly: true } ? K : never }[SettingKey];

/** `clientTools.model.contextWindow`: the user's value only, a whole number of tokens from 1024, else 0 (by model). */
function contextWindowValue(c: vscode.WorkspaceConfiguration): number {
  const value = userValue(c, 'model.contextWindow');
  return typeof value === 'number' && Number.isInteger(value) && value >= 1024 && value <= 100_000_000 ? value : 0;
}

/**
 * Settings that decide where the extension connects must never come from a workspace, even if a
 * `.vscode/settings.json` tries: read only the user (global) value, ignoring workspace layers.
 */
function machineValue(c: vscode.WorkspaceConfiguration, key: UserStringKey): string {
  const value = userValue(c, key);
  return typeof value === 'string' ? value.trim() : SETTINGS[key].default;
}

/**
 * `clientTools.permissions.backgroundCalls` is an application setting: whether the backend may act
 * while the user is not running the chat is never a workspace's choice, so only the user value counts.
 */
function readBackgroundCalls(c: vscode.WorkspaceConfiguration): BackgroundCallPolicy {
  const value = userValue(c, 'permissions.backgroundCalls');
  return value === 'allow' || value === 'deny' ? value : 'ask';
}

export function affectsConnection(e: vscode.ConfigurationChangeEvent): boolean {
  return RECONNECT_SETTINGS.some((k) => e.affectsConfiguration(`${ROOT}.${k}`));
}

/** More replicas than this are ignored: each one is a place the token is sent. */
const MAX_BACKEND_URLS = SETTINGS.backendUrls.maxItems;

/**
 * `clientTools.backendUrls`: further replicas of the backend in `clientTools.backendUrl`, tried in
 * turn when the connection drops. Machine scope and the user value only, like `backendUrl`: the
 * token goes to each of them, so a workspace must not add one. Ignored while `backendUrl` is empty.
 */
export function readBackendFallbackUrls(): string[] {
  const value = userValue(vscode.workspace.getConfiguration(ROOT), 'backendUrls');
  if (!Array.isArray(value)) return [];
  return value.filter((u): u is string => typeof u === 'string' && u.trim() !== '').map((u) => u.trim()).slice(0, MAX_BACKEND_URLS);
}

export interface VscodeToolsConfig {
  /** Language-model tool names to offer the agent, or `*` for all; empty offers none. */
  enabled: string[];
  /** Ask through Client Tools' own permission prompt before each call. */
  askPermission: boolean;
}

/**
 * `clientTools.vscodeTools.*` are application settings: which editor tools the agent may call is
 * the user's choice, never a workspace's, so only the user (global) value is read.
 */
export function readVscodeToolsConfig(): VscodeToolsConfig {
  const c = vscode.workspace.getConfiguration(ROOT);
  const enabled = userValue(c, 'vscodeTools.enabled');
  const ask = userValue(c, 'vscodeTools.askPermission');
  return {
    enabled: Array.isArray(enabled) ? enabled.filter((n): n is string => typeof n === 'string' && n.trim() !== '').map((n) => n.trim()) : [],
    askPermission: ask === true,
  };
}

/** `clientTools.editorContext.enabled`: push the active editor's file, cursor and selection to the backend. */
export function readEditorContextEnabled(): boolean {
  return vscode.workspace.getConfiguration(ROOT).get<boolean>('editorContext.enabled', false) === true;
}

/** More than this many user patterns are ignored (each one is matched against every path a tool resolves). */
const MAX_PROTECTED_PATTERNS = 200;

/**
 * `clientTools.permissions.promptStyle`: permission prompts in the chat (default) or in a modal
 * dialog. Either way the prompt shows the same texts and the same choices.
 */
export function readPromptStyle(): 'chat' | 'modal' {
  return vscode.workspace.getConfiguration(ROOT).get<string>('permissions.promptStyle') === 'modal' ? 'modal' : 'chat';
}

/**
 * `clientTools.permissions.protectedPatterns`: the user's own globs for files that always prompt,
 * added to the built-in list. An application setting, and only the user (global) value is read: a
 * workspace could otherwise shrink it (to nothing) or widen it (to annoy into "Allow").
 */
export function readProtectedPatterns(): string[] {
  const value = userValue(vscode.workspace.getConfiguration(ROOT), 'permissions.protectedPatterns');
  if (!Array.isArray(value)) return [];
  return value.filter((p): p is string => typeof p === 'string' && p.trim() !== '').map((p) => p.trim()).slice(0, MAX_PROTECTED_PATTERNS);
}
