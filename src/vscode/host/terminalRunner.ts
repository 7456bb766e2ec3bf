/**
 * Shows RunInTerminal's approved command in a VS Code terminal that this extension owns (a
 * pseudoterminal): the command, its output as it comes and how it ended. The process itself is run
 * by `SupervisedProcess` (src/tools/terminal/processSupervisor.ts: process group, signals, grace
 * kill, draining), which also gives the exit code and output the call reports.
 *
 * Why not type the command into a shell terminal and read it back through shell integration: typing
 * races the shell's start-up. In CI the shell received " 3)" of `echo catalog-$((40+2)); (exit 3)`,
 * that is, a different command from the one the user approved, and shell integration then reported
 * no exit code. A process started with the exact string has neither problem, and needs no shell
 * integration at all.
 *
 * Ctrl+C in the terminal interrupts the command; closing the terminal stops it, or hangs up the
 * background jobs a finished one left, as closing a real terminal would. The terminal stays open
 * for the user to read until the next command starts. Input is not forwarded.
 */
import * as vscode from 'vscode';
import { CodedError, ErrorCode } from '../../protocol';
import type { RunCommandRequest, RunCommandResult } from '../../core/host';
import { safe, uiText } from '../../core/uiText';
import { commandShell, SupervisedProcess, type ProcessEnd } from '../../tools/terminal/processSupervisor';
import * as ui from '../ui';

export class TerminalRunner implements vscode.Disposable {
  /** Terminals of commands that ended: kept for the user to read, closed when the next command starts. */
  private finished: vscode.Terminal[] = [];
  private readonly running = new Set<SupervisedProcess>();
  private disposed = false;

  async run(request: RunCommandRequest, signal: AbortSignal): Promise<RunCommandResult> {
    for (const t of this.finished.splice(0)) t.dispose();
    if (signal.aborted) throw new CodedError(ErrorCode.Cancelled, 'the call was cancelled');
    const view = new CommandView(request);
    const terminal = ui.openTerminal({
      name: safe`Client Tools: ${uiText(request.command.split('\n')[0], { maxLength: 40 })}`,
      pty: view,
      isTransient: true,
      iconPath: new vscode.ThemeIcon('robot'),
    });
    terminal.show(true);

    const proc = new SupervisedProcess({ ...request, shell: commandShell(vscode.env.shell) }, { signal, onOutput: (d) => view.output(d) });
    this.running.add(proc);
    view.onInterrupt = () => proc.stop('interrupt');
    // The pseudoterminal's close() hears only the user; this hears code closing it too.
    const closed = vscode.window.onDidCloseTerminal((t) => {
      if (t !== terminal) return;
      closed.dispose();
      proc.hangUp();
    });
    const end = await proc.ended;
    this.running.delete(proc);
    view.onInterrupt = undefined;
    this.keep(terminal);
    if (!end.started) {
      view.ended(`could not start: ${end.error.message}`);
      throw new CodedError(ErrorCode.ToolFailed, `could not start the command: ${end.error.message}`);
    }
    view.ended(endLine(end, request.timeoutMs));
    const { exitCode, output, truncated, timedOut, stopped } = end;
    return { exitCode, output, truncated, timedOut, via: 'terminal', ...(stopped && !timedOut ? { stopped: true } : {}) };
  }

  dispose(): void {
    this.disposed = true;
    // The extension host may be on its way out: no grace period it might not live to see.
    for (const proc of [...this.running]) proc.stop('now');
    for (const t of this.finished.splice(0)) t.dispose();
  }

  private keep(terminal: vscode.Terminal): void {
    if (this.disposed) terminal.dispose();
    else this.finished.push(terminal);
  }
}

/** The terminal's last line: how the command ended. */
function endLine(end: Extract<ProcessEnd, { started: true }>, timeoutMs: number): string {
  if (end.timedOut) return `stopped at the ${Math.round(timeoutMs / 1000)} s time limit`;
  if (end.exitCode !== undefined) return `exit code ${end.exitCode}${end.stopped ? ', after it was asked to stop' : ''}`;
  return `${end.stopped ? 'stopped' : 'ended'}${end.signal ? ` by ${end.signal}` : ''}`;
}

/**
 * What the terminal shows. Writes made before VS Code opens the terminal are kept and shown at
 * open (VS Code drops a pseudoterminal's writes before that), so the process never waits for the UI.
 */
class CommandView implements vscode.Pseudoterminal {
  private readonly writer = new vscode.EventEmitter<string>();
  readonly onDidWrite = this.writer.event;
  /** Set while the command runs: Ctrl+C in the terminal interrupts it. */
  onInterrupt: (() => void) | undefined;
  private pending: string[] | undefined = [];
  private readonly pendingMax = 256 * 1024;
  private pendingChars = 0;
  private toldAboutInput = false;
  /** The output so far ends with a newline (or there is none), so the end line needs no line break. */
  private atLineStart = true;

  constructor(request: RunCommandRequest) {
    const lines = request.command.split('\n');
    this.write(`\x1b[2mClient Tools runs, in ${request.cwd}:\x1b[0m\r\n`);
    for (const [i, line] of lines.entries()) this.write(`\x1b[1m${i === 0 ? '$' : '>'} ${visibleControls(line)}\x1b[0m\r\n`);
  }

  open(): void {
    const pending = this.pending ?? [];
    this.pending = undefined;
    for (const chunk of pending) this.writer.fire(chunk);
  }

  close(): void {
    // Closing is handled through onDidCloseTerminal, which also hears code closing the terminal.
    this.writer.dispose();
  }

  handleInput(data: string): void {
    if (!this.onInterrupt) return;
    if (data.includes('\x03')) {
      this.write('^C\r\n');
      this.onInterrupt();
    } else if (!this.toldAboutInput) {
      this.toldAboutInput = true;
      this.write('\x1b[2m[input is not passed to the command; Ctrl+C stops it]\x1b[0m\r\n');
    }
  }

  output(text: string): void {
    if (text === '') return;
    this.atLineStart = text.endsWith('\n');
    this.write(text.replace(/\r?\n/g, '\r\n'));
  }

  ended(how: string): void {
    this.write(`${this.atLineStart ? '' : '\r\n'}\x1b[2m[${how}]\x1b[0m\r\n`);
  }

  private write(text: string): void {
    if (!this.pending) {
      this.writer.fire(text);
      return;
    }
    // Not opened yet: keep a bounded amount (the result keeps the full capped output either way).
    if (this.pendingChars >= this.pendingMax) return;
    this.pending.push(text);
    this.pendingChars += text.length;
  }
}

/** Control characters as ^X, so the echoed command cannot move the cursor or hide part of itself. */
function visibleControls(text: string): string {
  return text.replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, (c) => (c === '\u007f' ? '^?' : `^${String.fromCharCode(c.charCodeAt(0) + 64)}`));
}
