import http from 'node:http';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const root = path.resolve(import.meta.dirname, '..');

/** Prints one JSON line: the bench output format. */
export function emit(record: Record<string, unknown>): void {
  console.log(JSON.stringify({ at: new Date().toISOString(), ...record }));
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round(sorted[i] * 100) / 100;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Starts `bullpen start` against the given database; resolves when it listens. */
export async function startServer(env: Record<string, string>): Promise<{ url: string; stop: () => Promise<void> }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bullpen-bench-'));
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [path.join(root, 'bin/bullpen.mjs'), 'start', '--port', String(port), '--host', '127.0.0.1'], {
    cwd: root,
    env: { ...process.env, BULLPEN_DATA_DIR: path.join(dir, 'data'), NEXT_TELEMETRY_DISABLED: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const file = path.join(dir, 'server.json');
  const t0 = Date.now();
  while (!existsSync(file)) {
    if (child.exitCode !== null || Date.now() - t0 > 180_000) throw new Error(`server did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const { url } = JSON.parse(readFileSync(file, 'utf8')) as { url: string };
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
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
