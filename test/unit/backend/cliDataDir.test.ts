import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { parseCli, USAGE } from '../../../src/backend/cli';

describe('backend CLI: --data-dir', () => {
  it('takes the folder (made absolute) into the library option, and none without the flag', () => {
    assert.equal(parseCli(['--data-dir', 'some/where'], {}).options.dataDir, path.resolve('some/where'));
    assert.equal(parseCli([], {}).options.dataDir, undefined);
    assert.throws(() => parseCli(['--data-dir', ' '], {}), /--data-dir must name a folder/);
    assert.match(USAGE, /--data-dir <dir>/);
  });
});
