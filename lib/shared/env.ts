// Every environment variable Bullpen reads: one typed list, the source of the table in
// docs/operations.md (npm run docs). lib/shared/env.test.ts fails when the table and the list drift,
// and when code reads a variable the list does not name.

export type EnvVar = {
  name: string;
  /** The value the code uses when the variable is unset (what env() returns then). */
  default?: string;
  /** The default as the docs state it, where it is computed or worth a word ("unset", "half the cores"). */
  defaultText?: string;
  description: string;
  /** The command-line flag of `bullpen start` that sets the same. */
  flag?: string;
  /** server: the server reads it; cli: the command-line tool; internal: set by Bullpen itself, not by you. */
  audience: 'server' | 'cli' | 'internal';
};

export const ENV_VARS = [
  // where the data lives
  { name: 'BULLPEN_DATA_DIR', defaultText: '`.bullpen/data`', description: 'embedded database directory (`server.json` for the CLI sits beside it)', audience: 'server' },
  { name: 'DATABASE_URL', defaultText: 'unset', description: 'use a Postgres server (Supabase or any Postgres ≥ 15) instead of the embedded one', audience: 'server' },
  {
    name: 'BULLPEN_DB_OPEN_TIMEOUT_MS',
    default: '300000',
    defaultText: '`300000` (5 min)',
    description: 'how long start-up (or a CLI command that opens the embedded database itself) may take to open and migrate the database; past it, it stops with an error naming `bullpen restore` instead of hanging',
    audience: 'server',
  },
  // the door
  { name: 'PORT', default: '3000', description: 'port for `bullpen start`', flag: '--port', audience: 'server' },
  { name: 'BULLPEN_HOST', default: '127.0.0.1', description: 'interface for `bullpen start`; `0.0.0.0` puts it on the network (the banner says so)', flag: '--host', audience: 'server' },
  { name: 'BULLPEN_PUBLIC_URL', defaultText: 'request origin', description: 'public base URL (behind a proxy): printed links, OAuth resource metadata; its host is answered', audience: 'server' },
  {
    name: 'BULLPEN_ALLOWED_HOSTS',
    defaultText: 'none',
    description: 'more names the server answers besides localhost and the public URL\'s host (`name`, `name:port`, `*.domain`; comma-separated)',
    audience: 'server',
  },
  { name: 'BULLPEN_ALLOWED_ORIGINS', defaultText: 'none', description: 'extra browser origins allowed to call the server (comma-separated)', audience: 'server' },
  {
    name: 'BULLPEN_TRUST_PROXY',
    defaultText: 'off',
    description: 'believe `X-Forwarded-Host` / `-Proto` (`1`, `true` or `yes`; set it only behind a proxy you run, which overwrites them)',
    audience: 'server',
  },
  {
    name: 'BULLPEN_SUPABASE_RECHECK_MS',
    default: '30000',
    description: 'how often an open live stream asks Supabase Auth whether its session still stands',
    audience: 'server',
  },
  { name: 'BULLPEN_MCP_MAX_BODY_BYTES', default: '1048576', description: 'largest MCP request body; larger → 413', audience: 'server' },
  { name: 'BULLPEN_MAX_BODY_BYTES', default: '262144', description: 'largest body of the console, admin and sign-in routes; larger → 413', audience: 'server' },
  {
    name: 'BULLPEN_IMPORT_MAX_BYTES',
    default: '268435456',
    description: 'largest export `bullpen import` sends to a running server (256 MiB; the front door holds the import route to this, other admin routes keep `BULLPEN_MAX_BODY_BYTES`)',
    audience: 'server',
  },
  // limits and fair sharing
  { name: 'BULLPEN_RATE_KEY_PER_SECOND', default: '30', description: 'sustained calls per second per API key (0: off)', audience: 'server' },
  { name: 'BULLPEN_RATE_WORKSPACE_PER_SECOND', default: '100', description: 'sustained calls per second per workspace, all its keys together (0: off)', audience: 'server' },
  {
    name: 'BULLPEN_RATE_ADDRESS_PER_SECOND',
    default: '20',
    description: 'failed key attempts (unknown, malformed, revoked, expired) per second per client address, and sign-in attempts; once spent, unknown keys from that address are refused before any lookup (0: off)',
    audience: 'server',
  },
  { name: 'BULLPEN_RATE_WINDOW_SECONDS', default: '2', description: 'a bucket holds rate × window calls and refills each window', audience: 'server' },
  {
    name: 'BULLPEN_WORKSPACE_CONCURRENCY',
    defaultText: "half the machine's cores (1 to half the pool)",
    description: 'MCP calls of one workspace in flight per server process while other workspaces are active; more wait their turn',
    audience: 'server',
  },
  {
    name: 'BULLPEN_WORKSPACE_CONCURRENCY_ALONE',
    defaultText: 'half of `BULLPEN_PG_POOL_MAX`',
    description: 'the same for a workspace that is the only one active (no neighbour to protect)',
    audience: 'server',
  },
  { name: 'BULLPEN_WORKSPACE_QUEUE_MS', default: '10000', description: "how long a call waits for its workspace's turn before a retryable `BUSY`", audience: 'server' },
  {
    name: 'BULLPEN_KEY_CACHE_MS',
    default: '1000',
    description: 'how long the MCP endpoint believes an API key it looked up before asking the database again (a revocation reaches other instances within it; 0: a lookup per call)',
    audience: 'server',
  },
  { name: 'BULLPEN_SESSION_CHECK_MS', default: '2000', description: 'how often an open live stream re-checks that its session was not signed out', audience: 'server' },
  // the database pool and the change feed
  { name: 'BULLPEN_PG_POOL_MAX', default: '20', description: "connections in the server's pool (with `DATABASE_URL`)", audience: 'server' },
  {
    name: 'BULLPEN_PG_ACQUIRE_TIMEOUT_MS',
    default: '5000',
    description: 'longest wait for a pooled connection; a saturated pool answers `BUSY` (retryable), an unreachable database `UNAVAILABLE`',
    audience: 'server',
  },
  {
    name: 'BULLPEN_CHANGE_FEED',
    default: 'poll',
    description: 'on a Postgres server, how the live feed learns of writes: `poll` reads the activity log (writers skip NOTIFY), `notify` uses LISTEN/NOTIFY',
    audience: 'server',
  },
  { name: 'BULLPEN_FEED_POLL_MS', default: '50', description: 'poll interval of the change feed', audience: 'server' },
  // jobs
  { name: 'BULLPEN_JOBS', default: 'on', description: '`off` starts no job worker in this instance (others on the same database still run the jobs)', audience: 'server' },
  { name: 'BULLPEN_JOBS_POLL_MS', default: '500', description: 'how often an idle job worker looks for due jobs', audience: 'server' },
  {
    name: 'BULLPEN_RUN_IDLE_SECONDS',
    defaultText: '`1800`',
    description: 'a run with no call (heartbeat, write or whoami) for this long is ended by the reaper: as `idle` when it holds nothing, as `abandoned` with its leases released when it holds some (at least 60)',
    audience: 'server',
  },
  { name: 'BULLPEN_RUN_ABANDON_SECONDS', defaultText: 'unset', description: 'the older name of `BULLPEN_RUN_IDLE_SECONDS`, still read when that is unset', audience: 'server' },
  // what the first start creates
  { name: 'BULLPEN_WORKSPACE', default: 'default', description: 'slug of the workspace the first start creates', audience: 'server' },
  { name: 'BULLPEN_WORKSPACE_NAME', default: 'My workspace', description: 'name of the workspace the first start creates', audience: 'server' },
  { name: 'BULLPEN_OWNER_NAME', default: 'Owner', description: 'display name of the owner the first start creates', audience: 'server' },
  // search by meaning
  { name: 'BULLPEN_EMBEDDER', defaultText: '`openai` when `OPENAI_API_KEY` is set, else `local`', description: 'which embedder gives notes and decisions their vectors', audience: 'server' },
  {
    name: 'BULLPEN_EMBED_WORKERS',
    defaultText: 'the cores available, at most 4',
    description: 'worker threads that run the bundled embedding model, each with its own copy (about 120 MB; `0`: in the server\'s own thread); started as work needs them, idle ones hold nothing',
    audience: 'server',
  },
  { name: 'OPENAI_API_KEY', defaultText: 'unset', description: 'embed with the `openai` package instead of the bundled model', audience: 'server' },
  { name: 'OPENAI_BASE_URL', defaultText: 'unset', description: 'any OpenAI-compatible server for the embeddings', audience: 'server' },
  {
    name: 'BULLPEN_EMBEDDING_MODEL',
    default: 'text-embedding-3-small',
    description: 'the OpenAI embedding model; a change re-embeds in the background',
    audience: 'server',
  },
  { name: 'BULLPEN_EMBEDDING_DIMENSIONS', defaultText: "the model's own", description: 'shortened dimensions for the OpenAI model', audience: 'server' },
  {
    name: 'BULLPEN_DUPLICATE_SIMILARITY',
    default: '0.92',
    description: 'how similar (0–1) a new note must be to a live one for knowledge_write to name it in `similar` and knowledge_search `duplicates` to list the pair',
    audience: 'server',
  },
  // the council (council_ask): OpenAI-compatible chat models by provider
  { name: 'BULLPEN_COUNCIL_MODELS', defaultText: 'unset (the council is unavailable)', description: 'the council: comma-separated `provider:model` (providers `openai`, `openrouter`, `local`)', audience: 'server' },
  { name: 'BULLPEN_COUNCIL_CHAIRMAN', defaultText: 'the first council model', description: 'the `provider:model` that writes the council\'s final answer', audience: 'server' },
  { name: 'BULLPEN_COUNCIL_LOCAL_MODELS', defaultText: 'unset', description: 'comma-separated models of the `local` provider that `use_local` picks (the first chairs)', audience: 'server' },
  { name: 'BULLPEN_COUNCIL_OPENAI_API_KEY', defaultText: '`OPENAI_API_KEY`', description: 'key of the `openai` council provider', audience: 'server' },
  { name: 'BULLPEN_COUNCIL_OPENAI_BASE_URL', default: 'https://api.openai.com/v1', description: 'base URL of the `openai` council provider', audience: 'server' },
  { name: 'BULLPEN_COUNCIL_OPENROUTER_API_KEY', defaultText: 'unset', description: 'key of the `openrouter` council provider', audience: 'server' },
  { name: 'BULLPEN_COUNCIL_OPENROUTER_BASE_URL', default: 'https://openrouter.ai/api/v1', description: 'base URL of the `openrouter` council provider', audience: 'server' },
  { name: 'BULLPEN_COUNCIL_LOCAL_API_KEY', default: 'local', description: 'key of the `local` council provider (Ollama ignores it)', audience: 'server' },
  { name: 'BULLPEN_COUNCIL_LOCAL_BASE_URL', default: 'http://127.0.0.1:11434/v1', description: 'base URL of the `local` council provider (Ollama\'s `/v1`)', audience: 'server' },
  { name: 'BULLPEN_COUNCIL_TIMEOUT_MS', default: '120000', description: 'how long one council model may take per stage before it counts as failed', audience: 'server' },
  {
    name: 'BULLPEN_COUNCIL_PRICES',
    defaultText: 'unset (cost 0 unless the provider reports it)',
    description: 'USD per million tokens by model, JSON: `{"openai:gpt-4o": {"in": 2.5, "out": 10}}`',
    audience: 'server',
  },
  // costs
  {
    name: 'BULLPEN_MODEL_PRICES',
    defaultText: 'unset (the built-in table of common models)',
    description: 'USD per million tokens by model, added to or replacing the built-in table that prices usage reported without a cost: JSON `{"my-model": {"in": 1, "out": 4, "cache_read": 0.1, "cache_write": 1.25}}` or the path of a JSON file',
    audience: 'server',
  },
  // events
  {
    name: 'BULLPEN_WEBHOOK_ALLOW',
    defaultText: 'unset (public addresses only)',
    description:
      'webhook URLs that may reach private, loopback or link-local addresses: hosts, IPs or CIDRs (`127.0.0.1`, `10.0.0.0/8`, `hooks.internal`), comma-separated, or `*`; in development (`NODE_ENV=development`) every address is allowed',
    audience: 'server',
  },
  { name: 'BULLPEN_WEBHOOK_TIMEOUT_MS', default: '10000', description: 'how long one webhook delivery may take before it counts as failed (and is retried)', audience: 'server' },
  // files
  { name: 'BULLPEN_FILES_DIR', defaultText: '`files` beside the data dir', description: 'where uploaded attachment files are kept (embedded storage)', audience: 'server' },
  { name: 'BULLPEN_MAX_UPLOAD_BYTES', default: '26214400', defaultText: '`26214400` (25 MiB)', description: 'largest uploaded file; larger → 413 naming the limit', audience: 'server' },
  { name: 'SUPABASE_URL', defaultText: '`NEXT_PUBLIC_SUPABASE_URL`', description: 'the Supabase project that stores attachment files (with `SUPABASE_SERVICE_ROLE_KEY`)', audience: 'server' },
  { name: 'SUPABASE_SERVICE_ROLE_KEY', defaultText: 'unset', description: 'keep attachment files in Supabase Storage instead of on disk', audience: 'server' },
  { name: 'BULLPEN_STORAGE_BUCKET', default: 'attachments', description: 'the private Supabase Storage bucket for attachment files', audience: 'server' },
  // people
  {
    name: 'BULLPEN_SESSION_SECRET',
    defaultText: 'generated in `.bullpen/session.secret`',
    description: 'HS256 key for console session cookies (≥ 32 chars; share it across instances)',
    audience: 'server',
  },
  { name: 'BULLPEN_SESSION_TTL_SECONDS', default: '1209600', defaultText: '`1209600` (14 days)', description: 'how long a console session lasts', audience: 'server' },
  {
    name: 'BULLPEN_SIGNIN_TTL_SECONDS',
    default: '86400',
    description: 'how long a sign-in link stays valid (a newer link for the same person revokes it sooner)',
    audience: 'server',
  },
  { name: 'NEXT_PUBLIC_SUPABASE_URL', defaultText: 'unset', description: 'sign in with Supabase Auth; live updates over Supabase Realtime (with the anon key)', audience: 'server' },
  { name: 'NEXT_PUBLIC_SUPABASE_ANON_KEY', defaultText: 'unset', description: "the Supabase project's anon key", audience: 'server' },
  { name: 'NEXT_PUBLIC_SUPABASE_PUBLISHABLE_KEY', defaultText: 'unset', description: 'the same, under its newer name (read when the anon key is unset)', audience: 'server' },
  { name: 'SUPABASE_JWT_SECRET', defaultText: 'unset', description: 'verify Supabase access tokens with the shared secret (else the project JWKS)', audience: 'server' },
  // the command-line tool
  { name: 'BULLPEN_API_KEY', defaultText: 'unset', description: 'the agent key the CLI tool commands (`bullpen task claim …`) call with', audience: 'cli' },
  { name: 'BULLPEN_URL', defaultText: 'the running server', description: 'the server the CLI tool commands call', audience: 'cli' },
  { name: 'BULLPEN_RUN_ID', defaultText: 'one per calling shell and day', description: "the CLI's run", audience: 'cli' },
  { name: 'BULLPEN_PARENT_RUN_ID', defaultText: 'unset', description: 'the run the CLI\'s run was started under (a `subagent` run in the tree)', audience: 'cli' },
  { name: 'BULLPEN_RUN_GROUP', defaultText: 'unset', description: 'the series the CLI\'s run is a tick of', audience: 'cli' },
  { name: 'BULLPEN_REPO', defaultText: 'detected with git', description: 'the repository the CLI stands in (`off` to skip)', audience: 'cli' },
  // set by Bullpen itself
  { name: 'BULLPEN_ROOT', defaultText: 'the package directory', description: 'where the app and its SQL files live; `bin/bullpen.mjs` sets it', audience: 'internal' },
  { name: 'BULLPEN_ADMIN_TOKEN', defaultText: 'random per start', description: "the per-start token of the admin routes the CLI uses; `bullpen start` sets it and writes it to `server.json`", audience: 'internal' },
  { name: 'NODE_ENV', defaultText: 'set by Next.js', description: '`development` under `bullpen start --dev`: webhooks may reach private addresses', audience: 'internal' },
  { name: 'npm_package_version', defaultText: 'set by npm', description: 'the release a fixture made by `scripts/make-upgrade-fixture.ts` is named after', audience: 'internal' },
] as const satisfies readonly EnvVar[];

export type EnvName = (typeof ENV_VARS)[number]['name'];

const BY_NAME = new Map<string, EnvVar>(ENV_VARS.map((v) => [v.name, v]));

/** The list's entry for a variable. */
export function envVar(name: EnvName): EnvVar {
  return BY_NAME.get(name)!;
}

/**
 * A variable's value: the environment's, else the list's default (undefined where the list has none).
 * The one way server code reads its configuration.
 */
export function env(name: EnvName, source: Record<string, string | undefined> = process.env): string | undefined {
  return source[name] ?? BY_NAME.get(name)?.default;
}

/** A variable as a number (NaN when set to something else; callers decide what that means). */
export function envNumber(name: EnvName, source?: Record<string, string | undefined>): number {
  return Number(env(name, source));
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|');
}

/** The tables of docs/operations.md (Configuration), by audience. */
export function envTable(): string {
  const rows = (audience: EnvVar['audience']) =>
    (ENV_VARS as readonly EnvVar[])
      .filter((v) => v.audience === audience)
      .map((v) => {
        const name = v.flag ? `\`${v.name}\` / \`${v.flag}\`` : `\`${v.name}\``;
        const def = v.defaultText ?? (v.default !== undefined ? `\`${v.default}\`` : 'unset');
        return `| ${name} | ${cell(def)} | ${cell(v.description)} |`;
      });
  const head = ['| variable | default | meaning |', '| --- | --- | --- |'];
  return [
    `${ENV_VARS.length} variables, generated from \`lib/shared/env.ts\` by \`npm run docs\` (a test keeps this table, the list and the code in step).`,
    '',
    '**The server** (`bullpen start`, or the Next.js app on any Node host):',
    '',
    ...head,
    ...rows('server'),
    '',
    '**The command-line tool** (`bullpen task claim …` and the other tool commands):',
    '',
    ...head,
    ...rows('cli'),
    '',
    '**Set by Bullpen itself** (listed so that nothing is read unlisted; do not set them):',
    '',
    ...head,
    ...rows('internal'),
  ].join('\n');
}
