import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { registry } from '../core/registry';
import type { ToolDef } from '../core/tool';
import { gitContext, runHeaders, withGitDefaults } from './git';
import { defaultBaseUrl } from './server-file';

/**
 * Noun-verb twins of every tool, for scripts and cron jobs: `bullpen task claim --label api` calls
 * task_claim over the MCP endpoint with the key in BULLPEN_API_KEY. Generated from the registry.
 */

export const EXIT = { OK: 0, FAILED: 1, USAGE: 2, RETRYABLE: 3 } as const;

type JsonSchema = { type?: string; properties?: Record<string, JsonSchema>; required?: string[]; description?: string; enum?: unknown[]; anyOf?: JsonSchema[]; items?: JsonSchema; pattern?: string };

/** The tool a command line names: `task claim` → task_claim, `whoami` → whoami. */
export function findTool(words: string[]): { tool: ToolDef; used: number } | null {
  for (const n of [2, 1]) {
    if (words.length < n || words.slice(0, n).some((w) => w.startsWith('-'))) continue;
    const name = words.slice(0, n).join('_').replace(/-/g, '_');
    const tool = registry.find((t) => t.name === name);
    if (tool) return { tool, used: n };
  }
  return null;
}

/** The field a bare positional argument fills: the tool's main id. */
function positionalField(tool: ToolDef): string | null {
  const keys = Object.keys(tool.input.shape);
  return ['task_id', 'handoff_id', 'decision_id', 'council_id', 'instance_id', 'workflow_id', 'webhook_id', 'url', 'project_id', 'project', 'topic'].find((k) => keys.includes(k)) ?? null;
}

function coerce(raw: string): unknown {
  if (/^(true|false|null)$/.test(raw) || /^-?\d+(\.\d+)?$/.test(raw) || /^[[{"]/.test(raw)) {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  }
  return raw;
}

/** Turns `--project-id PAY --labels '["a"]' --lease-seconds 600 PAY-3` into the tool's input. */
export function parseToolArgs(tool: ToolDef, argv: string[]): { input: Record<string, unknown>; flags: Set<string> } {
  const input: Record<string, unknown> = {};
  const flags = new Set<string>();
  const schema = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--json' || a === '--soft-fail' || a === '--help' || a === '-h') {
      flags.add(a.replace(/^-+/, ''));
      continue;
    }
    if (a.startsWith('--')) {
      const [k, inline] = a.slice(2).split(/=(.*)/s, 2);
      const key = k.replace(/-/g, '_');
      const prop = schema.properties?.[key];
      const value = inline ?? (prop?.type === 'boolean' && (argv[i + 1] === undefined || argv[i + 1].startsWith('--')) ? 'true' : argv[++i]);
      if (value === undefined) throw new Error(`--${k} needs a value`);
      const v = prop?.type === 'string' || prop?.enum?.every((e) => typeof e === 'string') ? value : coerce(value);
      const pattern = prop?.items?.pattern;
      if (prop?.type === 'array' && typeof v === 'string' && pattern && v.includes(',') && !new RegExp(pattern, 'u').test(v)) {
        // `--events task.done,handoff.created`: a list of values no one of which may hold a comma
        input[key] = [...((input[key] as unknown[]) ?? []), ...v.split(',').map((x) => x.trim()).filter(Boolean)];
      } else if (prop?.type === 'array' && !Array.isArray(v)) {
        input[key] = [...((input[key] as unknown[]) ?? []), v];
      } else input[key] = v;
      continue;
    }
    const field = positionalField(tool);
    if (!field || field in input) throw new Error(`unexpected argument: ${a}`);
    input[field] = a;
  }
  return { input, flags };
}

function typeOf(s: JsonSchema): string {
  if (s.enum) return s.enum.join('|');
  if (s.anyOf) return s.anyOf.map(typeOf).join('|');
  if (s.type === 'array') return `${s.items ? typeOf(s.items) : 'value'}…`;
  return s.type ?? 'json';
}

/** How the command line spells a tool: `task claim`, `task create-many`, `notification mark-read`. */
export function commandName(tool: ToolDef): string {
  const [noun, ...verb] = tool.name.split('_');
  return verb.length ? `${noun} ${verb.join('-')}` : noun;
}

export function toolHelp(tool: ToolDef): string {
  const schema = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const pos = positionalField(tool);
  const lines = [
    `bullpen ${commandName(tool)}${pos ? ` [${pos.toUpperCase()}]` : ''} [--flags] [--json] [--soft-fail]`,
    '',
    tool.description,
    '',
    'Flags (snake_case or kebab-case; JSON for arrays and objects):',
  ];
  for (const [k, p] of Object.entries(schema.properties ?? {})) {
    const req = schema.required?.includes(k) ? ' (required)' : '';
    lines.push(`  --${k.replace(/_/g, '-')} ${typeOf(p)}${req}${p.description ? `  ${p.description}` : ''}`);
  }
  lines.push('', 'Needs BULLPEN_API_KEY (mint one with `bullpen agent add NAME`); BULLPEN_URL defaults to the running server.');
  return lines.join('\n');
}

export function toolsIndex(): string {
  const rooms = [...new Set(registry.map((t) => t.room))];
  return rooms
    .map((room) => `  ${room.padEnd(10)} ${registry.filter((t) => t.room === room).map(commandName).join(' · ')}`)
    .join('\n');
}

export type CliEnvelope = { ok: boolean; error?: { code: string; message: string; hint: string; retryable: boolean }; [k: string]: unknown };

/** The protocol revision the CLI speaks: stateless, no handshake, one HTTP request per call. */
export const CLI_REVISION = '2026-07-28';

/**
 * What the CLI knows of its own server without asking: it is Bullpen, at the revision this
 * checkout serves. Adopting it skips the server/discover probe, so a command is one request.
 */
const KNOWN_SERVER = {
  supportedVersions: [CLI_REVISION],
  capabilities: { tools: {}, resources: {} },
  serverInfo: { name: 'bullpen', version: '0.1.0' },
};

/**
 * Connects to the running server's MCP endpoint with an agent key (BULLPEN_URL, else the server
 * this data dir started), with the v2 client at the 2026-07-28 revision: no initialize handshake
 * and no session, so each call() is one HTTP request. call() answers every tool as an envelope: a
 * transport failure becomes UNAUTHENTICATED or UNAVAILABLE, never a throw. The same path serves
 * the tool twins and CLI-only commands built on tools (skills sync). `fetch` is for tests.
 */
export async function connectTools(
  key: string,
  opts: { fetch?: typeof fetch } = {},
): Promise<{
  base: string;
  repo: Awaited<ReturnType<typeof gitContext>>;
  call: (name: string, input: unknown) => Promise<CliEnvelope>;
  close: () => Promise<void>;
}> {
  const base = process.env.BULLPEN_URL ?? (await defaultBaseUrl());
  const client = new Client({ name: 'bullpen-cli', version: '0.1.0' }, { versionNegotiation: { mode: { pin: CLI_REVISION } } });
  // the run (BULLPEN_RUN_ID, _PARENT_RUN_ID, _RUN_GROUP) and the repository the caller stands in
  const repo = process.env.BULLPEN_REPO === 'off' ? null : await gitContext();
  // every twin is callable, the opt-in rooms' too (lib/core/toolsets.ts): the CLI names `all`
  const headers: Record<string, string> = { Authorization: `Bearer ${key}`, 'X-Bullpen-Toolsets': 'all', ...runHeaders(process.env, repo, key) };
  let connected: Promise<void> | null = null;
  // a refusal over HTTP (403 insufficient_scope, 429, 503) carries its envelope in the body; the v2
  // transport keeps it out of some of its errors (a 403 becomes a step-up attempt), so it is kept here
  let refusal: string | null = null;
  const baseFetch = opts.fetch ?? fetch;
  const keepRefusals = (async (url: string | URL | Request, init?: RequestInit) => {
    const res = await baseFetch(url, init);
    if (!res.ok && res.status !== 401) refusal = await res.clone().text().catch(() => null);
    return res;
  }) as typeof fetch;
  const failure = (err: unknown): CliEnvelope => {
    const message = (err as Error).message;
    const auth = /401|Unauthorized|API key/i.test(message);
    return {
      ok: false,
      error: {
        code: auth ? 'UNAUTHENTICATED' : 'UNAVAILABLE',
        message: `${base}: ${message}`,
        hint: auth ? 'check BULLPEN_API_KEY' : 'is the server running? (npm start)',
        retryable: !auth,
      },
    };
  };
  return {
    base,
    repo,
    async call(name, input) {
      refusal = null;
      try {
        connected ??= client.connect(
          new StreamableHTTPClientTransport(new URL(`${base.replace(/\/$/, '')}/api/mcp`), { requestInit: { headers }, fetch: keepRefusals }),
          { prior: { kind: 'modern', discover: KNOWN_SERVER as never } },
        );
        await connected;
        // a waiting call holds for wait_seconds: give the request that long and a margin
        const waitFor = (input as { wait_seconds?: unknown })?.wait_seconds;
        const timeout = (typeof waitFor === 'number' ? waitFor * 1000 : 0) + 60_000;
        const res = (await client.callTool({ name, arguments: input as Record<string, unknown> }, { timeout })) as {
          content: { type: string; text: string }[];
        };
        return JSON.parse(res.content[0].text) as CliEnvelope;
      } catch (err) {
        // a refusal over HTTP (403 insufficient_scope, 429, 503) carries its envelope in the error
        return (refusal && envelopeInError(refusal)) || envelopeInError((err as Error).message) || failure(err);
      }
    },
    close: () => client.close().catch(() => {}),
  };
}

/**
 * The envelope a refusal over HTTP carries in its JSON-RPC error's data (403 insufficient_scope,
 * 429 RATE_LIMITED, 503 BUSY), out of the transport's error message; null when there is none.
 */
export function envelopeInError(message: string): { ok: false; error: { code: string; message: string; hint: string; retryable: boolean } } | null {
  const at = message.indexOf('{');
  if (at < 0) return null;
  try {
    const body = JSON.parse(message.slice(at)) as { error?: { data?: { ok?: boolean; error?: { code?: string } } } };
    const data = body.error?.data;
    return data && data.ok === false && typeof data.error?.code === 'string' ? (data as never) : null;
  } catch {
    return null;
  }
}

/** Runs one tool command; returns the exit code. */
/** The agent key a command that talks to the server runs with, or null after saying how to get one. */
export function agentKeyFromEnv(out: Pick<Console, 'error'> = console): string | null {
  const key = process.env.BULLPEN_API_KEY;
  if (!key) out.error('bullpen: set BULLPEN_API_KEY to an agent key (`bullpen agent add NAME` mints one)');
  return key || null;
}

export async function runTool(tool: ToolDef, argv: string[], out = console): Promise<number> {
  let parsed: ReturnType<typeof parseToolArgs>;
  try {
    parsed = parseToolArgs(tool, argv);
  } catch (err) {
    out.error(`bullpen: ${(err as Error).message}\n\n${toolHelp(tool)}`);
    return EXIT.USAGE;
  }
  const { input, flags } = parsed;
  if (flags.has('help') || flags.has('h')) {
    out.log(toolHelp(tool));
    return EXIT.OK;
  }
  const key = agentKeyFromEnv(out);
  if (!key) return EXIT.USAGE;
  const conn = await connectTools(key);
  let envelope: CliEnvelope;
  try {
    envelope = await conn.call(tool.name, withGitDefaults(tool.name, input, conn.repo));
  } finally {
    await conn.close();
  }
  if (flags.has('json')) out.log(JSON.stringify(envelope));
  else if (envelope.ok) {
    const { ok: _ok, ...rest } = envelope;
    out.log(JSON.stringify(rest, null, 2));
  } else out.error(`${envelope.error!.code}: ${envelope.error!.message}\nhint: ${envelope.error!.hint}`);
  if (envelope.ok) return EXIT.OK;
  if (envelope.error!.retryable) return flags.has('soft-fail') ? EXIT.OK : EXIT.RETRYABLE;
  return EXIT.FAILED;
}
