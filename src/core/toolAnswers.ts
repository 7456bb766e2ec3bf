/**
 * A client tool call's answers as the dispatcher builds them: a failure with its sentence where the
 * model reads it, a declined prompt, the nearest code for a thrown error, and a result's size.
 */
import { ErrorCode, isCodedError, type ClientToolInvokeResponse, type ContentItem } from '../protocol';
import type { ClientTool } from './tool';

/**
 * A failed call's answer. The sentence goes in `content` as well as `errorMessage`: `content` is what
 * the model receives, and a backend that forwards it as it is would otherwise give the model nothing.
 */
export function errorResponse(requestId: string, code: ErrorCode, message: string): ClientToolInvokeResponse {
  const sentence = clip(message);
  return { type: 'clientToolInvokeResponse', requestId, success: false, content: [{ type: 'text', text: sentence }], errorCode: code, errorMessage: sentence };
}


/**
 * A denied (or dismissed, or timed-out) prompt. `reject` answers success:false PERMISSION_DENIED.
 * `skip` answers success:true with a text saying the user skipped the call, plus errorCode SKIPPED:
 * a skip is the user's choice, not a failure, so the run goes on and the model is told plainly that
 * nothing happened; the code lets the backend record the outcome as `skipped`.
 */
export function declinedResponse(requestId: string, tool: Pick<ClientTool, 'name' | 'declineStrategy'>, timedOut: boolean, reason?: string): { response: ClientToolInvokeResponse; outcome: 'denied' | 'skipped' } {
  const why = timedOut ? 'did not answer the permission prompt in time' : 'declined';
  // The user's own words, so the model need not guess why (quoted: they are the user's, not ours).
  const said = reason !== undefined ? `; the user's reason: "${reason}"` : '';
  if (tool.declineStrategy === 'skip') {
    return {
      response: {
        type: 'clientToolInvokeResponse',
        requestId,
        success: true,
        content: [{ type: 'text', text: `The user ${why} and skipped this call to ${tool.name}; nothing was done${said}. Continue without it.` }],
        errorCode: ErrorCode.Skipped,
      },
      outcome: 'skipped',
    };
  }
  return { response: errorResponse(requestId, ErrorCode.PermissionDenied, `the user ${why} to run ${tool.name}${said}`), outcome: 'denied' };
}

const ERRNO_CODES: Record<string, ErrorCode> = {
  ENOENT: ErrorCode.NotFound,
  ENOTDIR: ErrorCode.NotFound,
  EISDIR: ErrorCode.IsDirectory,
};

/** A CodedError keeps its code; a Node errno error gets the nearest code; anything else is TOOL_FAILED. */
export function mapError(e: unknown): { code: ErrorCode; message: string } {
  if (isCodedError(e)) return { code: e.code, message: e.message };
  if (e instanceof Error) {
    const errno = (e as NodeJS.ErrnoException).code;
    const code = (errno !== undefined && ERRNO_CODES[errno]) || ErrorCode.ToolFailed;
    return { code, message: e.message || e.name };
  }
  return { code: ErrorCode.ToolFailed, message: String(e) };
}

/** Bytes a result takes on the wire, near enough: binary bytes plus the JSON of everything else. */
export function contentBytes(content: readonly ContentItem[]): number {
  let n = 0;
  for (const item of content) {
    if (item.type === 'binary') n += item.bytes.byteLength + 200;
    else n += Buffer.byteLength(JSON.stringify(item));
  }
  return n;
}

function clip(message: string): string {
  return message.length > 10_000 ? `${message.slice(0, 9_990)}…` : message;
}
