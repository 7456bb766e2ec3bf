/**
 * `npm run bench`: builds, then measures the project against baselines measured in the same run,
 * prints a table with ratios and PASS/MISS per target, and writes bench/results/latest.json.
 *
 *   npm run bench                     everything (about 4 minutes on 2 cores, a 60 s soak among them)
 *   npm run bench -- --quick          fewer samples (a smoke test of the benchmark itself)
 *   npm run bench -- --skip-vscode    no real VS Code (machines without code-server or Chromium)
 *   CLIENT_TOOLS_SOAK_SECONDS=10 npm run bench    a shorter soak (default 60 s; 10 s with --quick)
 *   npm run bench -- --skip-scaling   no scaling section (9: Redis and three backend replicas)
 *   node bench/.out/scaling.js        the scaling section alone (after a build)
 *
 * Both ends of every socket run in this process (or, for the flood, in a child process), on
 * loopback. On a shared machine the absolute figures move from run to run; the ratios against the
 * baselines, measured in interleaved rounds of the same run, are what the targets are about.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { benchAgentTurn, type AgentTurnResult } from './agentTurn';
import { benchAttacks, type AttackResult } from './attacks';
import { benchExtensionAttacks } from './extensionAttacks';
import { benchBinary, SIZES, type BinaryResult } from './binary';
import { benchBundles, type BundleResult } from './bundles';
import { benchFlood, type FloodResult } from './flood';
import { benchRoundTrip, type RoundTripResult } from './roundtrip';
import { benchScaling, scalingLines, type ScalingResult } from './scaling';
import { fmtRate, fmtUs, round } from './lib/stats';
import { RESULTS_DIR } from './lib/paths';
import { attackLines, soakLines, worstAttack, worstDelayMs } from './resilienceReport';
import { benchSoak, type SoakResult } from './soak';
import { benchTokens, type TokensResult } from './tokens';
import { benchVSCode, type VSCodeResult } from './vscode';
import { FELT_SECTIONS, feltLines, feltTargets, runFeltSections } from './feltReport';

const argv = process.argv.slice(2);
const args = new Set(argv);
const quick = args.has('--quick');
const skipVSCode = args.has('--skip-vscode');
const skipScaling = args.has('--skip-scaling');
/** `--section task,host`: only those sections (SECTIONS names them); every section without it. */
const onlySections = argv.includes('--section') ? (argv[argv.indexOf('--section') + 1] ?? '').split(',').filter(Boolean) : undefined;
const SECTIONS = ['roundtrip', 'binary', 'agent', 'flood', 'bundles', 'vscode', 'soak', 'attacks', 'tokens', 'scaling', ...FELT_SECTIONS] as const;
const unknownSections = (onlySections ?? []).filter((name) => !(SECTIONS as readonly string[]).includes(name));
if (onlySections && (onlySections.length === 0 || unknownSections.length > 0)) {
  console.error(`--section takes a comma-separated list of: ${SECTIONS.join(', ')}${unknownSections.length ? ` (unknown: ${unknownSections.join(', ')})` : ''}`);
  process.exit(2);
}
const want = (name: (typeof SECTIONS)[number]): boolean => !onlySections || onlySections.includes(name);

const FULL = 'client-tools (full stack)';
const RAW = 'raw ws, same bytes';
const JSONRPC = 'vscode-jsonrpc over TCP';
const MCP_MEM = 'MCP SDK, in-memory';
const MCP_HTTP = 'MCP SDK, Streamable HTTP (stateless)';
const BIN_FULL = 'client-tools (binary frame)';
const BIN_RAW = 'raw binary ws frame';
const BIN_RAW_MASKED = 'raw binary ws frame, masked';
const BIN_B64 = 'base64 in JSON over ws';

interface Target {
  name: string;
  target: string;
  measured: string;
  value: number;
  pass: boolean;
}

function machine() {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memoryGB: round(os.totalmem() / 1024 ** 3, 1),
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    date: new Date().toISOString(),
    loadAverageAtStart: os.loadavg().map((l) => round(l, 2)),
  };
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

function lpad(s: string, n: number): string {
  return s.length >= n ? s : ' '.repeat(n - s.length) + s;
}

function kib(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : `${bytes / 1024} KiB`;
}

async function section<T>(title: string, run: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  process.stderr.write(`[bench] ${title}…`);
  const result = await run();
  process.stderr.write(` ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  return result;
}

async function main(): Promise<void> {
  const started = performance.now();
  const info = machine();
  const roundTrip: RoundTripResult | undefined = want('roundtrip') ? await section('1. round trip and baselines', () => benchRoundTrip({ quick })) : undefined;
  const binary: BinaryResult | undefined = want('binary') ? await section('2. binary results', () => benchBinary({ quick })) : undefined;
  const agentTurn: AgentTurnResult | undefined = want('agent') ? await section('3. agent turn overhead', () => benchAgentTurn({ quick })) : undefined;
  const flood: FloodResult | undefined = want('flood') ? await section('4. flood', () => benchFlood()) : undefined;
  const bundles: BundleResult | undefined = want('bundles') ? await section('5a. bundle sizes', () => benchBundles()) : undefined;
  let vscode: VSCodeResult | { skipped: string } = { skipped: want('vscode') ? 'run without --skip-vscode' : 'not in --section' };
  if (!skipVSCode && want('vscode')) {
    try {
      vscode = await section('5b. real VS Code', () => benchVSCode({ quick }));
    } catch (e) {
      process.stderr.write('\n');
      vscode = { skipped: `failed: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}` };
      process.exitCode = 1;
    }
  }
  const soak: SoakResult | undefined = want('soak') ? await section('6. soak', () => benchSoak({ seconds: quick && !process.env.CLIENT_TOOLS_SOAK_SECONDS ? 10 : undefined })) : undefined;
  const attacks: AttackResult[] | undefined = want('attacks') ? await section('7. attacks', async () => [...(await benchAttacks()), ...(await benchExtensionAttacks())]) : undefined;
  const tokens: TokensResult | undefined = want('tokens') ? await section('8. token economy', () => Promise.resolve(benchTokens())) : undefined;
  const scaling: ScalingResult | { skipped: string } = skipScaling || !want('scaling')
    ? { skipped: want('scaling') ? 'run without --skip-scaling' : 'not in --section' }
    : await section('9. scaling', () => benchScaling({ seconds: quick && !process.env.CLIENT_TOOLS_SCALING_SECONDS ? 5 : undefined }));
  const felt = await runFeltSections({ quick, skipVSCode, want, section });

  // ── targets ───────────────────────────────────────────────────────
  const targets: Target[] = [];
  const add = (name: string, target: string, value: number, pass: boolean, measured: string) => targets.push({ name, target, measured, value: round(value, 2), pass });
  const mib = 1024 * 1024;
  if (roundTrip) {
    const lat = roundTrip.latency;
    const cps = roundTrip.callsPerSecond;
    const rtRatio = lat[FULL].medianUs / lat[RAW].medianUs;
    add('round trip median vs raw ws echo', '≤ 2×', rtRatio, rtRatio <= 2, `${rtRatio.toFixed(2)}× (${fmtUs(lat[FULL].medianUs)} vs ${fmtUs(lat[RAW].medianUs)})`);
    const vsJsonRpc = cps[FULL][64] / cps[JSONRPC][64];
    add('calls/s at 64 in flight vs vscode-jsonrpc', '≥ 1.5×', vsJsonRpc, vsJsonRpc >= 1.5, `${vsJsonRpc.toFixed(2)}× (${fmtRate(cps[FULL][64])} vs ${fmtRate(cps[JSONRPC][64])})`);
    const vsMcp = cps[FULL][64] / cps[MCP_MEM][64];
    add('calls/s at 64 in flight vs MCP in-memory', '≥ 1×', vsMcp, vsMcp >= 1, `${vsMcp.toFixed(2)}× (${fmtRate(cps[FULL][64])} vs ${fmtRate(cps[MCP_MEM][64])})`);
  }
  if (binary) {
    const bin = binary.medianUs[mib];
    const binRaw = bin[BIN_FULL] / bin[BIN_RAW];
    add('1 MiB binary result vs raw binary frame', '≤ 1.3×', binRaw, binRaw <= 1.3, `${binRaw.toFixed(2)}× (${fmtUs(bin[BIN_FULL])} vs ${fmtUs(bin[BIN_RAW])})`);
    const binB64 = bin[BIN_B64] / bin[BIN_FULL];
    add('1 MiB binary result, speed-up over base64 in JSON', '≥ 2×', binB64, binB64 >= 2, `${binB64.toFixed(2)}× (${fmtUs(bin[BIN_B64])} vs ${fmtUs(bin[BIN_FULL])})`);
  }
  if (agentTurn) {
    add('agent turn: model stream → client tool (median)', '< 1 ms', agentTurn.modelToClient.medianUs, agentTurn.modelToClient.medianUs < 1000, fmtUs(agentTurn.modelToClient.medianUs));
    add('agent turn: tool result → model request out (median)', '< 1 ms', agentTurn.clientToModel.medianUs, agentTurn.clientToModel.medianUs < 1000, fmtUs(agentTurn.clientToModel.medianUs));
  }
  if (flood) {
    const floodOk = flood.answered === flood.requests && flood.duplicates === 0;
    add('flood: heap growth, every request answered once', '< 50 MB, all', flood.heapGrowthMB, flood.heapGrowthMB < 50 && floodOk, `${flood.heapGrowthMB.toFixed(1)} MB, ${flood.answered}/${flood.requests} answered, ${flood.duplicates} twice`);
  }
  if ('activationMs' in vscode) add('extension activate()', '< 100 ms', vscode.activationMs, vscode.activationMs < 100, `${vscode.activationMs.toFixed(1)} ms`);
  if (soak) add('soak: tool calls lost', '0', soak.lost, soak.lost === 0, `${soak.lost} of ${soak.counts.callsAnswered} answered (${soak.clients} clients, ${soak.seconds.toFixed(0)} s)`);
  if (attacks) {
    const worstDelay = worstDelayMs(attacks);
    add('attacks: worst event-loop delay', '< 100 ms', worstDelay, worstDelay < 100, `${fmtUs(worstDelay * 1000)} (${worstAttack(attacks)?.name ?? 'none'})`);
  }
  if (tokens) add('definition tokens, built-in groups collapsed vs flat', '≥ 80 % fewer', tokens.builtin.savedVsFlat * 100, tokens.builtin.savedVsFlat >= 0.8, `${(tokens.builtin.savedVsFlat * 100).toFixed(1)} % fewer (${tokens.builtin.collapsed} vs ${tokens.builtin.flat})`);
  if ('rounds' in scaling) {
    const lost = scaling.rounds.reduce((sum, r) => sum + r.callsLost, 0);
    add('scaling: client calls lost (1, 2, 3 replicas)', '0', lost, lost === 0, `${lost} of ${scaling.rounds.reduce((sum, r) => sum + r.calls, 0)} (${scaling.editors} editors)`);
  }
  if (bundles) add('openai in the extension bundle', 'absent', bundles.openaiFilesInExtension, bundles.openaiFilesInExtension === 0, bundles.openaiFilesInExtension === 0 ? 'absent (0 files in the metafile)' : `${bundles.openaiFilesInExtension} files`);
  for (const t of feltTargets(felt)) add(t.name, t.target, t.value, t.pass, t.measured);

  // ── table ─────────────────────────────────────────────────────────
  const lines: string[] = [];
  const out = (s = '') => lines.push(s);
  out(`Client Tools benchmarks: ${info.cpu}, ${info.cores} cores, Node ${info.node}, ${info.date.slice(0, 16).replace('T', ' ')} UTC${quick ? ' (quick)' : ''}`);
  out(`Load average at start ${info.loadAverageAtStart.join(' ')}. Both ends in one process on loopback; ratios from interleaved rounds of this run.`);
  out();
  if (roundTrip) {
  const lat = roundTrip.latency;
  const cps = roundTrip.callsPerSecond;
  out(`1. Tool round trip (client-tools: ${roundTrip.requestBytes} B request, ${roundTrip.responseBytes} B response)`);
  out(`   ${pad('', 38)}${lpad('median', 9)}${lpad('p99', 9)}${lpad('1 in flight', 13)}${lpad('16', 10)}${lpad('64', 10)}${lpad('vs raw', 9)}`);
  for (const name of [FULL, RAW, JSONRPC, MCP_MEM, MCP_HTTP]) {
    const l = lat[name];
    const c = cps[name];
    out(`   ${pad(name, 38)}${lpad(fmtUs(l.medianUs), 9)}${lpad(fmtUs(l.p99Us), 9)}${lpad(fmtRate(c[1]), 13)}${lpad(fmtRate(c[16]), 10)}${lpad(fmtRate(c[64]), 10)}${lpad(`${(l.medianUs / lat[RAW].medianUs).toFixed(1)}×`, 9)}`);
  }
  out();
  }
  if (binary) {
  const bin = binary.medianUs[mib];
  out('2. Binary result, median per call');
  out(`   ${pad('', 38)}${SIZES.map((s) => lpad(kib(s), 10)).join('')}${lpad('1 MiB vs ours', 15)}`);
  for (const name of [BIN_FULL, BIN_RAW, BIN_RAW_MASKED, BIN_B64]) {
    out(`   ${pad(name, 38)}${SIZES.map((s) => lpad(fmtUs(binary.medianUs[s][name]), 10)).join('')}${lpad(`${(bin[name] / bin[BIN_FULL]).toFixed(2)}×`, 15)}`);
  }
  out();
  }
  if (agentTurn) {
  out(`3. Agent turn overhead (real openai SDK → fake endpoint, ${agentTurn.turns} turns)`);
  out(`   model stream written → client tool starts     median ${fmtUs(agentTurn.modelToClient.medianUs)}, p99 ${fmtUs(agentTurn.modelToClient.p99Us)}`);
  out(`   tool returns → next model request leaves       median ${fmtUs(agentTurn.clientToModel.medianUs)}, p99 ${fmtUs(agentTurn.clientToModel.p99Us)}`);
  out(`   tool returns → it arrives at the endpoint      median ${fmtUs(agentTurn.clientToEndpoint.medianUs)}, p99 ${fmtUs(agentTurn.clientToEndpoint.p99Us)} (adds fetch and the endpoint)`);
  out(`   whole run (2 model calls, 1 tool call)         median ${fmtUs(agentTurn.runMedianUs)}`);
  out();
  }
  if (flood) {
  out(`4. Flood: ${flood.requests} requests in one burst at the extension core`);
  out(`   answered ${flood.answered} (${flood.succeeded} ran, ${flood.refusedTooManyInFlight} TOO_MANY_IN_FLIGHT, ${flood.otherErrors} other errors, ${flood.duplicates} twice), drained in ${flood.drainMs.toFixed(0)} ms`);
  out(`   heap after GC ${flood.heapBeforeMB.toFixed(1)} → ${flood.heapAfterMB.toFixed(1)} MB (peak ${flood.heapPeakMB.toFixed(1)} MB), RSS ${flood.rssBeforeMB.toFixed(0)} → ${flood.rssAfterMB.toFixed(0)} MB`);
  out();
  }
  if (tokens) {
  out('8. Token economy: function-definition tokens per request (o200k), collapsed / expanded / flat');
  for (const [label, c] of [['built-in groups', tokens.builtin], ['with a 100-tool group', tokens.withHundred]] as const) {
    out(`   ${pad(`${label} (${c.tools} tools)`, 34)} ${lpad(String(c.collapsed), 6)} / ${lpad(String(c.expanded), 6)} / ${lpad(String(c.flat), 6)}   collapsed ${(c.savedVsFlat * 100).toFixed(1)} % fewer than flat (${(c.flat / c.collapsed).toFixed(1)}×)`);
  }
  out();
  }
  if (bundles || want('vscode')) {
  out('5. Real VS Code (code-server 4.100.3, headless Chromium) and bundles');
  if ('activationMs' in vscode) {
    out(`   activate() ${vscode.activationMs.toFixed(1)} ms; start to hello ${(vscode.startMs / 1000).toFixed(1)} s`);
    out(`   OpenFile round trip      median ${fmtUs(vscode.openFile.medianUs)}, p99 ${fmtUs(vscode.openFile.p99Us)} (${vscode.openFile.calls} calls)`);
    out(`   GetSelection round trip  median ${fmtUs(vscode.getSelection.medianUs)}, p99 ${fmtUs(vscode.getSelection.p99Us)} (${vscode.getSelection.calls} calls)`);
  } else {
    out(`   skipped: ${vscode.skipped}`);
  }
  if (bundles) {
    for (const [file, bytes] of Object.entries(bundles.dev)) {
      out(`   ${pad(file, 22)} ${lpad((bytes / 1024).toFixed(0), 6)} KiB as built, ${lpad((bundles.production[file] / 1024).toFixed(0), 5)} KiB minified`);
    }
    out(`   openai in the extension bundle: ${bundles.openaiFilesInExtension === 0 ? 'no' : 'YES'} (${bundles.openaiFilesInExtension} files; the backend bundle has ${bundles.openaiFilesInBackend})`);
  }
  out();
  }
  if (soak) for (const line of [...soakLines(soak), '']) out(line);
  if (attacks) for (const line of [...attackLines(attacks), '']) out(line);
  if ('rounds' in scaling) for (const line of [...scalingLines(scaling), '']) out(line);
  else if (want('scaling')) for (const line of [`9. Scaling: skipped (${scaling.skipped})`, '']) out(line);
  for (const line of feltLines(felt)) out(line);
  out('Targets');
  for (const t of targets) out(`   ${t.pass ? 'PASS' : 'MISS'}  ${pad(t.name, 54)} ${pad(t.target, 13)} ${t.measured}`);
  const text = lines.join('\n');
  console.log(text);

  const result = {
    machine: { ...info, loadAverageAtEnd: os.loadavg().map((l) => round(l, 2)) },
    quick,
    durationS: round((performance.now() - started) / 1000, 1),
    roundTrip,
    binary,
    agentTurn,
    flood,
    vscode,
    bundles,
    soak,
    attacks,
    tokens,
    scaling,
    ...felt,
    targets,
    table: text,
  };
  // A run of some sections keeps the full run's figures (and docs/BENCHMARKS.md's) apart.
  const file = path.join(RESULTS_DIR, onlySections ? `latest-${onlySections.join('-')}.json` : 'latest.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  process.stderr.write(`[bench] done in ${result.durationS} s; figures in ${path.relative(process.cwd(), file)}\n`);
}

main().then(
  () => process.exit(),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
