/**
 * The CLI's authentication flags: paths resolved, JWT flags all or none with exactly one key source,
 * and with per-user credentials no random shared token lands in a discovery file.
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { parseCli, UsageError } from '../../../../src/backend/cli';

describe('backend CLI: authentication flags', () => {
  it('--tokens-file is resolved and, without --token, makes no discovery file and no random token to announce', () => {
    const config = parseCli(['--tokens-file', 'tokens'], {});
    assert.equal(config.options.tokensFile, path.resolve('tokens'));
    assert.equal(config.options.discoveryFile, undefined);
    assert.equal(config.randomToken, false);
    const withShared = parseCli(['--tokens-file', 'tokens', '--token', 'shared-token-0123456789'], {});
    assert.equal(withShared.options.token, 'shared-token-0123456789');
    const asked = parseCli(['--tokens-file', 'tokens', '--discovery-file', 'd.json'], {});
    assert.equal(asked.options.discoveryFile, 'd.json');
    assert.equal(asked.randomToken, true);
  });

  it('the JWT flags build the verifier options, with a JWKS file or URL and an optional user claim', () => {
    const byFile = parseCli(['--jwt-issuer', 'https://id', '--jwt-audience', 'ct', '--jwt-jwks-file', 'keys.json'], {});
    assert.deepEqual(byFile.options.jwt, { issuer: 'https://id', audience: 'ct', jwksFile: path.resolve('keys.json') });
    assert.equal(byFile.options.discoveryFile, undefined);
    const byUrl = parseCli(['--jwt-issuer', 'https://id', '--jwt-audience', 'ct', '--jwt-jwks-url', 'https://id/jwks', '--jwt-user-claim', 'email'], {});
    assert.deepEqual(byUrl.options.jwt, { issuer: 'https://id', audience: 'ct', jwksUrl: 'https://id/jwks', userClaim: 'email' });
    assert.equal(parseCli([], {}).options.jwt, undefined);
  });

  it('refuses a JWT flag without issuer and audience, and neither or both key sources', () => {
    const bad = [
      ['--jwt-jwks-file', 'k.json'],
      ['--jwt-issuer', 'https://id', '--jwt-jwks-file', 'k.json'],
      ['--jwt-audience', 'ct', '--jwt-jwks-file', 'k.json'],
      ['--jwt-issuer', 'https://id', '--jwt-audience', 'ct'],
      ['--jwt-issuer', 'https://id', '--jwt-audience', 'ct', '--jwt-jwks-file', 'k.json', '--jwt-jwks-url', 'https://id/jwks'],
    ];
    for (const argv of bad) assert.throws(() => parseCli(argv, {}), UsageError, argv.join(' '));
  });
});
