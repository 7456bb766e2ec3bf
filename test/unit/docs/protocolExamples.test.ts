/**
 * Keeps docs/PROTOCOL.md's examples and error codes in step with the protocol: every JSON example is
 * something the page's own rules accept (a message valid by its schema, its direction's schema and
 * the reference codec; a content item; the discovery file as the backend writes it), and the error
 * codes the page names are exactly the protocol's.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { generateSchemas, SCHEMA_BASE_URI, SCHEMA_DIR } from '../../../scripts/generate-schema';
import { writeDiscoveryFile } from '../../../src/backend/transport/discovery';
import { decode } from '../../../src/protocol/codec';
import { ErrorCode } from '../../../src/protocol/errors';
import { CLIENT_TO_SERVER_TYPES, SERVER_TO_CLIENT_TYPES } from '../../../src/protocol/schemas';

const doc = readFileSync(path.join(__dirname, '..', '..', '..', 'docs', 'PROTOCOL.md'), 'utf8');
/** Names in capitals the page uses that are not error codes: environment variables and reference-implementation names. */
const NOT_CODES = new Set(['CLIENT_TOOLS_TOKEN', 'CLIENT_TOOLS_BACKEND_TOKEN', 'DEFAULT_MAX_BUFFERED_BYTES', 'ERROR_DESCRIPTIONS']);

function jsonExamples(): { text: string; value: unknown }[] {
  return [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map(([, text]) => {
    try {
      return { text, value: JSON.parse(text) as unknown };
    } catch (e) {
      return assert.fail(`a json block in docs/PROTOCOL.md does not parse (${String(e)}):\n${text}`);
    }
  });
}

/** The validator a backend author would build: every schema/ file by its $id. */
function validator(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: true });
  for (const [file] of generateSchemas()) ajv.addSchema(JSON.parse(readFileSync(path.join(SCHEMA_DIR, file), 'utf8')) as object);
  return ajv;
}

function errorsOf(ajv: Ajv2020, ref: string, value: unknown): string | undefined {
  const fn = ajv.getSchema(SCHEMA_BASE_URI + ref);
  assert.ok(fn, `no schema ${ref}`);
  return fn(value) ? undefined : ajv.errorsText(fn.errors);
}

describe('docs/PROTOCOL.md examples and codes', () => {
  const ajv = validator();
  const toServer = new Set<string>(CLIENT_TO_SERVER_TYPES);
  const toClient = new Set<string>(SERVER_TO_CLIENT_TYPES);

  it('every JSON example is a message, a content item or the discovery file, and each is valid', () => {
    const kinds = { message: 0, content: 0, discovery: 0 };
    for (const { text, value } of jsonExamples()) {
      const type = (value as { type?: unknown }).type;
      if (typeof type === 'string' && (toServer.has(type) || toClient.has(type))) {
        kinds.message++;
        const direction = toServer.has(type) ? 'client-to-server.json' : 'server-to-client.json';
        assert.equal(errorsOf(ajv, `${type}.json`, value), undefined, `by ${type}.json:\n${text}`);
        assert.equal(errorsOf(ajv, direction, value), undefined, `by ${direction}:\n${text}`);
        const decoded = decode(toServer.has(type) ? 'toServer' : 'toClient', JSON.stringify(value), false);
        assert.ok(decoded.ok, `the reference codec refuses it (${decoded.ok ? '' : decoded.error.code}: ${decoded.ok ? '' : decoded.error.message}):\n${text}`);
      } else if (type === 'text' || type === 'json' || type === 'binary') {
        kinds.content++;
        assert.equal(errorsOf(ajv, 'definitions.json#/$defs/ContentItem', value), undefined, `content item:\n${text}`);
      } else if (typeof value === 'object' && value !== null && 'port' in value && 'token' in value) {
        kinds.discovery++;
        assert.deepEqual(Object.keys(value).sort(), discoveryFileKeys(), `the discovery file example has the fields the backend writes:\n${text}`);
      } else {
        assert.fail(`an example this test cannot check; teach it what this is:\n${text}`);
      }
    }
    assert.ok(kinds.message >= CLIENT_TO_SERVER_TYPES.length + SERVER_TO_CLIENT_TYPES.length, 'an example per message type at least');
    assert.ok(kinds.content >= 1 && kinds.discovery === 1, JSON.stringify(kinds));
  });

  it('the binary content item example with an attachment is refused in a text frame, as the decoding order says', () => {
    const attachment = jsonExamples().map((e) => e.value as Record<string, unknown>).find((v) => v.type === 'binary' && 'attachment' in v);
    assert.ok(attachment, 'the page shows an attachment item');
    const message = { type: 'clientToolInvokeResponse', requestId: 'req-1', success: true, content: [attachment] };
    const decoded = decode('toServer', JSON.stringify(message), false);
    assert.equal(decoded.ok ? 'ok' : decoded.error.code, ErrorCode.BadBinaryFrame);
    assert.match(doc, /appears in a \*\*text\s+frame\*\* \(which has no attachments\): `BAD_BINARY_FRAME`/);
  });

  it('every error code the page names exists, and every code is in the page\'s table', () => {
    const codes = new Set<string>(Object.values(ErrorCode));
    const named = new Set([...doc.matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z]{4,})`/g)].map((m) => m[1]).filter((n) => !NOT_CODES.has(n)));
    for (const { value } of jsonExamples()) {
      for (const key of ['code', 'errorCode']) {
        const code = (value as Record<string, unknown>)[key];
        if (typeof code === 'string') named.add(code);
      }
    }
    assert.deepEqual([...named].filter((n) => !codes.has(n)), [], 'names on the page that are no error code');
    const table = doc.slice(doc.indexOf('\n## Error codes\n'));
    const rows = new Set([...table.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]));
    assert.deepEqual([...codes].filter((c) => !rows.has(c)), [], 'codes missing from the table');
    assert.deepEqual([...rows].filter((r) => !codes.has(r)), [], 'table rows that are no code');
  });
});

/** The keys of a discovery file the reference backend writes. */
function discoveryFileKeys(): string[] {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ct-discovery-'));
  try {
    const file = path.join(dir, 'backends', 'b.json');
    const remove = writeDiscoveryFile(file, 1234, 'token-0123456789abcdef');
    const keys = Object.keys(JSON.parse(readFileSync(file, 'utf8')) as object).sort();
    remove();
    return keys;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
