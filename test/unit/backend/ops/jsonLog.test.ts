import { strict as assert } from 'node:assert';
import { jsonLogger } from '../../../../src/backend';

describe('backend structured logs (jsonLogger)', () => {
  it('writes one JSON object per line with time, level, msg and the fields', () => {
    const lines: string[] = [];
    const log = jsonLogger('info', (l) => lines.push(l));
    log.info('a session attached', { session: 'session #3', attached: 2 });
    log.debug?.('dropped below the level');
    log.error('line\nbreaks stay inside the string');
    assert.equal(lines.length, 2);
    assert.ok(lines.every((l) => l.endsWith('\n') && l.indexOf('\n') === l.length - 1));
    const first = JSON.parse(lines[0]) as Record<string, unknown>;
    assert.deepEqual(Object.keys(first), ['time', 'level', 'msg', 'session', 'attached']);
    assert.equal(first.level, 'info');
    assert.equal(first.session, 'session #3');
    assert.equal((JSON.parse(lines[1]) as { msg: string }).msg, 'line\nbreaks stay inside the string');
  });

  it('drops fields that hold secrets or session ids, and fields that would overwrite time, level or msg', () => {
    const lines: string[] = [];
    jsonLogger('debug', (l) => lines.push(l)).warn('refused', {
      token: 't0k3n',
      resumeSecret: 's3cret',
      apiKey: 'sk-1',
      Authorization: 'Bearer x',
      sessionId: 'sess_1',
      level: 'fake',
      msg: 'forged',
      code: 'UNAUTHORIZED',
    });
    const entry = JSON.parse(lines[0]) as Record<string, unknown>;
    assert.deepEqual(Object.keys(entry), ['time', 'level', 'msg', 'code']);
    assert.equal(entry.level, 'warn');
    assert.equal(entry.msg, 'refused');
    for (const secret of ['t0k3n', 's3cret', 'sk-1', 'Bearer', 'sess_1', 'forged']) assert.ok(!lines[0].includes(secret), secret);
  });
});
