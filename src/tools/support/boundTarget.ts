/**
 * The tools' side of consent bound to the object (src/core/fileIdentity.ts): check right before
 * the I/O, and when the target changed, tell the user as well as the backend, since the user
 * approved something that is now not what would be touched.
 */
import { CodedError, ErrorCode } from '../../protocol';
import { verifyTarget, type BoundTarget } from '../../core/fileIdentity';
import type { ToolHost } from '../../core/host';
import type { ToolContext } from '../../core/tool';
import { sanitizeForNotification } from '../../core/uiText';

/**
 * Runs `check` (by default: the target and its folders are the objects the user approved); on
 * TARGET_CHANGED shows a warning naming what was not done, then rethrows.
 */
export async function ensureUnchanged(ctx: ToolContext<ToolHost>, bound: BoundTarget, action: string, check: () => Promise<void> | void = () => verifyTarget(bound)): Promise<void> {
  try {
    await check();
  } catch (e) {
    if (e instanceof CodedError && e.code === ErrorCode.TargetChanged) {
      const text = `Client Tools did not ${action} ${bound.relative}: it, or a folder on its path, changed after you approved (replaced, linked or edited). Nothing was done.`;
      void ctx.host.showMessage(sanitizeForNotification(text), 'warning', []).then(undefined, () => undefined);
    }
    throw e;
  }
}
