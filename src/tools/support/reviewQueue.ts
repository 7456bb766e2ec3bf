/**
 * One review at a time per file, across OpenDiff and the Language group's multi-file changes: a
 * change to several files waits until none of them is under another review, taking the files in
 * sorted order so that two changes never wait for each other.
 */
import { KeyedQueue } from '../../core/keyedQueue';

const reviews = new KeyedQueue();

/** Runs `task` once every earlier review of any of `paths` has ended; `onWait` once if it has to wait. */
export function afterReviewsOf<T>(paths: readonly string[], signal: AbortSignal, task: () => Promise<T>, onWait?: () => void): Promise<T> {
  const keys = [...new Set(paths)].sort();
  let told = false;
  const wait = () => {
    if (!told) onWait?.();
    told = true;
  };
  const step = (i: number): Promise<T> => (i === keys.length ? task() : reviews.run(keys[i], signal, () => step(i + 1), wait));
  return step(0);
}
