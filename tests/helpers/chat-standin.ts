import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for an OpenAI-compatible chat server: POST /v1/chat/completions answers the
 * way the real API does ({id, object, model, choices: [{message}], usage}), deterministically, so
 * the council's three stages can be checked word for word. Per model it can be told to be:
 * - ok: answers "Yes (<hash of model and question>): …"; asked to rank, it ranks the shown labels alphabetically;
 *   asked to chair, it writes "Final: …" naming the answers it saw;
 * - slow: answers after `slowMs` (longer than the council's timeout);
 * - fail: HTTP 500;
 * - garbage: HTTP 200 with a body that is not JSON;
 * - bad_ranking: answers well, but its ranking names no label.
 * usage.prompt_tokens is the prompt's length / 4, completion_tokens the answer's; a model whose
 * name ends in "-priced" also reports usage.cost (as OpenRouter does).
 */
export type Behaviour = 'ok' | 'slow' | 'fail' | 'garbage' | 'bad_ranking';

export type ChatStandIn = {
  baseURL: string;
  behaviour: Record<string, Behaviour>;
  slowMs: number;
  requests: { model: string; system: string; user: string }[];
  close(): Promise<void>;
};

function stageOf(system: string): 'answer' | 'rank' | 'chair' {
  if (/judge/i.test(system)) return 'rank';
  if (/chair/i.test(system)) return 'chair';
  return 'answer';
}

function reply(model: string, stage: 'answer' | 'rank' | 'chair', user: string, behaviour: Behaviour): string {
  if (stage === 'answer') {
    const q = user.match(/Question: (.*)/)?.[1] ?? '';
    const h = createHash('sha256').update(`${model}|${q}`).digest('hex').slice(0, 6);
    // the text carries no model name: the rankers must not learn who wrote what
    return `Yes (${h}): ${q.replace(/\?$/, '')}.`;
  }
  if (stage === 'rank') {
    if (behaviour === 'bad_ranking') return 'I would rather not say.';
    const shown = [...user.matchAll(/^Answer ([A-J]):/gm)].map((m) => m[1]).sort();
    return `Here is my judgement: {"ranking": ${JSON.stringify(shown)}, "reason": "earlier answers first"}`;
  }
  const seen = [...user.matchAll(/^Answer ([A-J]):/gm)].map((m) => m[1]);
  return `Final: the council agrees (answers ${seen.join(', ')}).`;
}

export async function startChatStandIn(): Promise<ChatStandIn> {
  const state: ChatStandIn = { baseURL: '', behaviour: {}, slowMs: 3000, requests: [], close: async () => {} };
  const sockets = new Set<import('node:net').Socket>();
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
        return;
      }
      if (req.headers.authorization !== 'Bearer test-key') {
        res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'bad key' } }));
        return;
      }
      const { model, messages } = JSON.parse(body) as { model: string; messages: { role: string; content: string }[] };
      const system = messages.find((m) => m.role === 'system')?.content ?? '';
      const user = messages.find((m) => m.role === 'user')?.content ?? '';
      state.requests.push({ model, system, user });
      const behaviour = state.behaviour[model] ?? 'ok';
      if (behaviour === 'fail') {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `${model} is down` } }));
        return;
      }
      if (behaviour === 'garbage') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('<<not json at all');
        return;
      }
      const content = reply(model, stageOf(system), user, behaviour);
      const prompt = Math.ceil((system.length + user.length) / 4);
      const completion = Math.ceil(content.length / 4);
      const answer = JSON.stringify({
        id: `chatcmpl-${state.requests.length}`,
        object: 'chat.completion',
        created: 1_800_000_000,
        model,
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
        usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, ...(model.endsWith('-priced') ? { cost: 0.0125 } : {}) },
      });
      const send = () => {
        if (!res.destroyed) res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
      };
      if (behaviour === 'slow') setTimeout(send, state.slowMs);
      else send();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  state.close = () =>
    new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    });
  return state;
}
