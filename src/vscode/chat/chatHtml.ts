/**
 * The chat view's HTML page. Used by the host (ChatViewProvider) and by the browser test, so the
 * test exercises the exact CSP that ships. DOM-free; no `vscode` import.
 */
export interface ChatHtmlOptions {
  /** `webview.cspSource`: the origin local resources are served from. */
  cspSource: string;
  /** Fresh per page load; only the script carrying it may run. */
  nonce: string;
  scriptUri: string;
  styleUri: string;
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    `default-src 'none'`,
    `img-src ${cspSource} data:`,
    `style-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
    `font-src ${cspSource}`,
  ].join('; ');
}

export function chatHtml(o: ChatHtmlOptions): string {
  if (!/^[A-Za-z0-9+/=_-]{16,}$/.test(o.nonce)) throw new Error('nonce must be at least 16 base64 characters');
  const csp = contentSecurityPolicy(o.cspSource, o.nonce);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttr(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${escapeAttr(o.styleUri)}">
<title>Client Tools Chat</title>
</head>
<body>
<div id="app"></div>
<script nonce="${o.nonce}" src="${escapeAttr(o.scriptUri)}"></script>
</body>
</html>
`;
}

function escapeAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
