import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type ts from 'typescript';
import { describeAll, lineOf, lines, ROOT, typecheck } from '../../support/typecheck';

const FIXTURE_DIR = path.join(ROOT, 'test/fixtures/exhaustive');
const SCHEMAS = path.join(ROOT, 'src/protocol/schemas.ts');
const MARKER = '/* HANDLE_NEW_MESSAGE */';

describe('adding a message type without handling it fails the typecheck', function () {
  // One type-checked program over the routing code takes seconds on a busy machine; nothing here waits on timers.
  this.timeout(120_000);
  const client = 'src/core/clientCore.ts';
  const session = 'src/backend/session/session.ts';
  /** The backend's fitting of messages to the extension's limit decides per message type whether it can be shortened. */
  const fitting = 'src/backend/session/peerLimits.ts';
  const unhandled = 'test/fixtures/exhaustive/unhandled.ts';
  const handled = 'test/fixtures/exhaustive/handled.ts';
  let result: Map<string, ts.Diagnostic[]>;

  before(() => {
    // The one edit that adds a message: a schema in its direction's record in schemas.ts.
    const schemas = readFileSync(SCHEMAS, 'utf8');
    const toClient = 'const serverToClient = {';
    const toServer = 'const clientToServer = {';
    assert.ok(schemas.includes(toClient) && schemas.includes(toServer), 'schemas.ts keeps one record per direction');
    const extended = schemas
      .replace(toClient, `${toClient} Ping: z.object({ type: z.literal('ping'), nonce: z.string() }),`)
      .replace(toServer, `${toServer} Pong: z.object({ type: z.literal('pong') }),`);
    const template = readFileSync(path.join(FIXTURE_DIR, 'route.ts.fixture'), 'utf8');
    assert.ok(template.includes(MARKER));
    result = typecheck([client, session, fitting, unhandled, handled].map((f) => path.join(ROOT, f)), new Map([
      [SCHEMAS, extended],
      [path.join(ROOT, unhandled), template],
      [path.join(ROOT, handled), template.replace(MARKER, "case 'ping':\n      return message.nonce;")],
    ]));
  });

  it('a switch that ends in assertNever fails with TS2345 for the new message, and compiles once it has a case', () => {
    const failures = result.get(unhandled);
    assert.equal(failures?.length, 1, describeAll(failures));
    assert.equal(failures[0].code, 2345, describeAll(failures));
    assert.match(describeAll(failures), /Argument of type '\{ type: "ping"; nonce: string; \}' is not assignable to parameter of type 'never'/);
    assert.equal(describeAll(result.get(handled)), '', 'the fixture with the case handled compiles');
  });

  it('the real routing switches of the extension and the backend (and the backend\'s message fitting) fail at their assertNever, and nothing else does', () => {
    assert.deepEqual([...result.keys()].sort(), [session, client, fitting, unhandled].sort(), describeAll([...result.values()].flat()));
    assert.deepEqual(lines(result.get(fitting)), [lineOf(fitting, "assertNever(message, 'message to the client')")]);
    assert.match(describeAll(result.get(client)), /Argument of type '\{ type: "ping"; nonce: string; \}' is not assignable to parameter of type 'never'/);
    assert.match(describeAll(result.get(session)), /Argument of type '\{ type: "pong"; \}' is not assignable to parameter of type 'never'/);
    assert.deepEqual(lines(result.get(client)), [lineOf(client, "assertNever(message, 'message from the backend')")]);
    assert.deepEqual(lines(result.get(session)), [lineOf(session, "assertNever(msg, 'message from the client')")]);
  });
});
