import type { ToolContext } from '../core/tool';
import { getEmbedder } from './embedder';

/**
 * Adds the query's embedding to a recall call (knowledge_search, decision_query semantic:true)
 * before it reaches the database, which cannot embed. Falls back to words alone, saying why, when
 * the caller asked for that, the database has no pgvector, or the embedder fails.
 */
export async function withQueryEmbedding(args: Record<string, unknown>, ctx: ToolContext): Promise<Record<string, unknown>> {
  const q = typeof args.q === 'string' ? args.q.trim() : '';
  if (!q || args.lexical_only === true || !ctx.db.vector) return args;
  try {
    const embedder = getEmbedder();
    const [vector] = await embedder.embed([q]);
    return { ...args, query_embedding: vector, embedding_model: embedder.model };
  } catch (err) {
    return { ...args, embedder_error: (err as Error).message.slice(0, 300) };
  }
}
