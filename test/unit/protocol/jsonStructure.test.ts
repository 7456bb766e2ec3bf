import * as assert from 'node:assert/strict';
import { decodeFromClient, decodeFromServer, ErrorCode, JSON_STRUCTURE_LIMITS, jsonStructureProblem } from '../../../src/protocol';

const limits = { maxValues: 10, maxMembers: 3 };

function members(n: number): string {
  return `{${Array.from({ length: n }, (_, i) => `"k${i}":0`).join(',')}}`;
}

describe('jsonStructureProblem', () => {
  it('passes text within the limits and names the limit passed', () => {
    assert.equal(jsonStructureProblem('{"a":[1,2,3],"b":{"c":null}}', limits), undefined);
    assert.equal(jsonStructureProblem(members(3), limits), undefined);
    assert.match(jsonStructureProblem(members(4), limits) ?? '', /an object in the message has more than 3 members/);
    assert.match(jsonStructureProblem(`[${Array(11).fill(0).join(',')}]`, limits) ?? '', /more than 10 values/);
  });

  it('counts the members of each object on its own, not those of the objects inside it or of arrays', () => {
    assert.equal(jsonStructureProblem(`{"a":${members(3)},"b":${members(3)},"c":0}`, { maxValues: 100, maxMembers: 3 }), undefined);
    assert.equal(jsonStructureProblem(`[${members(2)},${members(2)}]`, { maxValues: 100, maxMembers: 2 }), undefined);
    assert.ok(jsonStructureProblem(`{"a":[0],"b":[0],"c":[0],"d":0}`, { maxValues: 100, maxMembers: 3 }));
  });

  it('skips string contents: commas, colons, brackets and escaped quotes inside strings count for nothing', () => {
    const tricky = JSON.stringify({ a: ',,,:::{{{[[[', b: 'say \\"x\\" \\\\', c: '"' });
    assert.equal(jsonStructureProblem(tricky, limits), undefined);
    const manyInString = JSON.stringify({ text: ','.repeat(100_000) + ':'.repeat(100_000) });
    assert.equal(jsonStructureProblem(manyInString, limits), undefined);
    // After a string that ends in backslashes, structure counts again.
    assert.ok(jsonStructureProblem(`{"a":"\\\\\\\\","b":1,"c":2,"d":3}`, limits));
  });

  it('leaves malformed text to the parser', () => {
    assert.equal(jsonStructureProblem('{"a": "no end', limits), undefined);
    assert.equal(jsonStructureProblem(']]]}}}', limits), undefined);
  });

  it('the codec refuses a message past a limit before parsing it, with MESSAGE_TOO_LARGE and no related id, in both directions', () => {
    const many = `{"type":"toolCallStarted","threadId":"t","runId":"r","callId":"c","toolName":"Echo","executor":"client","arguments":${members(JSON_STRUCTURE_LIMITS.maxMembers + 1)}}`;
    const toClient = decodeFromServer(many, false);
    assert.equal(toClient.ok, false);
    assert.equal(!toClient.ok && toClient.error.code, ErrorCode.MessageTooLarge);
    assert.equal(!toClient.ok && toClient.error.relatedId, undefined);
    const items = `{"type":"clientToolInvokeResponse","requestId":"r","success":true,"content":[{"type":"json","value":[${Array(JSON_STRUCTURE_LIMITS.maxValues).fill(0).join(',')}]}]}`;
    const toServer = decodeFromClient(items, false);
    assert.equal(!toServer.ok && toServer.error.code, ErrorCode.MessageTooLarge);
    assert.match(!toServer.ok ? toServer.error.message : '', /more than 1,000,000 values/);
    // At the limit it is decoded as before.
    const at = `{"type":"toolCallStarted","threadId":"t","runId":"r","callId":"c","toolName":"Echo","executor":"client","arguments":${members(JSON_STRUCTURE_LIMITS.maxMembers)}}`;
    assert.equal(decodeFromServer(at, false).ok, true);
  });
});
