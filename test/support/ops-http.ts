/**
 * Plain HTTP GETs for the backend's operations endpoints (`/healthz`, `/readyz`, `/metrics`), and a
 * reader for one sample of the Prometheus text format.
 */
import * as http from 'node:http';

export interface HttpAnswer {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

/** One request to 127.0.0.1:`port`; `headers` may override Host or add Origin. */
export function httpGet(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The value of one sample (`name{a="b"} 3`), labels matched exactly and in any order; undefined when absent. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const found: Record<string, string> = {};
    for (const pair of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) found[pair[1]] = pair[2];
    const want = Object.entries(labels);
    if (want.length !== Object.keys(found).length || want.some(([k, v]) => found[k] !== v)) continue;
    return Number(m[3]);
  }
  return undefined;
}
