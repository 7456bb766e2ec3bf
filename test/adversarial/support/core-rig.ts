/**
 * The extension side under attack: a real `ClientCore` with the IDE tools and a few test tools,
 * a fake host on real temporary folders that records every file operation, and a scripted backend
 * (test/support/scripted-backend.ts, a real `ws` server on 127.0.0.1) that the tests turn hostile.
 *
 * The temporary tree holds, next to the workspace folder `ws`, things an attacker wants:
 *   <root>/outside/secret.txt      outside every workspace folder
 *   <root>/ws-evil/secret.txt      a sibling whose name starts with the folder's (prefix trick)
 *   ws/secret-link  → <root>/outside/secret.txt   (symlinked file out)
 *   ws/out-dir      → <root>/outside              (symlinked folder out)
 *   ws/innocent.txt → ws/.env                     (an innocent name for a protected file)
 */
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { ClientCore, type ClientCoreOptions } from '../../../src/core/clientCore';
import type { ConnectionState } from '../../../src/core/connection';
import type { DeleteOptions, FileStat, OpenedFile, OpenFileOptions } from '../../../src/core/host';
import type { PromptActivity } from '../../../src/core/consent/permissionGate';
import { defineTool, jsonResult, textResult, type ClientTool } from '../../../src/core/tool';
import type { ClientToolInvokeResponse, ErrorCode } from '../../../src/protocol';
import { ideToolGroup } from '../../../src/tools/ide/group';
import { RecordingLogger } from '../../support/dispatch-harness';
import { ScriptedBackend, type ScriptedBackendOptions } from '../../support/scripted-backend';
import { FakeHost } from '../../support/fake-host';

export const SECRET = 'TOP-SECRET-do-not-leak';

/** A host operation on a path (prompts are in `prompts`). */
export interface HostIo {
  op: 'stat' | 'readFile' | 'openFile' | 'deleteFile' | 'countEntries';
  path: string;
}

/** FakeHost that records every file operation, so a test can prove a refusal came before any I/O. */
export class SpyHost extends FakeHost {
  readonly io: HostIo[] = [];

  /** Real deletes (moves to the trash) per absolute path. */
  deletesOf(absPath: string): number {
    return this.deleted.filter((d) => d.path === absPath).length;
  }

  override stat(absPath: string): Promise<FileStat | undefined> {
    this.io.push({ op: 'stat', path: absPath });
    return super.stat(absPath);
  }
  override readFile(absPath: string): Promise<Uint8Array> {
    this.io.push({ op: 'readFile', path: absPath });
    return super.readFile(absPath);
  }
  override openFile(absPath: string, options: OpenFileOptions): Promise<OpenedFile> {
    this.io.push({ op: 'openFile', path: absPath });
    return super.openFile(absPath, options);
  }
  override deleteFile(absPath: string, options: DeleteOptions): Promise<{ movedToTrash: boolean }> {
    this.io.push({ op: 'deleteFile', path: absPath });
    return super.deleteFile(absPath, options);
  }
  override countEntries(absDir: string, limit: number): Promise<number> {
    this.io.push({ op: 'countEntries', path: absDir });
    return super.countEntries(absDir, limit);
  }
}

/** Promises a test resolves by key: the `Latch` tool waits on one, so a call stays in flight on purpose. */
export class Latches {
  private readonly open = new Map<string, { promise: Promise<void>; release: () => void }>();
  /** Keys a `Latch` call has started waiting on, in order. */
  readonly entered: string[] = [];

  wait(key: string, signal: AbortSignal): Promise<void> {
    this.entered.push(key);
    const latch = this.get(key);
    return new Promise((resolve, reject) => {
      signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
      void latch.promise.then(resolve);
    });
  }

  release(key: string): void {
    this.get(key).release();
  }

  private get(key: string) {
    let l = this.open.get(key);
    if (!l) {
      let release = () => {};
      const promise = new Promise<void>((r) => (release = r));
      l = { promise, release };
      this.open.set(key, l);
    }
    return l;
  }
}

/** The `Test` group: tools that succeed, throw, hang, wait, or hide. Runs are counted per tool. */
export function testTools(latches: Latches, runs: Map<string, number>): ClientTool[] {
  const count = (name: string) => runs.set(name, (runs.get(name) ?? 0) + 1);
  const base = { group: 'Test', declineStrategy: 'reject' as const };
  return [
    defineTool<{ n?: number }>({
      ...base, name: 'Echo', description: 'returns its arguments', requiresPermission: false, availableWhenUntrusted: true,
      parameters: { type: 'object', properties: { n: { type: 'integer' } }, additionalProperties: false },
      run: async (args) => (count('Echo'), jsonResult(args)),
    }),
    defineTool({
      ...base, name: 'Boom', description: 'throws', requiresPermission: false,
      parameters: { type: 'object', additionalProperties: false },
      run: async () => {
        count('Boom');
        throw new Error('kaboom');
      },
    }),
    defineTool({
      ...base, name: 'Hang', description: 'never returns and ignores cancellation', requiresPermission: false,
      parameters: { type: 'object', additionalProperties: false },
      run: () => (count('Hang'), new Promise(() => {})),
    }),
    defineTool<{ key: string }>({
      ...base, name: 'Latch', description: 'waits until the test releases its key', requiresPermission: false,
      parameters: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'], additionalProperties: false },
      run: async (args, ctx) => {
        count('Latch');
        await latches.wait(args.key, ctx.signal);
        return textResult(`released ${args.key}`);
      },
    }),
    defineTool({
      ...base, name: 'Secret', description: 'hidden until shown; asks first', requiresPermission: true, hidden: true,
      parameters: { type: 'object', additionalProperties: false },
      run: async () => (count('Secret'), textResult('secret ran')),
    }),
  ];
}

export interface RigOptions {
  core?: Partial<ClientCoreOptions>;
  backend?: ScriptedBackendOptions;
  /** Extra files in the workspace folder, relative path → content. */
  files?: Record<string, string>;
}

export class CoreRig {
  readonly latches = new Latches();
  readonly runs = new Map<string, number>();
  readonly logger = new RecordingLogger();
  /** Every state the core went through. */
  readonly states: ConnectionState[] = [];
  readonly protocolErrors: string[] = [];
  /** The permission gate's last report: prompts open and calls queued for one. */
  prompting: PromptActivity = { open: 0, queued: 0 };
  /** Sessions the scripted backend knows, shared across restarts (a persistent backend). */
  readonly sessions = new Set<string>();
  core!: ClientCore;
  backend!: ScriptedBackend;

  private constructor(
    readonly root: string,
    readonly folder: string,
    readonly host: SpyHost,
  ) {}

  static async start(options: RigOptions = {}): Promise<CoreRig> {
    const root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'client-tools-adversarial-')));
    const folder = path.join(root, 'ws');
    const files: Record<string, string> = {
      'src/a.ts': 'export const a = 1;\n',
      'old.txt': 'bye',
      'notes.txt': 'notes',
      '.env': `API_KEY=${SECRET}\n`,
      ...options.files,
    };
    for (const [rel, content] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(folder, rel)), { recursive: true });
      await writeFile(path.join(folder, rel), content);
    }
    for (const dir of ['outside', 'ws-evil']) {
      await mkdir(path.join(root, dir), { recursive: true });
      await writeFile(path.join(root, dir, 'secret.txt'), SECRET);
    }
    await symlink(path.join(root, 'outside', 'secret.txt'), path.join(folder, 'secret-link'));
    await symlink(path.join(root, 'outside'), path.join(folder, 'out-dir'));
    await symlink(path.join(folder, '.env'), path.join(folder, 'innocent.txt'));

    const host = new SpyHost([{ name: 'ws', path: folder }], path.join(root, '.trash'));
    const rig = new CoreRig(root, folder, host);
    rig.backend = await ScriptedBackend.start({ sessions: rig.sessions, ...options.backend });
    rig.core = new ClientCore({
      url: rig.backend.url,
      token: rig.backend.token,
      clientInfo: { name: 'adversarial', version: '0.0.0', ide: 'none' },
      host,
      presenter: host,
      logger: rig.logger,
      connection: { handshakeTimeoutMs: 2000, heartbeatMs: 2000, reconnect: { initialDelayMs: 10, maxDelayMs: 40, maxAttempts: 1000 } },
      ...options.core,
      // The scripted backend calls tools with no chat run; tests of background calls set their own policy.
      permissions: { backgroundCalls: 'allow', ...options.core?.permissions },
    });
    const ide = ideToolGroup();
    rig.core.registry.register(ide.group, ide.tools);
    rig.core.registry.register({ name: 'Test', description: 'adversarial test tools' }, testTools(rig.latches, rig.runs));
    rig.core.onDidChangeState((s) => rig.states.push(s));
    rig.core.onProtocolError((e) => rig.protocolErrors.push(e.code));
    rig.core.permissions.onDidChangeActivity((a) => (rig.prompting = a));
    return rig;
  }

  /** Absolute path inside the workspace folder. */
  file(relative: string): string {
    return path.join(this.folder, relative);
  }

  get sessionId(): string | undefined {
    return this.core.state.kind === 'connected' ? this.core.state.sessionId : undefined;
  }

  /** The first answer to `requestId`, already received or still to come. */
  async answer(requestId: string, timeoutMs = 5000): Promise<ClientToolInvokeResponse> {
    const m = await this.backend.waitFor((x) => x.type === 'clientToolInvokeResponse' && x.requestId === requestId, timeoutMs, 0);
    return m as ClientToolInvokeResponse;
  }

  /** Resolves with the next state of `kind` (matching `match`). */
  stateOf(kind: ConnectionState['kind'], match: (s: ConnectionState) => boolean = () => true, timeoutMs = 5000): Promise<ConnectionState> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        sub.dispose();
        reject(new Error(`no "${kind}" state within ${timeoutMs} ms; last: ${JSON.stringify(this.core.state).slice(0, 300)}`));
      }, timeoutMs);
      const sub = this.core.onDidChangeState((s) => {
        if (s.kind !== kind || !match(s)) return;
        clearTimeout(timer);
        sub.dispose();
        resolve(s);
      });
    });
  }

  async connect(): Promise<void> {
    const ready = this.stateOf('connected');
    this.core.start();
    await ready;
  }

  /** Waits until the core is connected again after a drop, with the session resumed. */
  resumed(): Promise<ConnectionState> {
    return this.stateOf('connected', (s) => s.kind === 'connected' && s.resumed);
  }

  /** Kills the scripted backend (sockets dropped without a close frame) and starts it again on the same port. */
  async restartBackend(): Promise<void> {
    const port = this.backend.port;
    await this.backend.close();
    this.backend = await ScriptedBackend.start({ port, sessions: this.sessions });
  }

  /**
   * The connection survived the attack: the core is connected on the same socket as before (no
   * reconnect was needed) and an ordinary call still works.
   */
  async assertHealthy(socketsBefore: number): Promise<void> {
    const r = await this.backend.call('Echo', { n: 7 });
    assert.equal(r.success, true, r.errorMessage);
    assert.deepEqual(r.content, [{ type: 'json', value: { n: 7 } }]);
    assert.equal(this.core.state.kind, 'connected');
    assert.equal(this.backend.sockets.length, socketsBefore, 'the attack forced a reconnect');
  }

  /**
   * No call slot leaked: `slots` calls can run at once again (each is admitted and waits on a
   * latch), and all of them finish. Needs a core whose maxInFlight is `slots`.
   */
  async assertSlotsFree(slots: number, invoke: (key: string) => Promise<unknown> | unknown): Promise<void> {
    const keys = Array.from({ length: slots }, (_, i) => `slot-${Date.now()}-${i}`);
    const done = keys.map((k) => invoke(k));
    await until(() => keys.every((k) => this.latches.entered.includes(k)), `${slots} calls running at once`);
    for (const k of keys) this.latches.release(k);
    await Promise.all(done);
    assert.deepEqual(this.prompting, { open: 0, queued: 0 }, 'a prompt is still open or queued');
  }

  /** The one log line the dispatcher writes when a call ends, for each ended call of `requestId`. */
  outcomes(requestId: string): string[] {
    return this.logger.entries.filter((e) => e.fields?.requestId === requestId && e.fields.outcome !== undefined).map((e) => String(e.fields?.outcome));
  }

  /** The secrets outside the workspace are untouched. */
  async assertSecretsIntact(): Promise<void> {
    for (const dir of ['outside', 'ws-evil']) assert.equal(await readFile(path.join(this.root, dir, 'secret.txt'), 'utf8'), SECRET);
    assert.equal(existsSync(this.file('.env')), true);
  }

  async dispose(): Promise<void> {
    this.core.dispose();
    await this.backend.close();
    await rm(this.root, { recursive: true, force: true });
  }
}

/** No answer to `requestId` leaks the secret, whatever it says. */
export function assertNoLeak(r: ClientToolInvokeResponse): void {
  assert.ok(!JSON.stringify(r).includes(SECRET), 'the answer carries the secret');
}

/** The one answer to a request, refused with `code`. */
export function assertRefused(r: ClientToolInvokeResponse, code: ErrorCode): void {
  assert.equal(r.success, false, `expected ${code}, got success`);
  assert.equal(r.errorCode, code, r.errorMessage);
  assertNoLeak(r);
}

export function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls `check` until it holds; fails with `what` after `timeoutMs`. */
export async function until(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(5);
  }
}
