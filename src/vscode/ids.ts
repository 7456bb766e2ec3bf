/** Every command, view and setting id in one place; package.json declares the same ids. */
export const EXTENSION_ID = 'client-tools.client-tools';

export const Commands = {
  focusChat: 'clientTools.focusChat',
  newChat: 'clientTools.newChat',
  showChatHistory: 'clientTools.showChatHistory',
  askAboutSelection: 'clientTools.askAboutSelection',
  connect: 'clientTools.connect',
  disconnect: 'clientTools.disconnect',
  reconnect: 'clientTools.reconnect',
  showToolGroups: 'clientTools.showToolGroups',
  resetPermissions: 'clientTools.resetPermissions',
  setApiKey: 'clientTools.setApiKey',
  selectModel: 'clientTools.selectModel',
  useOfflineDemo: 'clientTools.useOfflineDemo',
  showLog: 'clientTools.showLog',
  copyConnectionInfo: 'clientTools.copyConnectionInfo',
  statusBarActions: 'clientTools.statusBarActions',
  setBackendToken: 'clientTools.setBackendToken',
  acceptDiff: 'clientTools.acceptDiff',
  rejectDiff: 'clientTools.rejectDiff',
  allowTool: 'clientTools.allowTool',
  askTool: 'clientTools.askTool',
  denyTool: 'clientTools.denyTool',
  /** The same three, shown checked in the menu when they are the tool's policy now. */
  allowToolCurrent: 'clientTools.allowToolCurrent',
  askToolCurrent: 'clientTools.askToolCurrent',
  denyToolCurrent: 'clientTools.denyToolCurrent',
  refreshToolGroups: 'clientTools.refreshToolGroups',
  copyMcpConfig: 'clientTools.copyMcpConfig',
  createMcpCredential: 'clientTools.createMcpCredential',
  revokeMcpCredential: 'clientTools.revokeMcpCredential',
  restartMcpServers: 'clientTools.restartMcpServers',
} as const;

export const Views = {
  container: 'clientTools',
  chat: 'clientTools.chat',
  toolGroups: 'clientTools.toolGroups',
} as const;

/** Context keys used in `when` clauses. */
export const ContextKeys = {
  connected: 'clientTools.connected',
  connectionState: 'clientTools.connectionState',
  running: 'clientTools.running',
  /** An OpenDiff review waits for Accept or Reject. */
  diffPending: 'clientTools.diffPending',
  /** A multi-file change (RenameSymbol, ApplyCodeAction) waits for Accept or Reject. */
  changesPending: 'clientTools.changesPending',
} as const;

export const SecretKeys = {
  apiKey: 'clientTools.model.apiKey',
  backendToken: 'clientTools.backendToken',
} as const;
