/**
 * Entry point: the extension from its saved run change record. The record lives in the extension's
 * storage, outside the workspace, but anything on the machine may have written it; the extension
 * reads it back after a window reload. Every position of `RunChangeLogData` (the record's own zod
 * schema), up to the size the extension reads at most (`MAX_SAVED_BYTES`), is written to the file
 * and read, listed, planned for Rewind and saved again by the real code in its own process
 * (hosts/runChangesHost.ts). The sample names a file of the host's workspace as the run left it, so
 * the path checks, the diffs and the Rewind plan do their real work.
 */
import { RunChangeLogData } from '../../../src/core/runChanges';
import { MAX_SAVED_BYTES } from '../../../src/core/runChangesSaved';
import { planCases } from '../support/plan';
import type { Plant } from '../support/planted';
import type { EntryDriver } from '../support/runner';
import type { Json } from '../support/shape';
import { Target } from '../support/target';
import { zodShape } from '../support/zodShapes';

/** `plant`: a defect planted in the process under test (planted.fuzz.ts). */
export function savedRunChanges(plant: Plant = 'none'): EntryDriver {
  return {
    name: 'extension from its saved run change record',
    start: () => Target.start('runChangesHost.ts', { plant }),
    cases(target) {
      const file = `${String(target.info.folder)}/a`;
      const fixed = (sample: Json): Json => {
        const record = sample as { runs: { files: Record<string, Json>[] }[] };
        const [run] = record.runs;
        // Its text before is known (a file without one is listed with no diff and no Rewind step).
        const { noEarlierCopy: _none, ...change } = run.files[0];
        return { ...record, runs: [{ ...run, files: [{ ...change, file, path: 'a', before: 'line one\nline 2\n', after: 'line one\nline two\n' }] }] } as unknown as Json;
      };
      return planCases('extension from its saved run change record', [{ message: 'run-changes.json', shape: zodShape(RunChangeLogData), limit: MAX_SAVED_BYTES, fixed }]);
    },
    run: (c, target) => target.request<string>('load', c.text(), 60_000),
    stop: async () => {},
  };
}
