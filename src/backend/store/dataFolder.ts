/**
 * The data folder and its sub-folders: created 0700, and refused when it is a link, not a folder,
 * another user's, or writable by group or others (whoever can write there can plant a thread or
 * swap a blob). Windows has neither owners by uid nor mode bits, so only the type is checked there.
 */
import * as fs from 'node:fs/promises';
import { StoreError } from './conversationStore';

export async function ensurePrivateFolder(dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const st = await fs.lstat(dir);
  if (st.isSymbolicLink()) throw new StoreError('STORE_UNSAFE', `The data folder ${dir} is a symbolic link, which is never followed; point --data-dir at the real folder.`);
  if (!st.isDirectory()) throw new StoreError('STORE_UNSAFE', `The data folder ${dir} is not a folder.`);
  if (process.platform === 'win32') return;
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) throw new StoreError('STORE_UNSAFE', `The data folder ${dir} belongs to another user (uid ${st.uid}, not ${uid}).`);
  if ((st.mode & 0o022) !== 0) {
    throw new StoreError('STORE_UNSAFE', `The data folder ${dir} may be written by others (mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}); run chmod 700 on it or use another folder.`);
  }
}
