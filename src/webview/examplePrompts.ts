/**
 * The empty chat's example requests. They work on the sample workspace (`npm start`,
 * test/fixtures/workspace) with the offline demo model and a real one alike;
 * test/unit/webview/emptyState.test.ts checks both. No DOM here, so Node tests can import it.
 */

/** One click sends the request as typed. */
export const EXAMPLE_PROMPTS = [
  'open notes.md',
  'which files are open?',
  'find all TypeScript files',
  'find usages of greet',
  'search for TODO',
  'read logo.png',
  'propose changing hello.txt to Hello!',
  'show a warning saying hi',
] as const;
