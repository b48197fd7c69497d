import { afterEach, describe, expect, it } from 'vitest';
import { setEmbedder, type Embedder } from './embedder';
import { clearQueryCache, embedQuery, QUERY_CACHE_MAX, queryCacheStats } from './query';

/** A counting embedder: the vector encodes the text's length, so answers are checkable. */
function counting(model: string, opts: { failFirst?: boolean } = {}) {
  const calls: string[] = [];
  let fail = opts.failFirst ?? false;
  const e: Embedder = {
    model,
    kind: 'openai',
    async embed(texts) {
      calls.push(...texts);
      if (fail) {
        fail = false;
        throw new Error('503 from the embedder');
      }
      return texts.map((t) => [t.length, 1]);
    },
  };
  return { e, calls };
}

afterEach(() => {
  setEmbedder(null);
  clearQueryCache();
});

describe('the query-vector cache', () => {
  it('embeds the same text with the same model once, and a concurrent twin joins the request in flight', async () => {
    const { e, calls } = counting('m1');
    setEmbedder(e);
    const [a, b] = await Promise.all([embedQuery('invoices stuck'), embedQuery('invoices stuck')]);
    const c = await embedQuery('invoices stuck');
    expect([a, b, c].map((x) => x.vector)).toEqual([[14, 1], [14, 1], [14, 1]]);
    expect(calls).toEqual(['invoices stuck']);
    expect(queryCacheStats()).toMatchObject({ size: 1, hits: 2, misses: 1 });
  });

  it('keys by model: another model embeds the same text again', async () => {
    const one = counting('m1');
    setEmbedder(one.e);
    await embedQuery('q');
    const two = counting('m2');
    setEmbedder(two.e);
    expect(await embedQuery('q')).toEqual({ vector: [1, 1], model: 'm2' });
    expect(two.calls).toEqual(['q']);
  });

  it('keeps no failure: the next call asks the embedder again', async () => {
    const { e, calls } = counting('m1', { failFirst: true });
    setEmbedder(e);
    await expect(embedQuery('down')).rejects.toThrow('503');
    expect(await embedQuery('down')).toEqual({ vector: [4, 1], model: 'm1' });
    expect(calls).toEqual(['down', 'down']);
  });

  it('is bounded: past QUERY_CACHE_MAX the least recently used goes', async () => {
    const { e, calls } = counting('m1');
    setEmbedder(e);
    await embedQuery('q0');
    for (let i = 1; i <= QUERY_CACHE_MAX; i++) {
      await embedQuery(`q${i}`);
      if (i === QUERY_CACHE_MAX - 1) await embedQuery('q1'); // q1 used again: q2 is now the oldest after q0
    }
    expect(queryCacheStats().size).toBe(QUERY_CACHE_MAX);
    calls.length = 0;
    await embedQuery('q1');
    expect(calls).toEqual([]);
    await embedQuery('q0');
    expect(calls).toEqual(['q0']);
  });
});
