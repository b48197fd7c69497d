import http from 'node:http';
import path from 'node:path';
import { spawnServer } from '../scripts/server-process.mjs';

export const root = path.resolve(import.meta.dirname, '..');

export { emit, percentile } from './_common.mjs';

export { freePort } from '../scripts/server-process.mjs';

/** Starts `bullpen start` against the given database; resolves when it listens. */
export async function startServer(env: Record<string, string>): Promise<{ url: string; stop: () => Promise<void> }> {
  const server = await spawnServer({ label: 'bench', env });
  return { url: server.url, stop: server.stop };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

/** One MCP tools/call over HTTP (JSON-RPC POST, the streamable-HTTP transport in JSON mode). */
export function mcpCall(url: string, key: string, name: string, args: Record<string, unknown>): Promise<{ ok: boolean; [k: string]: unknown }> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        hostname: u.hostname,
        port: u.port,
        path: '/api/mcp',
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${key}`,
          'mcp-protocol-version': '2025-06-18',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          try {
            const msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            if (msg.error) return reject(new Error(`HTTP ${res.statusCode}: ${msg.error.message}`));
            resolve(JSON.parse(msg.result.content[0].text));
          } catch (err) {
            reject(err);
          }
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
