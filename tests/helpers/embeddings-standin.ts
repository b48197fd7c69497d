import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for an OpenAI-compatible embeddings server: POST /v1/embeddings answers
 * {data: [{index, embedding}], model, usage} with deterministic vectors (hashed bag of words, so
 * texts sharing words are close). `failing` makes it answer 500 until it is switched back.
 */
export type EmbeddingsStandIn = {
  baseURL: string;
  failing: boolean;
  requests: number;
  /** Inputs seen, in order (one entry per text). */
  inputs: string[];
  close(): Promise<void>;
};

export function standInVector(text: string, dims: number): number[] {
  const v: number[] = Array.from({ length: dims }, () => 0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    const h = createHash('sha256').update(word).digest();
    v[h.readUInt16BE(0) % dims] += 1;
    v[h.readUInt16BE(2) % dims] += 0.5;
  }
  if (!v.some((x) => x !== 0)) v[0] = 1;
  return v;
}

export async function startEmbeddingsStandIn(dims = 64): Promise<EmbeddingsStandIn> {
  const state = { failing: false, requests: 0, inputs: [] as string[] };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      state.requests++;
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
        return;
      }
      if (req.headers.authorization !== 'Bearer test-key') {
        res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'bad key' } }));
        return;
      }
      if (state.failing) {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'stand-in is down' } }));
        return;
      }
      const { input, model } = JSON.parse(body) as { input: string | string[]; model: string };
      const texts = Array.isArray(input) ? input : [input];
      state.inputs.push(...texts);
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          object: 'list',
          model,
          data: texts.map((t, index) => ({ object: 'embedding', index, embedding: standInVector(t, dims) })),
          usage: { prompt_tokens: 0, total_tokens: 0 },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    baseURL: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  });
}
