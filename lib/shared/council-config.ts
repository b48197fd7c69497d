import { env } from './env';

/**
 * The council's configuration, from the environment list (lib/shared/env.ts): which
 * OpenAI-compatible providers exist, their base URL and key, and the default council and chairman.
 * Keys never leave the server: a council row names models as `provider:model` only.
 */

export const COUNCIL_PROVIDERS = ['openai', 'openrouter', 'local'] as const;
export type CouncilProvider = (typeof COUNCIL_PROVIDERS)[number];

export type ProviderConfig = { provider: CouncilProvider; baseURL: string; apiKey: string | null; keyVar: string };

export type CouncilConfig = {
  models: string[];
  chairman: string | null;
  localModels: string[];
  providers: Record<CouncilProvider, ProviderConfig>;
  timeoutMs: number;
  /** USD per million tokens by `provider:model`. */
  prices: Record<string, { in?: number; out?: number }>;
};

/** The variables that configure the council, for hints that say what to set. */
export const COUNCIL_VARS = ['BULLPEN_COUNCIL_MODELS', 'BULLPEN_COUNCIL_CHAIRMAN', 'BULLPEN_COUNCIL_OPENAI_API_KEY', 'BULLPEN_COUNCIL_OPENROUTER_API_KEY', 'BULLPEN_COUNCIL_LOCAL_BASE_URL', 'BULLPEN_COUNCIL_LOCAL_MODELS'] as const;

const list = (v: string | undefined) => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean);

function parsePrices(raw: string | undefined): CouncilConfig['prices'] {
  if (!raw) return {};
  try {
    const v = JSON.parse(raw) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as CouncilConfig['prices']) : {};
  } catch {
    return {};
  }
}

/** Reads the council's configuration (source: the environment, or a stand-in map in tests). */
export function councilConfig(source: Record<string, string | undefined> = process.env): CouncilConfig {
  const openaiKey = env('BULLPEN_COUNCIL_OPENAI_API_KEY', source) ?? env('OPENAI_API_KEY', source) ?? null;
  const models = list(env('BULLPEN_COUNCIL_MODELS', source));
  const timeout = Number(env('BULLPEN_COUNCIL_TIMEOUT_MS', source));
  return {
    models,
    chairman: env('BULLPEN_COUNCIL_CHAIRMAN', source)?.trim() || models[0] || null,
    localModels: list(env('BULLPEN_COUNCIL_LOCAL_MODELS', source)).map((m) => (m.startsWith('local:') ? m : `local:${m}`)),
    providers: {
      openai: { provider: 'openai', baseURL: env('BULLPEN_COUNCIL_OPENAI_BASE_URL', source)!, apiKey: openaiKey, keyVar: 'BULLPEN_COUNCIL_OPENAI_API_KEY' },
      openrouter: {
        provider: 'openrouter',
        baseURL: env('BULLPEN_COUNCIL_OPENROUTER_BASE_URL', source)!,
        apiKey: env('BULLPEN_COUNCIL_OPENROUTER_API_KEY', source) ?? null,
        keyVar: 'BULLPEN_COUNCIL_OPENROUTER_API_KEY',
      },
      local: { provider: 'local', baseURL: env('BULLPEN_COUNCIL_LOCAL_BASE_URL', source)!, apiKey: env('BULLPEN_COUNCIL_LOCAL_API_KEY', source)!, keyVar: 'BULLPEN_COUNCIL_LOCAL_API_KEY' },
    },
    timeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : 120_000,
    prices: parsePrices(env('BULLPEN_COUNCIL_PRICES', source)),
  };
}

/** `provider:model` → its parts; null when the provider is not one of COUNCIL_PROVIDERS. */
export function parseModelId(id: string): { provider: CouncilProvider; model: string } | null {
  const i = id.indexOf(':');
  if (i <= 0 || i === id.length - 1) return null;
  const provider = id.slice(0, i) as CouncilProvider;
  if (!COUNCIL_PROVIDERS.includes(provider)) return null;
  return { provider, model: id.slice(i + 1) };
}
