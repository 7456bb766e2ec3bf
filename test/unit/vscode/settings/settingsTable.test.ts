import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { RECONNECT_SETTINGS, SETTINGS, settingsDrift, type SettingSpec } from '../../../../src/vscode/settings/settingsTable';

const packageJson = JSON.parse(readFileSync(path.join(__dirname, '../../../../package.json'), 'utf8')) as { contributes: { configuration: { properties: Record<string, Record<string, unknown>> } } };
const contributed = packageJson.contributes.configuration.properties;

describe('settings: one table that package.json is checked against', () => {
  it('package.json declares exactly the settings of the table, with the same type, default, bounds, choices and scope', () => {
    assert.deepEqual(settingsDrift(contributed), [], 'change package.json and src/vscode/settings/settingsTable.ts together');
  });

  it('the check fails on a drift in either direction, naming the key and the field', () => {
    const changed = structuredClone(contributed);
    changed['clientTools.invokeTimeoutSeconds'] = { ...changed['clientTools.invokeTimeoutSeconds'], default: 60 };
    changed['clientTools.limits.maxInFlight'] = { ...changed['clientTools.limits.maxInFlight'], maximum: 4096 };
    changed['clientTools.permissions.backgroundCalls'] = { ...changed['clientTools.permissions.backgroundCalls'], scope: 'window' };
    delete changed['clientTools.model.vision'];
    changed['clientTools.newThing'] = { type: 'boolean', default: false, scope: 'window' };
    assert.deepEqual(settingsDrift(changed).sort(), [
      'clientTools.invokeTimeoutSeconds.default: package.json 60, settings table 30',
      'clientTools.limits.maxInFlight.maximum: package.json 4096, settings table 1024',
      'clientTools.model.vision: in the settings table, not in package.json',
      'clientTools.newThing: in package.json, not in the settings table',
      'clientTools.permissions.backgroundCalls.scope: package.json "window", settings table "application"',
    ]);
    const table: Record<string, SettingSpec> = { ...SETTINGS, 'model.imageMaxSide': { ...SETTINGS['model.imageMaxSide'], minimum: 1 } };
    assert.deepEqual(settingsDrift(contributed, table), ['clientTools.model.imageMaxSide.minimum: package.json 16, settings table 1']);
  });

  it('a default lies within its bounds and among its choices', () => {
    for (const [key, spec] of Object.entries(SETTINGS) as [string, SettingSpec][]) {
      if (typeof spec.default === 'number') {
        assert.ok(spec.minimum === undefined || spec.default >= spec.minimum, key);
        assert.ok(spec.maximum === undefined || spec.default <= spec.maximum, key);
      }
      if (spec.enum) assert.ok(spec.enum.includes(spec.default as string), key);
    }
  });

  it('every setting that decides where the extension connects or what the user agreed to is read from the user\'s settings only', () => {
    for (const [key, spec] of Object.entries(SETTINGS) as [string, SettingSpec][]) {
      // How images are sent and how long a request may wait decide neither where it goes nor what was agreed to.
      const harmless = ['model.vision', 'model.imageMaxSide', 'model.firstByteTimeoutSeconds', 'model.idleTimeoutSeconds', 'model.retries'];
      if (spec.scope === 'machine' || key.startsWith('model.') && !harmless.includes(key)) assert.equal(spec.userOnly, true, key);
    }
    for (const key of ['permissions.rememberScope', 'permissions.backgroundCalls', 'permissions.protectedPatterns', 'vscodeTools.enabled', 'mcpServer.enabled', 'agents'] as const) assert.equal(SETTINGS[key].userOnly, true, key);
  });

  it('the connection restarts for the backend, model, timeout, strategy, limit and reconnect settings, and for nothing else', () => {
    assert.deepEqual([...RECONNECT_SETTINGS].sort(), Object.keys(SETTINGS).filter((k) => /^(backendUrls?|model\.|invokeTimeoutSeconds|disconnectStrategy|limits\.|reconnect\.)/.test(k)).sort());
  });
});
