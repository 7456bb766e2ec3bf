/**
 * The run change record under test in a process of its own, as the extension reads it back after a
 * window reload and acts on it (src/vscode/reviews/runChangeList.ts, rewind.ts): the saved file read
 * and parsed (`readSavedRunChanges`), listed for the chat in the same turn and checked by the view's
 * message schema, then each thread's Rewind planned from its first run (every file the record names
 * checked as an Undo checks it, its text read) and the record saved again as JSON. The file lives in a
 * temporary folder beside a real temporary workspace whose files the record's sample names.
 *
 *   argv: {"plant"?: "freeze" | "leak"} (a planted defect on the text read, for planted.fuzz.ts)
 */
import { readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { isInside } from '../../../src/core/paths';
import { checkRecordedFile } from '../../../src/core/runChanges';
import { listedRunChanges, readSavedRunChanges } from '../../../src/core/runChangesSaved';
import { describeSteps, planRewind, rewindTargets } from '../../../src/core/rewindPlan';
import { HostToWebview } from '../../../src/protocol/webview';
import { workspace } from '../support/doorHost';
import { onRequest, ready, serveHealth } from '../support/hostAgent';
import { planted, type Plant } from '../support/planted';

async function main(): Promise<void> {
  const { plant } = JSON.parse(process.argv[2] ?? '{}') as { plant?: Plant };
  const { host, folder } = await workspace();
  const saved = path.join(path.dirname(folder), 'run-changes.json');
  // As `vscode.workspace.asRelativePath`: relative inside the folder, else the path as given.
  const relative = (file: string) => (isInside(file, folder) ? path.relative(folder, file) : file);

  onRequest('load', async (payload) => {
    await writeFile(saved, payload as string);
    const { log, ignored } = readSavedRunChanges(saved);
    planted(plant, payload);
    const runs = listedRunChanges(log, relative);
    if (!HostToWebview.safeParse({ type: 'runChanges', runs }).success) return 'the protocol refuses the list the view would get';
    const record = log.toJSON().runs;
    let steps = 0;
    for (const threadId of new Set(record.map((r) => r.threadId))) {
      const threadRuns = log.runsOf(threadId);
      const runIds = threadRuns.map((r) => r.runId);
      const current = new Map<string, string | null>();
      for (const file of rewindTargets(threadRuns, runIds).targets.keys()) {
        const checked = await checkRecordedFile(file, host.folders, []).then(() => true, () => false);
        if (checked) current.set(file, await readFile(file, 'utf8').catch(() => null));
      }
      const plan = planRewind(threadRuns, runIds, current);
      steps += describeSteps(plan.steps.filter((s) => current.has(s.file))).length;
    }
    JSON.stringify(log.toJSON());
    const files = runs.reduce((n, r) => n + r.files.length, 0);
    return ignored !== undefined ? `ignored (${ignored.slice(0, 80)})` : `listed ${runs.length} runs, ${files} files; rewind ${steps} steps`;
  });
  ready({ healthUrl: await serveHealth(), folder });
}

void main();
