import * as path from 'node:path';

/** The bench/ folder, both from source (this file is in bench/lib/) and from the bundle in bench/.out/. */
export const BENCH_DIR = path.resolve(__dirname, '..');
export const RESULTS_DIR = path.join(BENCH_DIR, 'results');
