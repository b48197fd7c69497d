import OpenAI from 'openai';
import type { Db } from '../db/types';
import { councilConfig, parseModelId, type CouncilConfig } from '../shared/council-config';
import { registerJob } from './registry';

/**
 * council.run: the council's three stages, outside the writing transaction (council_ask enqueues
 * it). Each model is reached through the OpenAI-compatible chat API with the `openai` package.
 * 1. every council model answers the question (with the context_ids' block);
 * 2. every model that answered ranks the others' answers, shown as A, B, C… without their models;
 * 3. the chairman writes the final answer from the answers and the aggregate ranking.
 * A model that fails, times out or answers garbage is reported and the rest go on (`partial`);
 * when no model answers, the council `failed` with each reason. bullpen.council_finish stores
 * the result once, adds tokens and cost to the asking run and records the decision if asked.
 */

type Usage = { tokens_in: number; tokens_out: number; cost_usd: number };
type Answer = Usage & { label: string | null; model: string; answer: string | null; error: string | null; ms: number };
type Ranking = Usage & { model: string; ranking: string[]; reason: string | null; error: string | null; ms: number };
type CouncilError = { stage: string; model: string; error: string };
type Council = { id: string; tenant_id: string; question: string; context: string; models: string[]; chairman: string; status: string };

export type CouncilResult = {
  status: 'done' | 'partial' | 'failed';
  answers: Answer[];
  rankings: Ranking[];
  aggregate: { label: string; model: string; average_rank: number | null; votes: number }[];
  final_answer: string | null;
  chairman_result: Answer | null;
  errors: CouncilError[];
  usage: Record<string, Usage>;
};

const LABELS = 'ABCDEFGHIJ';

type Chat = { text: string } & Usage;

async function chat(cfg: CouncilConfig, modelId: string, system: string, user: string, signal?: AbortSignal): Promise<Chat> {
  const parsed = parseModelId(modelId);
  if (!parsed) throw new Error(`${modelId} names no provider`);
  const p = cfg.providers[parsed.provider];
  if (!p.apiKey) throw new Error(`the ${parsed.provider} provider has no key (${p.keyVar})`);
  // retries belong to the council (the rest go on), not to a stage waiting on one model
  const client = new OpenAI({ apiKey: p.apiKey, baseURL: p.baseURL, maxRetries: 0, timeout: cfg.timeoutMs });
  const res = await client.chat.completions.create(
    { model: parsed.model, messages: [{ role: 'system', content: system }, { role: 'user', content: user }], temperature: 0 },
    { signal },
  );
  const text = res?.choices?.[0]?.message?.content;
  if (typeof text !== 'string' || !text.trim()) throw new Error('the model returned no answer text');
  const tokensIn = Number(res.usage?.prompt_tokens ?? 0) || 0;
  const tokensOut = Number(res.usage?.completion_tokens ?? 0) || 0;
  // OpenRouter reports the cost; otherwise the configured prices, else 0
  const reported = (res.usage as { cost?: unknown } | undefined)?.cost;
  const price = cfg.prices[modelId];
  const cost =
    typeof reported === 'number' && reported >= 0
      ? reported
      : price
        ? (tokensIn * (price.in ?? 0) + tokensOut * (price.out ?? 0)) / 1e6
        : 0;
  return { text: text.trim(), tokens_in: tokensIn, tokens_out: tokensOut, cost_usd: Math.round(cost * 1e6) / 1e6 };
}

function reason(err: unknown): string {
  const e = err as { status?: number; message?: string; name?: string };
  const msg = (e?.message ?? String(err)).replace(/\s+/g, ' ').slice(0, 500);
  return e?.status ? `HTTP ${e.status}: ${msg}` : msg;
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value?: T; error?: string; ms: number }> {
  const t0 = Date.now();
  try {
    return { value: await fn(), ms: Date.now() - t0 };
  } catch (err) {
    return { error: reason(err), ms: Date.now() - t0 };
  }
}

const zero: Usage = { tokens_in: 0, tokens_out: 0, cost_usd: 0 };

/**
 * Reads a ranking reply: JSON {"ranking": ["B", "A"], "reason": "…"} anywhere in the text, or a
 * line "RANKING: B, A". Only labels it was shown count, each once; none: the reply is garbage.
 */
export function parseRanking(text: string, shown: string[]): { ranking: string[]; reason: string | null } | null {
  let ranking: unknown;
  let why: unknown = null;
  const json = text.match(/\{[\s\S]*\}/);
  if (json) {
    try {
      const v = JSON.parse(json[0]) as { ranking?: unknown; reason?: unknown };
      ranking = v.ranking;
      why = v.reason;
    } catch {
      /* fall through to the line form */
    }
  }
  if (!Array.isArray(ranking)) {
    const line = text.match(/RANKING:\s*([A-J](?:\s*[,>]\s*[A-J])*)/i);
    ranking = line ? line[1].split(/[,>]/).map((s) => s.trim()) : null;
    why = text.match(/REASON:\s*(.+)/i)?.[1] ?? null;
  }
  if (!Array.isArray(ranking)) return null;
  const seen = new Set<string>();
  const out = ranking
    .map((x) => String(x).trim().toUpperCase().replace(/^ANSWER\s+/, ''))
    .filter((x) => shown.includes(x) && !seen.has(x) && seen.add(x));
  return out.length ? { ranking: out, reason: typeof why === 'string' ? why.slice(0, 2000) : null } : null;
}

function add(usage: Record<string, Usage>, model: string, u: Usage): void {
  const o = usage[model] ?? { ...zero };
  usage[model] = { tokens_in: o.tokens_in + u.tokens_in, tokens_out: o.tokens_out + u.tokens_out, cost_usd: Math.round((o.cost_usd + u.cost_usd) * 1e6) / 1e6 };
}

/** Runs the three stages for one council; never throws for a model's failure. */
export async function runCouncil(c: Council, cfg: CouncilConfig, signal?: AbortSignal): Promise<CouncilResult> {
  const usage: Record<string, Usage> = {};
  const errors: CouncilError[] = [];
  const context = c.context ? `Context from the workspace:\n\n${c.context}\n\n` : '';

  // 1. answers
  const first = await Promise.all(
    c.models.map(async (model) => {
      const r = await timed(() => chat(cfg, model, 'You are one member of a council of experts. Answer the question directly and concisely.', `${context}Question: ${c.question}`, signal));
      return { model, ...r };
    }),
  );
  const answers: Answer[] = [];
  let n = 0;
  for (const r of first) {
    if (r.value) {
      const { tokens_in, tokens_out, cost_usd } = r.value;
      answers.push({ label: LABELS[n++], model: r.model, answer: r.value.text, error: null, ms: r.ms, tokens_in, tokens_out, cost_usd });
      add(usage, r.model, r.value);
    } else {
      answers.push({ label: null, model: r.model, answer: null, error: r.error!, ms: r.ms, ...zero });
      errors.push({ stage: 'answer', model: r.model, error: r.error! });
    }
  }
  const good = answers.filter((a) => a.label);
  if (good.length === 0) {
    return { status: 'failed', answers, rankings: [], aggregate: [], final_answer: null, chairman_result: null, errors, usage };
  }

  // 2. anonymous rankings: each model ranks the answers of the others
  const rankings: Ranking[] = [];
  const second = await Promise.all(
    good.map(async (mine) => {
      const others = good.filter((a) => a !== mine);
      if (others.length === 0) return null;
      const shown = others.map((a) => a.label!);
      const prompt =
        `${context}Question: ${c.question}\n\n` +
        others.map((a) => `Answer ${a.label}:\n${a.answer}`).join('\n\n') +
        `\n\nRank these answers from best to worst. Reply with JSON only: {"ranking": [${shown.map((l) => `"${l}"`).join(', ')}], "reason": "one sentence"}`;
      const r = await timed(async () => {
        const out = await chat(cfg, mine.model, 'You judge answers by accuracy and usefulness. You do not know who wrote them.', prompt, signal);
        const parsed = parseRanking(out.text, shown);
        if (!parsed) throw Object.assign(new Error(`the ranking could not be read: ${out.text.slice(0, 120)}`), { usage: out });
        return { ...out, ...parsed };
      });
      return { model: mine.model, ...r };
    }),
  );
  for (const r of second) {
    if (!r) continue;
    if (r.value) {
      rankings.push({ model: r.model, ranking: r.value.ranking, reason: r.value.reason, error: null, ms: r.ms, tokens_in: r.value.tokens_in, tokens_out: r.value.tokens_out, cost_usd: r.value.cost_usd });
      add(usage, r.model, r.value);
    } else {
      rankings.push({ model: r.model, ranking: [], reason: null, error: r.error!, ms: r.ms, ...zero });
      errors.push({ stage: 'ranking', model: r.model, error: r.error! });
    }
  }
  const aggregate = good
    .map((a) => {
      const places = rankings.flatMap((r) => (r.ranking.includes(a.label!) ? [r.ranking.indexOf(a.label!) + 1] : []));
      return {
        label: a.label!,
        model: a.model,
        average_rank: places.length ? Math.round((places.reduce((s, x) => s + x, 0) / places.length) * 100) / 100 : null,
        votes: places.length,
      };
    })
    .sort((x, y) => (x.average_rank ?? 99) - (y.average_rank ?? 99) || x.label.localeCompare(y.label));

  // 3. the chairman
  const chairPrompt =
    `${context}Question: ${c.question}\n\n` +
    good.map((a) => `Answer ${a.label}:\n${a.answer}`).join('\n\n') +
    `\n\nThe council's aggregate ranking, best first: ${aggregate.map((a) => `${a.label}${a.average_rank == null ? '' : ` (average place ${a.average_rank})`}`).join(', ')}.\n` +
    'Write the final answer to the question, drawing on the best of these answers.';
  const r3 = await timed(() => chat(cfg, c.chairman, 'You chair a council of experts and write its final answer.', chairPrompt, signal));
  let chairman: Answer;
  let final: string | null;
  if (r3.value) {
    chairman = { label: null, model: c.chairman, answer: r3.value.text, error: null, ms: r3.ms, tokens_in: r3.value.tokens_in, tokens_out: r3.value.tokens_out, cost_usd: r3.value.cost_usd };
    add(usage, c.chairman, r3.value);
    final = r3.value.text;
  } else {
    chairman = { label: null, model: c.chairman, answer: null, error: r3.error!, ms: r3.ms, ...zero };
    errors.push({ stage: 'chairman', model: c.chairman, error: r3.error! });
    // without a chairman the best-ranked answer stands, and the council says it is partial
    final = good.find((a) => a.label === aggregate[0]?.label)?.answer ?? null;
  }
  return { status: errors.length ? 'partial' : 'done', answers, rankings, aggregate, final_answer: final, chairman_result: chairman, errors, usage };
}

/** Runs one council job: reads the council, runs it, stores the result once. */
export async function runCouncilJob(db: Db, tenantId: string, councilId: string, signal?: AbortSignal): Promise<void> {
  const [c] = await db.query<Council>(
    `select id, tenant_id, question, context, models, chairman, status from public.councils where tenant_id = $1 and id = $2`,
    [tenantId, councilId],
  );
  if (!c || c.status !== 'running') return;
  const result = await runCouncil(c, councilConfig(), signal);
  await db.query(`select bullpen.council_finish($1, $2, $3::jsonb)`, [tenantId, councilId, JSON.stringify(result)]);
}

registerJob('council.run', async (job, { db, signal }) => runCouncilJob(db, job.tenant_id!, String(job.payload.council_id), signal), { leaseSeconds: 900 });
