/**
 * The extension host's side of the host-blocking benchmark (hostBlocking.ts), in its own process
 * so that its event loop is measured alone: a real ClientCore with the fake host, the editor tools
 * (OpenDiff accepted at once, as a user would after reading) and a 16 MiB binary tool, connected
 * to the parent's backend; and the chat's saved-threads store. Between a `start` and a `stop`
 * from the parent it records the event loop's delay (monitorEventLoopDelay) and answers the
 * longest one in ms: the longest the loop was blocked, within the histogram's 1 ms resolution.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { ClientCore } from '../src/core';
import { EDITOR_GROUP, EDITOR_TOOLS } from '../src/tools/editor/group';
import { createTempWorkspace } from '../test/support/fake-host';
import { blobTool, GROUP } from './lib/stack';
import { BLOB_BYTES, DIFF_FILE, savedThreadsFixture, showSavedThread } from './lib/hostScenarios';

type Parent = { send(message: unknown): void };

async function main(): Promise<void> {
  const [url, token, diffFileText] = process.argv.slice(2);
  const parent = process as unknown as Parent;
  const workspace = await createTempWorkspace(['ws'], { [DIFF_FILE]: fs.readFileSync(diffFileText, 'utf8') });
  const threadsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-bench-threads-'));
  await savedThreadsFixture(threadsDir);
  const core = new ClientCore({
    url,
    token,
    clientInfo: { name: 'bench-host', version: '0', ide: 'node' },
    host: workspace.host,
    preExpanded: [GROUP, EDITOR_GROUP.name],
    limits: { maxResultBytes: 32 * 1024 * 1024, maxMessageBytes: 64 * 1024 * 1024 },
    permissions: { backgroundCalls: 'allow' },
  });
  core.registry.register({ name: GROUP, description: 'Benchmark tools.', startCollapsed: false }, [blobTool(new Map([[BLOB_BYTES, new Uint8Array(randomBytes(BLOB_BYTES))]]))]);
  core.registry.register(EDITOR_GROUP, EDITOR_TOOLS);
  // The user reads the diff and accepts it (in 100 ms, quicker than anyone reads); the benchmark
  // measures the extension's work before and after that.
  const acceptDiffs = async (): Promise<void> => {
    for (;;) {
      const diff = await workspace.host.catalog.nextDiff();
      setTimeout(() => diff.accept(), 100);
    }
  };
  void acceptDiffs();

  let histogram: IntervalHistogram | undefined;
  core.onDidChangeState((s) => {
    if (s.kind === 'connected') parent.send({ type: 'ready' });
  });
  process.on('message', (m: { type: string }) => {
    if (m.type === 'start') {
      histogram = monitorEventLoopDelay({ resolution: 1 });
      histogram.enable();
      parent.send({ type: 'started' });
    } else if (m.type === 'stop') {
      histogram?.disable();
      parent.send({ type: 'stopped', maxMs: (histogram?.max ?? 0) / 1e6 });
    } else if (m.type === 'threads') {
      // The window opens: the index of 100 threads is read and the current thread shown.
      void showSavedThread(threadsDir).then((chars) => parent.send({ type: 'threadsShown', chars }));
    } else if (m.type === 'exit') {
      core.dispose();
      fs.rmSync(threadsDir, { recursive: true, force: true });
      void workspace.dispose().finally(() => process.exit(0));
    }
  });
  core.start();
}

void main();
