/**
 * One realistic, valid example of every protocol message, in decoded form (binary content carries
 * `bytes`). Shared by the codec and schema tests; the typed maps make the compiler insist on one
 * fixture per type, and a test checks the maps against the direction lists at run time too.
 */
import { PROTOCOL } from '../../../src/protocol/constants';
import type { ClientToServer, ServerToClient, ToolGroupDefinition } from '../../../src/protocol/types';

type ByType<U extends { type: string }> = { [K in U['type']]: Extract<U, { type: K }> };

/** The first bytes of a 1×1 PNG: enough to look like an image, small enough to read in a diff. */
export const PNG_BYTES = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52]);
export const PDF_BYTES = new TextEncoder().encode('%PDF-1.7\n%\u00e2\u00e3\n');

export const EDITOR_GROUP: ToolGroupDefinition = {
  name: 'Editor',
  description: 'Read files and open them in the editor.',
  startCollapsed: true,
  functionResult: 'Paths are relative to the first workspace folder.',
  systemPrompt: 'Prefer ReadFile over asking the user to paste code.',
  tools: [
    {
      name: 'ReadFile',
      description: 'Read a UTF-8 text file from the workspace.',
      parameters: {
        type: 'object',
        properties: { path: { type: 'string', description: 'Workspace-relative path' }, maxBytes: { type: 'integer', minimum: 1 } },
        required: ['path'],
        additionalProperties: false,
      },
    },
    {
      name: 'OpenFile',
      description: 'Open a file in an editor tab and optionally select a range.',
      parameters: { type: 'object', properties: { path: { type: 'string' }, line: { type: 'integer' } }, required: ['path'] },
      sequential: true,
    },
  ],
  skills: [
    {
      name: 'ReviewFile',
      description: 'Walk through a file and point out problems.',
      functionResult: 'Read the file first, then list problems by line.',
      systemPrompt: 'While reviewing, quote line numbers.',
      tools: ['ReadFile', 'OpenFile'],
    },
  ],
};

export const FILES_GROUP: ToolGroupDefinition = {
  name: 'Files',
  description: 'Create, change and delete workspace files.',
  tools: [
    {
      name: 'WriteFile',
      description: 'Create or overwrite a workspace file.',
      parameters: { type: 'object', properties: { path: { type: 'string' }, text: { type: 'string' } }, required: ['path', 'text'] },
      requiresPermission: true,
      declineStrategy: 'reject',
    },
    {
      name: 'DeleteFile',
      description: 'Delete a workspace file.',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      requiresPermission: true,
      declineStrategy: 'skip',
      hidden: true,
    },
  ],
};

const THREAD = { threadId: 'thread-7f3a', runId: 'run-0192' };

export const CLIENT_FIXTURES: ByType<ClientToServer> = {
  hello: {
    type: 'hello',
    protocol: PROTOCOL,
    client: { name: 'client-tools', version: '0.1.0', ide: 'Visual Studio Code 1.100.2', pid: 48213 },
    workspace: { folders: [{ name: 'shop', uri: 'file:///home/ada/src/shop' }], trusted: true },
    toolGroups: [EDITOR_GROUP, FILES_GROUP],
    preExpanded: ['Editor'],
    resumeSession: 'sess-5c2e9b',
    resumeSecret: 'q3Jm7VYc0xT9bE2kPn4sWd8uLh6fAz1RgKo5iCy_-tM',
  },
  clientToolInvokeResponse: {
    type: 'clientToolInvokeResponse',
    requestId: 'req-000041',
    success: true,
    content: [
      { type: 'text', text: 'src/cart.ts: 2 errors' },
      { type: 'json', value: { diagnostics: [{ line: 12, severity: 'error', message: "Cannot find name 'total'." }] } },
      { type: 'binary', mimeType: 'image/png', filename: 'screenshot.png', bytes: PNG_BYTES },
    ],
    augmentation: {
      expandGroups: ['Files'],
      showTools: ['DeleteFile'],
      addContext: [{ name: 'Open editors', text: 'src/cart.ts (dirty), src/app.ts' }],
    },
  },
  clientToolProgress: {
    type: 'clientToolProgress',
    requestId: 'req-000042',
    status: 'awaiting-permission',
    details: 'Waiting for the user to allow WriteFile on src/cart.ts',
  },
  userMessage: {
    type: 'userMessage',
    threadId: 'thread-7f3a',
    text: 'Why does the cart total stay at zero?',
    context: {
      file: 'src/cart.ts',
      language: 'typescript',
      selection: { startLine: 10, startCharacter: 0, endLine: 14, endCharacter: 1 },
      selectedText: 'function total(items: Item[]) {\n  let sum = 0;\n  items.forEach((i) => sum + i.price);\n  return sum;\n}',
    },
  },
  cancel: { type: 'cancel', ...THREAD },
  resetThread: { type: 'resetThread', threadId: 'thread-7f3a' },
  steer: { type: 'steer', ...THREAD, steerId: 'steer-1', text: 'Use the staging database, not production.' },
  withdrawSteer: { type: 'withdrawSteer', ...THREAD, steerId: 'steer-1' },
  compactThread: { type: 'compactThread', threadId: 'thread-7f3a' },
  truncateThread: { type: 'truncateThread', ...THREAD },
  updateToolGroups: {
    type: 'updateToolGroups',
    augmentation: { removeGroups: ['Files'], collapseGroups: ['Editor'], hideTools: ['OpenFile'] },
  },
};

export const SERVER_FIXTURES: ByType<ServerToClient> = {
  welcome: {
    type: 'welcome',
    protocol: PROTOCOL,
    sessionId: 'sess-5c2e9b',
    resumeSecret: 'q3Jm7VYc0xT9bE2kPn4sWd8uLh6fAz1RgKo5iCy_-tM',
    resumed: true,
    server: { name: 'client-tools-backend', version: '0.1.0', model: { name: 'gpt-4.1-mini', offline: false } },
    limits: { maxMessageBytes: 33554432, maxInFlight: 64, invokeTimeoutMs: 30000 },
    capabilities: ['truncateThread'],
  },
  threadTruncated: { type: 'threadTruncated', ...THREAD, messages: 6 },
  clientToolInvokeRequest: {
    type: 'clientToolInvokeRequest',
    requestId: 'req-000041',
    toolName: 'ReadFile',
    callId: 'call_Qm9vYmFy',
    arguments: { path: 'src/cart.ts', maxBytes: 65536 },
    description: 'Read src/cart.ts',
    threadId: 'thread-7f3a',
    timeoutMs: 30000,
  },
  clientToolCancel: { type: 'clientToolCancel', requestId: 'req-000042', reason: 'The run was cancelled by the user.' },
  runStarted: { type: 'runStarted', ...THREAD, model: 'gpt-4.1-mini' },
  textDelta: { type: 'textDelta', ...THREAD, text: 'The loop adds to `sum` but never assigns it: ' },
  toolCallStarted: {
    type: 'toolCallStarted',
    ...THREAD,
    callId: 'call_Qm9vYmFy',
    toolName: 'ReadFile',
    arguments: { path: 'src/cart.ts' },
    executor: 'client',
    group: 'Editor',
  },
  toolCallUpdated: { type: 'toolCallUpdated', ...THREAD, callId: 'call_Qm9vYmFy', status: 'running' },
  toolCallEnded: {
    type: 'toolCallEnded',
    ...THREAD,
    callId: 'call_Qm9vYmFy',
    outcome: 'succeeded',
    content: [
      { type: 'text', text: 'export function total(items: Item[]) { … }' },
      { type: 'binary', mimeType: 'application/pdf', filename: 'invoice.pdf', bytes: PDF_BYTES },
      { type: 'binary', mimeType: 'image/png', bytes: PNG_BYTES },
    ],
    durationMs: 12.5,
  },
  groupExpanded: { type: 'groupExpanded', ...THREAD, group: 'Editor', skill: 'ReviewFile', tools: ['ReadFile', 'OpenFile'] },
  contextCompacted: { type: 'contextCompacted', ...THREAD, mode: 'summarized', messages: 14, tokensBefore: 131072, tokensAfter: 41210, contextWindow: 128000 },
  steerUpdated: { type: 'steerUpdated', ...THREAD, steerId: 'steer-1', state: 'delivered' },
  contextUsage: { type: 'contextUsage', ...THREAD, tokens: 41210, contextWindow: 128000, estimated: true },
  modelRetry: { type: 'modelRetry', ...THREAD, attempt: 1, of: 2, delayMs: 2000, code: 'MODEL_TIMEOUT', message: 'No answer from llama3.1 at http://127.0.0.1:11434/v1 within 60 s' },
  runFinished: { type: 'runFinished', ...THREAD, reason: 'completed' },
  runError: {
    type: 'runError',
    ...THREAD,
    code: 'MODEL_RATE_LIMITED',
    message: 'The model endpoint answered 429 three times; try again in a minute.',
    retryable: true,
  },
  toolGroupState: {
    type: 'toolGroupState',
    threadId: 'thread-7f3a',
    collapsing: true,
    groups: [
      {
        name: 'Editor',
        description: 'Read files and open them in the editor.',
        expanded: true,
        containerName: 'Editor',
        tools: [
          { name: 'ReadFile', visible: true, requiresPermission: false },
          { name: 'OpenFile', visible: true, requiresPermission: false },
        ],
        skills: [{ name: 'ReviewFile', active: true }],
      },
      {
        name: 'Files',
        description: 'Create, change and delete workspace files.',
        expanded: false,
        containerName: 'Files',
        tools: [
          { name: 'WriteFile', visible: true, requiresPermission: true },
          { name: 'DeleteFile', visible: false, requiresPermission: true },
        ],
        skills: [],
      },
    ],
    context: [{ name: 'Open editors', text: 'src/cart.ts (dirty), src/app.ts' }],
  },
  error: {
    type: 'error',
    code: 'INVALID_MESSAGE',
    message: 'success: Invalid input: expected boolean, received string',
    relatedId: 'req-000043',
  },
};

/** Every fixture with the direction it travels in. */
export const ALL_FIXTURES: { direction: 'toServer' | 'toClient'; message: ClientToServer | ServerToClient }[] = [
  ...Object.values(CLIENT_FIXTURES).map((message) => ({ direction: 'toServer' as const, message })),
  ...Object.values(SERVER_FIXTURES).map((message) => ({ direction: 'toClient' as const, message })),
];
