/**
 * The user's approval of each workspace MCP server, asked once: a modal that shows exactly what will
 * run (the command line with its folder and environment, or the URL with its headers), remembered in
 * the extension's global state (which no workspace file can write) under a digest of that exact
 * launch, so a changed command, argument or URL asks again. A launch that does not fit the dialog in
 * full as shown (src/core/consent/consentText.ts) is refused rather than shown abridged.
 */
import * as vscode from 'vscode';
import type { FittedConsent } from '../../core/consent/consentText';
import { CodedError, ErrorCode } from '../../protocol';
import { safe } from '../../core/uiText';
import { approvalKey, launchApproval, type McpServerConfig } from '../../tools/mcpClient/config';
import * as ui from '../ui';

const APPROVED_KEY = 'clientTools.mcpServers.approved';
/** The oldest approvals are forgotten past this many. */
const MAX_APPROVALS = 500;

export type ApprovalAnswer = 'approved' | 'declined' | 'too-long';

export class McpApprovals {
  /** Declined in this window: not asked again until the user runs Restart MCP Servers. */
  private readonly declined = new Set<string>();

  constructor(private readonly state: vscode.Memento) {}

  isApproved(server: McpServerConfig): boolean {
    return this.all().includes(approvalKey(server));
  }

  wasDeclined(server: McpServerConfig): boolean {
    return this.declined.has(approvalKey(server));
  }

  /** Asks the user (modal); remembers a yes for good and a no for this window. */
  async ask(server: McpServerConfig): Promise<ApprovalAnswer> {
    let text: FittedConsent;
    try {
      text = launchApproval(server);
    } catch (e) {
      if (e instanceof CodedError && e.code === ErrorCode.PromptTooLarge) return 'too-long';
      throw e;
    }
    const key = approvalKey(server);
    const choice = await ui.showModalItems(text, [{ title: START, value: true }]);
    if (choice?.value !== true) {
      this.declined.add(key);
      return 'declined';
    }
    await this.state.update(APPROVED_KEY, [...this.all().filter((k) => k !== key), key].slice(-MAX_APPROVALS));
    return 'approved';
  }

  /** Forgets this window's refusals, so the next reload asks again. */
  forgetDeclined(): void {
    this.declined.clear();
  }

  private all(): string[] {
    const stored = this.state.get<unknown>(APPROVED_KEY);
    return Array.isArray(stored) ? stored.filter((k): k is string => typeof k === 'string') : [];
  }
}

const START = safe`Start Server`;
