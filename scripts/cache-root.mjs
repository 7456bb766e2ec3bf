// The cache folder outside the clone that every provisioned tool of this project shares (CI runs
// in a fresh clone on the same machine, so reruns skip the installs).
import os from 'node:os';
import path from 'node:path';

/** @returns {string} CLIENT_TOOLS_CACHE, or ~/.cache/client-tools */
export function cacheRoot() {
  return process.env.CLIENT_TOOLS_CACHE
    ? path.resolve(process.env.CLIENT_TOOLS_CACHE)
    : path.join(os.homedir(), '.cache', 'client-tools');
}
