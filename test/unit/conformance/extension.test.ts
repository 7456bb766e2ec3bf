/**
 * The conformance kit's second mode (`--serve`, the kit plays the backend) against the project's
 * own extension core in plain Node (ClientCore with the IDE and Workspace tools on a temporary
 * workspace): every check passes. Against a careless client that answers every call with success,
 * the checks for what it gets wrong fail.
 */
import * as assert from 'node:assert/strict';
import { WebSocket } from 'ws';
import { serveForExtension } from '../../../src/conformance/extension';
import { EXTENSION_CHECKS } from '../../../src/conformance/extension/checks';
import type { Report } from '../../../src/conformance/report';
import { ClientCore } from '../../../src/core/clientCore';
import { PROTOCOL, SUBPROTOCOL, TOKEN_HEADER } from '../../../src/protocol';
import { ideToolGroup } from '../../../src/tools/ide/group';
import { workspaceToolGroup } from '../../../src/tools/workspace/group';
import { createTempWorkspace, type TempWorkspace } from '../../support/fake-host';
import { makePng } from '../../support/png';

const TOKEN = 'conformance-extension-token-0123456789';
const TARGET = { host: '127.0.0.1', port: 0, token: TOKEN, connectMs: 20_000, waitMs: 10_000 };

function statusOf(report: Report, id: string): string {
  const result = report.results.find((r) => r.id === id);
  assert.ok(result, `no result for ${id}`);
  return result.status;
}

describe('conformance kit: extension mode (--serve)', function () {
  this.timeout(60_000);

  describe('against the extension core (ClientCore, IDE and Workspace tools)', () => {
    let workspace: TempWorkspace;
    let core: ClientCore | undefined;
    let report: Report;

    before(async () => {
      workspace = await createTempWorkspace(['ws'], { 'img/shot.png': makePng(16, 16), 'notes.md': '# Notes\n' });
      const { server, report: pending } = await serveForExtension({ ...TARGET, readPath: 'img/shot.png' });
      core = new ClientCore({
        url: server.url,
        token: TOKEN,
        clientInfo: { name: 'client-tools', version: '0.0.0-test', ide: 'conformance test' },
        host: workspace.host,
        presenter: workspace.host,
        // The kit calls tools outside a chat run: background calls.
        permissions: { backgroundCalls: 'allow' },
      });
      for (const { group, tools } of [ideToolGroup(), workspaceToolGroup()]) core.registry.register(group, tools);
      core.start();
      report = await pending;
    });

    after(async () => {
      core?.dispose();
      await workspace.dispose();
    });

    it('passes every check', () => {
      assert.equal(report.results.filter((r) => r.status !== 'pass').map((r) => `${r.id} ${r.status}: ${r.actual}`).join('\n'), '');
      assert.equal(report.results.length, EXTENSION_CHECKS.length);
      assert.equal(report.ok, true);
    });

    it('reads the image back as a binary frame and replays a duplicate request unchanged', () => {
      assert.match(report.results.find((r) => r.id === 'ext.binary-result')!.actual, /image\/png, \d+ bytes, sent as a binary frame/);
      assert.match(report.results.find((r) => r.id === 'ext.duplicate')!.actual, /replayed unchanged; with \w+: failure DUPLICATE_REQUEST/);
    });
  });

  describe('against a careless client that answers every call with success', () => {
    let report: Report;
    let socket: WebSocket | undefined;

    before(async () => {
      const { server, report: pending } = await serveForExtension({ ...TARGET, waitMs: 3_000, readPath: 'img/shot.png' });
      // It also reads text frames without checking their UTF-8, and keeps the connection when one is not UTF-8.
      socket = new WebSocket(server.url, [SUBPROTOCOL], { headers: { [TOKEN_HEADER]: TOKEN }, skipUTF8Validation: true });
      socket.on('error', () => undefined);
      socket.on('open', () => {
        const tool = (name: string, required: string[]) => ({ name, description: name, parameters: { type: 'object', properties: { path: { type: 'string' } }, required } });
        socket!.send(JSON.stringify({ type: 'hello', protocol: PROTOCOL, client: { name: 'careless', version: '0', ide: 'none' }, workspace: { folders: [], trusted: true }, toolGroups: [{ name: 'Careless', description: 'x', tools: [tool('GetWorkspaceFolders', []), tool('ReadFile', ['path'])] }] }));
      });
      socket.on('message', (data, isBinary) => {
        if (isBinary) return;
        let message: { type: string; requestId?: string };
        try {
          message = JSON.parse(String(data)) as { type: string; requestId?: string };
        } catch {
          return;
        }
        if (message.type === 'clientToolInvokeRequest') socket!.send(JSON.stringify({ type: 'clientToolInvokeResponse', requestId: message.requestId, success: true, content: [{ type: 'text', text: 'ok' }] }));
      });
      report = await pending;
    });

    after(() => socket?.terminate());

    it('fails the checks of the codes it never sends, and the run', () => {
      for (const id of ['ext.unknown-tool', 'ext.invalid-arguments', 'ext.invalid-message', 'ext.binary-result', 'ext.duplicate', 'ext.invalid-utf8', 'ext.hello-limits']) assert.equal(statusOf(report, id), 'fail', id);
      assert.equal(report.results.find((r) => r.id === 'ext.invalid-utf8')!.actual, 'the connection stayed open');
      assert.equal(report.results.find((r) => r.id === 'ext.hello-limits')!.required, false, 'an older extension without hello.limits is not failed for it');
      assert.match(report.results.find((r) => r.id === 'ext.unknown-tool')!.actual, /^success$/);
      assert.equal(statusOf(report, 'ext.upgrade'), 'pass');
      assert.equal(statusOf(report, 'ext.invoke'), 'pass');
      assert.equal(report.ok, false);
    });
  });
});
