/**
 * Every `clientTools.*` setting in one table: its type, default, bounds, scope, whether only the
 * user's own value counts, and what a change does. package.json's `contributes.configuration` says
 * the same (with the descriptions) and a unit test fails when the two differ; the reader
 * (config.ts) takes defaults, bounds and choices from here. No `vscode` import, so the test runs in
 * plain Node.
 */

/** What a change of the setting does: `reconnect` restarts the connection to the backend; `live` applies at once or at the next use. */
export type SettingReload = 'reconnect' | 'live';

export interface SettingSpec {
  readonly type: 'string' | 'number' | 'integer' | 'boolean' | 'array';
  readonly default: unknown;
  /** Where VS Code lets the setting be set (package.json's `scope`). */
  readonly scope: 'machine' | 'application' | 'window';
  readonly minimum?: number;
  readonly maximum?: number;
  readonly enum?: readonly string[];
  /** Most entries of an array setting. */
  readonly maxItems?: number;
  /** Read from the user's own settings only, workspace values ignored (userSetting.ts). */
  readonly userOnly: boolean;
  readonly reload: SettingReload;
}

/** The section every key below lives in. */
export const SETTINGS_SECTION = 'clientTools';

const MIB = 1024 * 1024;

export const SETTINGS = {
  backendUrl: { type: 'string', default: '', scope: 'machine', userOnly: true, reload: 'reconnect' },
  backendUrls: { type: 'array', default: [], scope: 'machine', maxItems: 16, userOnly: true, reload: 'reconnect' },
  'model.baseUrl': { type: 'string', default: '', scope: 'application', userOnly: true, reload: 'reconnect' },
  'model.name': { type: 'string', default: '', scope: 'application', userOnly: true, reload: 'reconnect' },
  'model.api': { type: 'string', default: 'chat', scope: 'application', enum: ['chat', 'responses'], userOnly: true, reload: 'reconnect' },
  'model.provider': { type: 'string', default: 'openai', scope: 'application', enum: ['openai', 'azure'], userOnly: true, reload: 'reconnect' },
  'model.azure.endpoint': { type: 'string', default: '', scope: 'application', userOnly: true, reload: 'reconnect' },
  'model.azure.deployment': { type: 'string', default: '', scope: 'application', userOnly: true, reload: 'reconnect' },
  'model.azure.apiVersion': { type: 'string', default: '', scope: 'application', userOnly: true, reload: 'reconnect' },
  'model.contextWindow': { type: 'integer', default: 0, scope: 'application', minimum: 0, userOnly: true, reload: 'reconnect' },
  'model.vision': { type: 'string', default: 'auto', scope: 'application', enum: ['auto', 'on', 'off'], userOnly: false, reload: 'reconnect' },
  'model.imageMaxSide': { type: 'number', default: 1568, scope: 'application', minimum: 16, maximum: 16_384, userOnly: false, reload: 'reconnect' },
  'model.firstByteTimeoutSeconds': { type: 'number', default: 60, scope: 'application', minimum: 1, maximum: 3600, userOnly: false, reload: 'reconnect' },
  'model.idleTimeoutSeconds': { type: 'number', default: 30, scope: 'application', minimum: 1, maximum: 3600, userOnly: false, reload: 'reconnect' },
  'model.retries': { type: 'number', default: 2, scope: 'application', minimum: 0, maximum: 10, userOnly: false, reload: 'reconnect' },
  invokeTimeoutSeconds: { type: 'number', default: 30, scope: 'application', minimum: 1, maximum: 3600, userOnly: false, reload: 'reconnect' },
  disconnectStrategy: { type: 'string', default: 'retryWithBackoff', scope: 'application', enum: ['failFast', 'retryWithBackoff', 'fallbackMessage', 'suspend'], userOnly: false, reload: 'reconnect' },
  'permissions.rememberScope': { type: 'string', default: 'session', scope: 'application', enum: ['session', 'workspace'], userOnly: true, reload: 'live' },
  'chat.showExpansionSteps': { type: 'boolean', default: false, scope: 'window', userOnly: false, reload: 'live' },
  'permissions.promptStyle': { type: 'string', default: 'chat', scope: 'application', enum: ['chat', 'modal'], userOnly: false, reload: 'live' },
  'permissions.promptTimeoutSeconds': { type: 'number', default: 300, scope: 'application', minimum: 10, maximum: 3600, userOnly: false, reload: 'live' },
  'permissions.protectedPatterns': { type: 'array', default: [], scope: 'application', userOnly: true, reload: 'live' },
  'permissions.backgroundCalls': { type: 'string', default: 'ask', scope: 'application', enum: ['ask', 'allow', 'deny'], userOnly: true, reload: 'live' },
  'limits.maxMessageBytes': { type: 'number', default: 32 * MIB, scope: 'application', minimum: 65_536, maximum: 256 * MIB, userOnly: false, reload: 'reconnect' },
  'limits.maxInFlight': { type: 'number', default: 64, scope: 'application', minimum: 1, maximum: 1024, userOnly: false, reload: 'reconnect' },
  'limits.maxResultBytes': { type: 'number', default: 16 * MIB, scope: 'application', minimum: 1024, maximum: 128 * MIB, userOnly: false, reload: 'reconnect' },
  'reconnect.maxAttempts': { type: 'number', default: 10, scope: 'application', minimum: 1, maximum: 1000, userOnly: false, reload: 'reconnect' },
  'reconnect.maxDelaySeconds': { type: 'number', default: 30, scope: 'application', minimum: 1, maximum: 600, userOnly: false, reload: 'reconnect' },
  'vscodeTools.enabled': { type: 'array', default: [], scope: 'application', userOnly: true, reload: 'live' },
  'mcpServers.enabled': { type: 'boolean', default: true, scope: 'application', userOnly: true, reload: 'live' },
  'vscodeTools.askPermission': { type: 'boolean', default: false, scope: 'application', userOnly: true, reload: 'live' },
  'mcpServer.enabled': { type: 'boolean', default: false, scope: 'application', userOnly: true, reload: 'live' },
  'mcpServer.port': { type: 'integer', default: 0, scope: 'application', minimum: 0, maximum: 65535, userOnly: true, reload: 'live' },
  agents: { type: 'array', default: [], scope: 'application', maxItems: 32, userOnly: true, reload: 'live' },
  'editorContext.enabled': { type: 'boolean', default: false, scope: 'window', userOnly: false, reload: 'live' },
} as const satisfies Record<string, SettingSpec>;

export type SettingKey = keyof typeof SETTINGS;

/** The keys whose change restarts the connection to the backend. */
export const RECONNECT_SETTINGS: readonly SettingKey[] = (Object.keys(SETTINGS) as SettingKey[]).filter((k) => SETTINGS[k].reload === 'reconnect');

/** The fields package.json and the table must agree on, per key. */
const COMPARED = ['type', 'default', 'scope', 'minimum', 'maximum', 'enum', 'maxItems'] as const;

/**
 * Where `contributes.configuration.properties` (package.json) and the table differ: a key only one
 * of them has, or a compared field with another value. Empty when they agree.
 */
export function settingsDrift(contributed: Readonly<Record<string, Readonly<Record<string, unknown>>>>, table: Readonly<Record<string, SettingSpec>> = SETTINGS): string[] {
  const drift: string[] = [];
  const prefix = `${SETTINGS_SECTION}.`;
  for (const key of Object.keys(contributed)) {
    if (!key.startsWith(prefix) || !(key.slice(prefix.length) in table)) drift.push(`${key}: in package.json, not in the settings table`);
  }
  for (const [key, spec] of Object.entries(table)) {
    const declared = contributed[prefix + key];
    if (!declared) {
      drift.push(`${prefix}${key}: in the settings table, not in package.json`);
      continue;
    }
    for (const field of COMPARED) {
      const ours = JSON.stringify(spec[field]);
      const theirs = JSON.stringify(declared[field]);
      if (ours !== theirs) drift.push(`${prefix}${key}.${field}: package.json ${theirs ?? 'absent'}, settings table ${ours ?? 'absent'}`);
    }
  }
  return drift;
}
