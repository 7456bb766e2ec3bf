/**
 * What the extension's processes under test share (hosts/coreHost.ts, hosts/mcpServerHost.ts,
 * hosts/mcpBridgeHost.ts): a real temporary workspace whose files carry the names the schema
 * samples use (a path argument `a` names a file that exists, so tools do their real work), a fake
 * host that puts prompts and notifications through the same door as the extension's presenters (src/vscode/prompts/) and
 * reviews a diff as src/vscode/reviews/diffReview.ts does (and accepts it), and the fuzzer's own tools.
 */
import { mkdir, mkdtemp, realpath, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { DiffOutcome, DiffRequest, MessageSeverity, QuestionCall } from '../../../src/core/host';
import type { PermissionAnswer, PermissionPrompt, PermissionReply } from '../../../src/core/consent/presenter';
import { cardHunks } from '../../../src/core/hunkReview';
import { MAX_REVIEW_HUNKS } from '../../../src/protocol/webview';
import { defineTool, jsonResult, type ClientTool } from '../../../src/core/tool';
import { uiText } from '../../../src/core/uiText';
import { CodedError, ErrorCode } from '../../../src/protocol';
import { FakeHost } from '../../support/fake-host';

const FILES: Record<string, string> = { a: 'line one\nline two\n', 'notes.txt': 'notes\n', 'src/a.ts': 'export const a = 1;\n' };

/** The fake host, with prompts and notifications made safe as the extension's presenters make them (src/vscode/prompts/). */
export class DoorHost extends FakeHost {
  override confirm(prompt: PermissionPrompt, signal: AbortSignal): Promise<PermissionAnswer | PermissionReply | undefined> {
    uiText(prompt.message, { verbatim: true });
    uiText([`Requested by the agent through the ${prompt.groupName} tool ${prompt.toolName}.`, prompt.detail].filter(Boolean).join('\n\n'), { multiline: true, verbatim: true, maxLength: 20_000 });
    for (const c of prompt.choices) uiText(c.label, { maxLength: 200 });
    return super.confirm(prompt, signal);
  }

  /** The user accepts the proposal as it stands, once the review has its hunks (the tool's, as src/vscode/reviews/diffReview.ts takes them) as the card lists them. */
  override async openDiff(request: DiffRequest): Promise<DiffOutcome> {
    cardHunks(request.review, request.proposed, (i) => `Hunk ${i + 1}`, MAX_REVIEW_HUNKS);
    return { decision: 'accepted', content: request.proposed };
  }

  override showMessage(text: string, severity: MessageSeverity, buttons: readonly string[], question?: QuestionCall): Promise<string | undefined> {
    uiText(text);
    for (const b of buttons) uiText(b);
    return super.showMessage(text, severity, buttons, question);
  }
}

/** A temporary workspace folder `ws` with the sample files, and a host on it; `restoreFiles` puts back what a case deleted or changed. */
export async function workspace(): Promise<{ host: DoorHost; folder: string; restoreFiles: () => Promise<void> }> {
  const root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'client-tools-fuzz-')));
  const folder = path.join(root, 'ws');
  const restoreFiles = async () => {
    for (const [rel, content] of Object.entries(FILES)) {
      await mkdir(path.dirname(path.join(folder, rel)), { recursive: true });
      await writeFile(path.join(folder, rel), content);
    }
  };
  await restoreFiles();
  return { host: new DoorHost([{ name: 'ws', path: folder }], path.join(root, '.trash')), folder, restoreFiles };
}

/** `Echo` returns its arguments as JSON; `Wait` runs until cancelled. */
export function fuzzTools(): ClientTool[] {
  const base = { group: 'Fuzz', requiresPermission: false, availableWhenUntrusted: true, declineStrategy: 'reject' as const, parameters: { type: 'object' } };
  return [
    defineTool({ ...base, name: 'Echo', description: 'Returns its arguments.', run: async (args) => jsonResult(args) }),
    defineTool({
      ...base,
      name: 'Wait',
      description: 'Runs until cancelled.',
      run: (_args, ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new CodedError(ErrorCode.Cancelled, 'cancelled')), { once: true })),
    }),
  ];
}
