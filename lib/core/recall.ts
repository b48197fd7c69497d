import { env } from '../shared/env';
import { corePort } from './ports';
import type { ToolContext } from './tool';

/**
 * Adds the query's embedding to a recall call (knowledge_search, decision_query semantic:true)
 * before it reaches the database, which cannot embed. Falls back to words alone, saying why, when
 * the caller asked for that, the database has no pgvector, no embedder was provided, or it fails.
 */
export async function withQueryEmbedding(args: Record<string, unknown>, ctx: ToolContext): Promise<Record<string, unknown>> {
  const q = typeof args.q === 'string' ? args.q.trim() : '';
  if (!q || args.lexical_only === true || !ctx.db.vector) return args;
  const embed = corePort('embedQuery');
  if (!embed) return { ...args, embedder_error: 'no embedder is configured in this process' };
  try {
    const { vector, model } = await embed(q);
    return { ...args, query_embedding: vector, embedding_model: model };
  } catch (err) {
    return { ...args, embedder_error: (err as Error).message.slice(0, 300) };
  }
}

/**
 * Adds a new note's embedding (of the text it is embedded from) and the near-duplicate threshold
 * (BULLPEN_DUPLICATE_SIMILARITY) to knowledge_write, so the database can name the live notes it
 * nearly repeats. Without vectors or an embedder the database compares trigrams instead.
 */
export async function withNoteEmbedding(args: Record<string, unknown>, ctx: ToolContext): Promise<Record<string, unknown>> {
  const threshold = Number(env('BULLPEN_DUPLICATE_SIMILARITY'));
  const out = { ...args, duplicate_threshold: Number.isFinite(threshold) && threshold > 0 && threshold <= 1 ? threshold : 0.92 };
  const embed = corePort('embedQuery');
  if (!ctx.db.vector || !embed || typeof args.title !== 'string' || typeof args.body !== 'string') return out;
  try {
    const { vector, model } = await embed(`${args.title}\n\n${args.body}`);
    return { ...out, query_embedding: vector, embedding_model: model };
  } catch {
    return out;
  }
}
