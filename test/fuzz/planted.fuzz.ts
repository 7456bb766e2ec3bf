/**
 * The fuzzer's own test: the runner, the prober and the judging, on a process with a planted defect
 * (hosts/plantedHost.ts). Work quadratic in a run of one character (the token counter's freeze) must
 * fail as a stall, with the larger values of its ladder skipped; a message kept after it was read
 * must fail as heap growth; the same process with nothing planted must pass every case. Each is a
 * handful of cases of the ordinary plan (plan.ts, hostile.ts), run by `runEntry` as the entries are.
 * The entry points of the run change list (its saved record, a command's writes) are checked the same
 * way through their own drivers and processes, with the defect planted where each reads its input,
 * and so is the chat webview's entry (the quadratic scan on each message the host parsed, as a
 * transcript patch applied the quadratic way).
 */
import * as assert from 'node:assert/strict';
import { agentSequencesToAcpClient, agentToAcpClient } from './entries/agentToAcpClient';
import { chatWebview } from './entries/chatWebview';
import { commandWrites } from './entries/commandWrites';
import { savedRunChanges } from './entries/savedRunChanges';
import { planCases } from './support/plan';
import type { Plant } from './support/planted';
import { runEntry, type EntryDriver, type EntryReport } from './support/runner';
import { shapeOf } from './support/shape';
import { Target } from './support/target';

/** A bounded field (its ladder: 1 KiB, at the limit, past it) and an unbounded one (1 KiB, 64 KiB, 1 MiB, the whole message). */
const SCHEMA = { type: 'object', properties: { text: { type: 'string', maxLength: 64 * 1024 }, note: { type: 'string' } } };
const KEPT = /^(text|note) · run 'a' (1 KiB|64 KiB|1 MiB|at the limit|past the limit|filling the message)/;

function planted(plant: Plant): EntryDriver {
  return {
    name: `planted ${plant}`,
    start: () => Target.start('plantedHost.ts', { plant }),
    cases: () => planCases(`planted ${plant}`, [{ message: 'note', shape: shapeOf(SCHEMA), limit: 16 * 1024 * 1024 }]).filter((c) => KEPT.test(`${c.position.label} · ${c.value.label}`)),
    run: (c, target) => target.request<string>('take', c.text(), 30_000),
    stop: async () => {},
  };
}

const failures = (r: EntryReport) => r.cases.filter((c) => c.failure).map((c) => `${c.position} · ${c.value}: ${c.failure}`);

describe('freeze-and-bloat fuzzer, on planted defects', () => {
  it('passes every case of a process with nothing planted', async () => {
    const report = await runEntry(planted('none'));
    assert.ok(report.cases.length >= 7, `${report.cases.length} cases`);
    assert.deepEqual(failures(report), []);
  });

  it('fails work quadratic in a run of one character as a stall, and skips the rest of its ladder', async () => {
    const report = await runEntry(planted('freeze'));
    const failed = failures(report);
    assert.ok(failed.some((f) => /^text · run 'a' at the limit, 64 KiB: (stalled|frozen)/.test(f)), failed.join('\n'));
    assert.ok(failed.some((f) => /^note · run 'a' 64 KiB: (stalled|frozen)/.test(f)), failed.join('\n'));
    assert.ok(report.cases.some((c) => c.value === "run 'a' 1 KiB" && !c.failure), 'a short run is quick even the quadratic way');
    assert.ok(report.skipped >= 2, `skipped ${report.skipped}`);
  });

  it('fails a message kept after it was read as heap growth', async () => {
    const report = await runEntry(planted('leak'));
    const failed = failures(report);
    assert.ok(failed.some((f) => /^note · run 'a' filling the message.*heap after GC grew/.test(f)), failed.join('\n'));
  });
});

/** The entry's cases whose position and value match `only`, against its process with `plant`. */
function plantedEntry(make: (plant: Plant) => EntryDriver, plant: Plant, only: RegExp): EntryDriver {
  const driver = make(plant);
  return { ...driver, name: `${driver.name}, planted ${plant}`, cases: async (t) => (await driver.cases(t)).filter((c) => only.test(`${c.position.label} · ${c.value.label}`)) };
}

describe('freeze-and-bloat fuzzer, on defects planted in the entry points of the run change list', () => {
  const RECORD_TEXTS = /^runs\[\]\.files\[\]\.(before|after) \(string\) · run 'a' (1 KiB|64 KiB)$/;
  const EVENT_PATHS = /^events\[\]\.path · run 'a' (1 KiB|64 KiB|filling the message)/;

  it('the saved run change record: passes those cases clean, fails a quadratic scan of what it reads as a stall and a kept record as heap growth', async () => {
    assert.deepEqual(failures(await runEntry(plantedEntry(savedRunChanges, 'none', RECORD_TEXTS))), []);
    const frozen = failures(await runEntry(plantedEntry(savedRunChanges, 'freeze', RECORD_TEXTS)));
    assert.ok(frozen.some((f) => /^runs\[\]\.files\[\]\.(before|after) \(string\) · run 'a' 64 KiB: (stalled|frozen)/.test(f)), frozen.join('\n'));
    assert.ok(!frozen.some((f) => f.includes("run 'a' 1 KiB")), frozen.join('\n'));
    const leaked = failures(await runEntry(plantedEntry(savedRunChanges, 'leak', /filling the message/)));
    assert.ok(leaked.some((f) => /filling the message.*heap after GC grew/.test(f)), leaked.join('\n'));
  });

  it("a terminal command's writes: passes those cases clean, fails a quadratic scan of the watcher's events as a stall and kept events as heap growth", async () => {
    assert.deepEqual(failures(await runEntry(plantedEntry(commandWrites, 'none', EVENT_PATHS))), []);
    const frozen = failures(await runEntry(plantedEntry(commandWrites, 'freeze', EVENT_PATHS)));
    assert.ok(frozen.some((f) => /^events\[\]\.path · run 'a' 64 KiB: (stalled|frozen)/.test(f)), frozen.join('\n'));
    assert.ok(!frozen.some((f) => f.includes("run 'a' 1 KiB")), frozen.join('\n'));
    const leaked = failures(await runEntry(plantedEntry(commandWrites, 'leak', EVENT_PATHS)));
    assert.ok(leaked.some((f) => /^events\[\]\.path · run 'a' filling the message.*heap after GC grew/.test(f)), leaked.join('\n'));
  });
});

describe('freeze-and-bloat fuzzer, on defects planted in the ACP client', () => {
  const COMMAND_NAMES = /^params\.update \(object\)\.availableCommands\[\]\.name · run 'a' (1 KiB|64 KiB)$/;
  const TURNS = /^turn · (a plan of 20,000 entries, sent 8 times|50 reads with one request id)$/;

  it("an agent's messages: passes those cases clean, fails a quadratic scan of each message's strings as a stall", async () => {
    assert.deepEqual(failures(await runEntry(plantedEntry(agentToAcpClient, 'none', COMMAND_NAMES))), []);
    const frozen = failures(await runEntry(plantedEntry(agentToAcpClient, 'freeze', COMMAND_NAMES)));
    assert.ok(frozen.some((f) => /availableCommands\[\]\.name · run 'a' 64 KiB: (stalled|frozen)/.test(f)), frozen.join('\n'));
    assert.ok(!frozen.some((f) => f.includes("run 'a' 1 KiB")), frozen.join('\n'));
  });

  it("an agent's sequences of messages: passes those cases clean, fails kept messages as heap growth", async () => {
    assert.deepEqual(failures(await runEntry(plantedEntry(agentSequencesToAcpClient, 'none', TURNS))), []);
    const leaked = failures(await runEntry(plantedEntry(agentSequencesToAcpClient, 'leak', TURNS)));
    assert.ok(leaked.some((f) => /^turn · a plan of 20,000 entries, sent 8 times: .*heap after GC grew/.test(f)), leaked.join('\n'));
    assert.ok(!leaked.some((f) => f.includes('50 reads')), leaked.join('\n'));
  });
});

describe('freeze-and-bloat fuzzer, on a defect planted in the extension host from its chat webview', () => {
  const PATCH_TEXTS = /^(append\[\]|rest) · run 'a' (1 KiB|64 KiB)$/;

  it('passes those cases clean, and fails applying a transcript patch the quadratic way as a stall', async () => {
    assert.deepEqual(failures(await runEntry(plantedEntry(chatWebview, 'none', PATCH_TEXTS))), []);
    const frozen = failures(await runEntry(plantedEntry(chatWebview, 'freeze', PATCH_TEXTS)));
    assert.ok(frozen.some((f) => /^(append\[\]|rest) · run 'a' 64 KiB: (stalled|frozen)/.test(f)), frozen.join('\n'));
    assert.ok(!frozen.some((f) => f.includes("run 'a' 1 KiB")), frozen.join('\n'));
  });
});
