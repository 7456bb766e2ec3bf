/**
 * The o200k_base encoder (gpt-tokenizer) as a module of its own: the backend bundles build it into
 * its own file beside cli.js and index.js (esbuild.mjs), which tokens.ts loads at the first count,
 * so a backend that never counts (the offline demo) does not read or compile its 4 MB of tables.
 */
export * from 'gpt-tokenizer/encoding/o200k_base';
