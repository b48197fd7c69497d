import { getEmbedder } from './embedder';

/**
 * How many query vectors the process keeps: a least-recently-used map of (model, text) → vector.
 * 1,000 vectors of 512 dimensions (the bundled model) are about 4 MB of numbers; of 1,536 (OpenAI's
 * small model), about 12 MB.
 */
export const QUERY_CACHE_MAX = 1000;

type Entry = Promise<number[]>;
const cache = new Map<string, Entry>();
let hits = 0;
let misses = 0;

/** The cache's counters (benches and tests read them). */
export function queryCacheStats(): { size: number; max: number; hits: number; misses: number } {
  return { size: cache.size, max: QUERY_CACHE_MAX, hits, misses };
}

/** Empties the cache (tests; a process that changes its embedder needs nothing: the model is in the key). */
export function clearQueryCache(): void {
  cache.clear();
  hits = 0;
  misses = 0;
}

/**
 * Embeds one search query with the process-wide embedder (the contract's QueryEmbedder port). The
 * same text with the same model is embedded once: the vector (or the request in flight, which a
 * concurrent identical query joins) stays in a bounded LRU map; a failure is not kept, so the next
 * call asks the embedder again.
 */
export async function embedQuery(text: string): Promise<{ vector: number[]; model: string }> {
  const embedder = getEmbedder();
  const model = embedder.model;
  const key = `${model}\u0000${text}`;
  let entry = cache.get(key);
  if (entry) {
    hits++;
    // most recently used goes last; the first key is the one to evict
    cache.delete(key);
    cache.set(key, entry);
  } else {
    misses++;
    entry = embedder.embed([text]).then(([v]) => v);
    cache.set(key, entry);
    if (cache.size > QUERY_CACHE_MAX) cache.delete(cache.keys().next().value as string);
    entry.catch(() => {
      if (cache.get(key) === entry) cache.delete(key);
    });
  }
  return { vector: await entry, model };
}
