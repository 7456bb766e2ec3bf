/**
 * The freeze-and-bloat fuzzer (`npm run test:fuzz`): every message type each side accepts, with
 * pathological values in every position its schema has (support/plan.ts), against the real code in
 * a process of its own, health probed every 20 ms from another process. One test per entry point;
 * the table at the end (support/report.ts) gives cases, worst stall and memory per entry point.
 */
import * as assert from 'node:assert/strict';
import { agentSequencesToAcpClient, agentToAcpClient } from './entries/agentToAcpClient';
import { backendToCore } from './entries/backendToCore';
import { chatWebview } from './entries/chatWebview';
import { clientToMcpServer } from './entries/clientToMcpServer';
import { commandWrites } from './entries/commandWrites';
import { editorToBackend } from './entries/editorToBackend';
import { modelToBackend } from './entries/modelToBackend';
import { serverToMcpBridge } from './entries/serverToMcpBridge';
import { savedRunChanges } from './entries/savedRunChanges';
import { reportLines } from './support/report';
import { runEntry, type EntryDriver, type EntryReport } from './support/runner';

const ENTRIES: (() => EntryDriver)[] = [editorToBackend, () => modelToBackend('chat'), () => modelToBackend('responses'), backendToCore, clientToMcpServer, serverToMcpBridge, () => savedRunChanges(), () => commandWrites(), () => agentToAcpClient(), () => agentSequencesToAcpClient(), () => chatWebview()];

describe('freeze-and-bloat fuzzer', () => {
  const reports: EntryReport[] = [];
  after(() => console.log(`\n${reportLines(reports).join('\n')}\n`));

  for (const make of ENTRIES) {
    const driver = make();
    it(`${driver.name}: no value in any position stalls it over 250 ms or leaves its memory up`, async () => {
      const report = await runEntry(driver, (line) => console.log(line));
      reports.push(report);
      const failed = report.cases.filter((c) => c.failure).map((c) => `${c.message} · ${c.position} · ${c.value}: ${c.failure}`);
      assert.deepEqual(failed, []);
    });
  }
});
