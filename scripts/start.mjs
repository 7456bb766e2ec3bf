// `npm start`: the product on this machine. Builds the extension, starts a real VS Code
// (code-server 4.100.3 on 127.0.0.1, provisioned like the tests provision it) with Client Tools
// loaded and a small sample workspace open, prints the URL to open, and runs until Ctrl+C, when it
// stops everything it started. With no model configured the chat runs the offline demo model.
//
// Options (environment):
//   OPENAI_BASE_URL, CLIENT_TOOLS_MODEL, OPENAI_API_KEY
//                          a real OpenAI-compatible model for the bundled backend
//   CLIENT_TOOLS_START_EXIT_AFTER_READY=1
//                          exit once the URL is printed and the workbench answered (used by tests)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, startVSCode } from './vscode-harness.mjs';
import { FIXTURE_WORKSPACE } from './test-workspace.mjs';

const sampleWorkspace = path.join(REPO_ROOT, '.vscode-test', 'sample-workspace');

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: REPO_ROOT, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

console.log('Building the extension…');
run(process.execPath, ['esbuild.mjs']);

// The sample workspace lives in an ignored folder so that what the agent deletes or edits there
// never touches the checked-in fixture. Delete the folder to start over.
if (!fs.existsSync(sampleWorkspace)) {
  fs.mkdirSync(path.dirname(sampleWorkspace), { recursive: true });
  fs.cpSync(FIXTURE_WORKSPACE, sampleWorkspace, { recursive: true });
}

const env = {};
for (const key of ['OPENAI_BASE_URL', 'CLIENT_TOOLS_MODEL', 'OPENAI_API_KEY']) if (process.env[key]) env[key] = process.env[key];
// The sample workspace sits inside this repository: keep Git from offering to open the parent repo.
const settings = { 'git.openRepositoryInParentFolders': 'never' };
if (process.env.OPENAI_BASE_URL) settings['clientTools.model.baseUrl'] = process.env.OPENAI_BASE_URL;
if (process.env.CLIENT_TOOLS_MODEL) settings['clientTools.model.name'] = process.env.CLIENT_TOOLS_MODEL;

console.log('Starting VS Code (code-server)…');
const harness = await startVSCode({
  workspace: sampleWorkspace,
  launchBrowser: false,
  settings,
  env,
});

const model = process.env.CLIENT_TOOLS_MODEL || process.env.OPENAI_BASE_URL ? `model ${process.env.CLIENT_TOOLS_MODEL ?? '(default)'} at ${process.env.OPENAI_BASE_URL ?? 'OpenAI'}` : 'the offline demo model (set OPENAI_BASE_URL and CLIENT_TOOLS_MODEL for a real one)';
console.log(`
Client Tools is running in VS Code.

  Open: ${harness.url}

Open the Client Tools icon in the activity bar and ask the chat, for example
"open notes.md", "what did I select?" or "delete hello.txt". The chat uses ${model}.
Workspace: ${sampleWorkspace}
Press Ctrl+C to stop.
`);
console.log(JSON.stringify({ event: 'ready', url: harness.url }));

if (process.env.CLIENT_TOOLS_START_EXIT_AFTER_READY === '1') {
  await harness.stop();
  process.exit(0);
}

let stopping = false;
const shutdown = async () => {
  if (stopping) return;
  stopping = true;
  console.log('\nStopping…');
  await harness.stop();
  process.exit(0);
};
process.on('SIGINT', () => void shutdown());
process.on('SIGTERM', () => void shutdown());
await new Promise(() => {});
