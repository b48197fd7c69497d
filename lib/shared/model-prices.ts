import { env } from './env';

/**
 * The model price table: USD per million tokens, by model (or `provider:model`). A usage report
 * without a cost is priced from it (lib/core/runs.ts, prepare), and the ledger row says so
 * (`priced: "table"`). Built in for common models; BULLPEN_MODEL_PRICES (JSON, or the path of a
 * JSON file) adds models or replaces built-in ones.
 */
export type ModelPrice = { in: number; out: number; cache_read?: number; cache_write?: number };

/** Published list prices of common models, USD per million tokens. */
export const BUILT_IN_MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  'claude-opus-4': { in: 15, out: 75, cache_read: 1.5, cache_write: 18.75 },
  'claude-opus-4-1': { in: 15, out: 75, cache_read: 1.5, cache_write: 18.75 },
  'claude-opus-4-5': { in: 5, out: 25, cache_read: 0.5, cache_write: 6.25 },
  'claude-sonnet-4': { in: 3, out: 15, cache_read: 0.3, cache_write: 3.75 },
  'claude-sonnet-4-5': { in: 3, out: 15, cache_read: 0.3, cache_write: 3.75 },
  'claude-haiku-4-5': { in: 1, out: 5, cache_read: 0.1, cache_write: 1.25 },
  'claude-3-5-haiku': { in: 0.8, out: 4, cache_read: 0.08, cache_write: 1 },
  'gpt-5': { in: 1.25, out: 10, cache_read: 0.125 },
  'gpt-5-mini': { in: 0.25, out: 2, cache_read: 0.025 },
  'gpt-5-nano': { in: 0.05, out: 0.4, cache_read: 0.005 },
  'gpt-4.1': { in: 2, out: 8, cache_read: 0.5 },
  'gpt-4.1-mini': { in: 0.4, out: 1.6, cache_read: 0.1 },
  'gpt-4.1-nano': { in: 0.1, out: 0.4, cache_read: 0.025 },
  'gpt-4o': { in: 2.5, out: 10, cache_read: 1.25 },
  'gpt-4o-mini': { in: 0.15, out: 0.6, cache_read: 0.075 },
  o3: { in: 2, out: 8, cache_read: 0.5 },
  'o4-mini': { in: 1.1, out: 4.4, cache_read: 0.275 },
  'gemini-2.5-pro': { in: 1.25, out: 10, cache_read: 0.31 },
  'gemini-2.5-flash': { in: 0.3, out: 2.5, cache_read: 0.075 },
};

function isPrice(v: unknown): v is ModelPrice {
  const p = v as Record<string, unknown> | null;
  return !!p && typeof p === 'object' && ['in', 'out', 'cache_read', 'cache_write'].every((k) => p[k] === undefined || (typeof p[k] === 'number' && (p[k] as number) >= 0)) && typeof p.in === 'number' && typeof p.out === 'number';
}

/**
 * Reads the configured overrides: BULLPEN_MODEL_PRICES as JSON (`{"my-model": {"in": 1, "out": 2}}`)
 * or as a path to such a file. Entries that are not prices are skipped; an unreadable value adds nothing.
 */
export function configuredModelPrices(source: Record<string, string | undefined> = process.env): Record<string, ModelPrice> {
  const raw = env('BULLPEN_MODEL_PRICES', source)?.trim();
  if (!raw) return {};
  let text = raw;
  if (!raw.startsWith('{')) {
    // read at call time through the runtime, so no bundle of lib/core pulls in a file system
    const fs = process.getBuiltinModule?.('node:fs') as typeof import('node:fs') | undefined;
    try {
      text = fs ? fs.readFileSync(raw, 'utf8') : '';
    } catch {
      return {};
    }
  }
  try {
    const v = JSON.parse(text) as Record<string, unknown>;
    if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
    return Object.fromEntries(Object.entries(v).filter(([, p]) => isPrice(p)).map(([k, p]) => [k.toLowerCase(), p as ModelPrice]));
  } catch {
    return {};
  }
}

/** The table in force: built-in prices with the configured ones over them. */
export function modelPrices(source?: Record<string, string | undefined>): Record<string, ModelPrice> {
  return { ...BUILT_IN_MODEL_PRICES, ...configuredModelPrices(source) };
}

/**
 * A model's price: `provider:model` first, then the model, then the longest known name the model
 * starts with (a dated release such as `claude-sonnet-4-5-20250929` takes its family's price).
 */
export function priceOf(model: string | undefined, provider: string | undefined, table: Record<string, ModelPrice>): ModelPrice | null {
  if (!model) return null;
  const m = model.toLowerCase();
  const p = provider?.toLowerCase();
  if (p && table[`${p}:${m}`]) return table[`${p}:${m}`];
  if (table[m]) return table[m];
  const bare = m.includes(':') ? m.slice(m.indexOf(':') + 1) : m;
  if (table[bare]) return table[bare];
  let best: string | null = null;
  for (const k of Object.keys(table)) if (!k.includes(':') && bare.startsWith(`${k}-`) && (!best || k.length > best.length)) best = k;
  return best ? table[best] : null;
}

/** What tokens cost at a price, USD, to the micro-dollar. Cache tokens without a price of their own cost input's. */
export function priceTokens(price: ModelPrice, t: { tokens_in?: number; tokens_out?: number; tokens_cache_read?: number; tokens_cache_write?: number }): number {
  const usd =
    ((t.tokens_in ?? 0) * price.in +
      (t.tokens_out ?? 0) * price.out +
      (t.tokens_cache_read ?? 0) * (price.cache_read ?? price.in) +
      (t.tokens_cache_write ?? 0) * (price.cache_write ?? price.in)) /
    1e6;
  return Math.round(usd * 1e6) / 1e6;
}
