import * as assert from 'node:assert/strict';
import { toLogger, type Logger, type LogLevel } from '../../../src/backend/log';

describe('backend log', () => {
  it('adapts the earlier (level, message) function to a Logger, fields appended to the line', () => {
    const lines: [LogLevel, string][] = [];
    const log = toLogger((level, message) => lines.push([level, message]));
    log.debug?.('a note');
    log.warn('refused', { code: 'FORBIDDEN' });
    assert.deepEqual(lines, [['debug', 'a note'], ['warn', 'refused code=FORBIDDEN']]);
  });

  it('passes a Logger through as it is', () => {
    const logger: Logger = { info() {}, warn() {}, error() {} };
    assert.equal(toLogger(logger), logger);
  });
});
