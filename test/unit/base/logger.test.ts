import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { formatLine, lineLogger, logAt, silentLogger, type Logger, type LogLevel } from '../../../src/base/logger';

const ROOT = path.resolve(__dirname, '../../..');

describe('base logger', () => {
  it('appends fields as key=value, quoting values with spaces and leaving undefined ones out', () => {
    assert.equal(formatLine('call ended', { tool: 'ReadFile', ok: true, ms: 12, code: undefined, why: 'two words' }), 'call ended tool=ReadFile ok=true ms=12 why="two words"');
    assert.equal(formatLine('plain'), 'plain');
    assert.equal(formatLine('only undefined', { code: undefined }), 'only undefined');
  });

  it('a line logger passes each level at or above its minimum, with the level', () => {
    const lines: [LogLevel, string][] = [];
    const log = lineLogger((level, line) => lines.push([level, line]), 'info');
    log.debug?.('hidden');
    log.info('shown', { n: 1 });
    log.warn('careful');
    log.error('broken');
    assert.deepEqual(lines, [['info', 'shown n=1'], ['warn', 'careful'], ['error', 'broken']]);
  });

  it('logAt writes at a level named at run time and drops debug for a logger without it', () => {
    const lines: string[] = [];
    const noDebug: Logger = { info: (m) => lines.push(`I ${m}`), warn: (m) => lines.push(`W ${m}`), error: (m) => lines.push(`E ${m}`) };
    logAt(noDebug, 'debug', 'dropped');
    logAt(noDebug, 'warn', 'kept');
    logAt(silentLogger, 'error', 'nowhere');
    assert.deepEqual(lines, ['W kept']);
  });

  it('stderrLogger writes timestamped lines at or above its minimum to stderr, nothing to stdout', () => {
    const script = "const { stderrLogger } = require('./src/base/logger'); const log = stderrLogger('warn'); log.info('quiet'); log.warn('loud', { code: 'X' }); log.error('worse');";
    const child = spawnSync(process.execPath, ['-r', 'tsx/cjs', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout, '');
    const lines = child.stderr.split('\n').filter(Boolean);
    assert.equal(lines.length, 2, child.stderr);
    assert.match(lines[0], /^\[\d{4}-\d\d-\d\dT[\d:.]+Z\] WARN loud code=X$/);
    assert.match(lines[1], /^\[\d{4}-\d\d-\d\dT[\d:.]+Z\] ERROR worse$/);
  });
});
