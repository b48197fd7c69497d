import { parseScopes, ScopeError, describeScopes } from '../core/scopes';
import { addAgent, parseDuration, setAgentProfile, UsageError, type AgentProfile } from '../server/workspace';
import { adminStep } from './server-file';
import { commandArgs, printResult, usageExit } from './args';
import { parseToolsets, toolsetNames } from '../core/toolsets';
import { connectSnippets, mcpUrlFor } from '../mcp/connect';
import { agentKeyFromEnv, connectTools, EXIT, findTool, runTool, toolsIndex } from './tools';

export { EXIT };

const HELP = () => `bullpen — the shared workspace for AI agents and humans

Usage:
  bullpen start [--port N] [--host H] [--dev]     start the app (builds it first when needed) on port N (default
                                                   PORT, else 3000); listens on 127.0.0.1 unless --host says
                                                   otherwise (0.0.0.0: the network). One server per data directory.
  bullpen agent add NAME [--workspace SLUG] [--scopes tasks:read,comments] [--expires 30d]
                 [--toolsets core,handoffs] [--new-key] [--json]
                                                   register an agent and mint its API key (scoped, expiring);
                                                   --toolsets puts the tools it lists into the MCP URL;
                                                   an existing agent gets another key only with --new-key;
                 [--capabilities a,b] [--max-concurrent-tasks N] [--model M] [--provider P]
                                                   what it can do, how much it holds at once, what it runs on
  bullpen agent pause|resume|deactivate|activate NAME [--workspace SLUG] [--json]
                                                   stop or restart its claims; deactivate also stops its keys,
                                                   releases its leases and tells senders of its handoffs
  bullpen key list | revoke KEY | rotate KEY [--grace 1h]
                                                   list, end or replace API keys (bullpen key --help)
  bullpen human invite NAME [--workspace SLUG] [--email ADDRESS] [--json]
                                                   invite a human: prints a one-time console sign-in link
  bullpen skills sync [--dir .claude/skills] [--project KEY] [--json]
                                                   write the workspace's skills as <slug>/SKILL.md
  bullpen knowledge sync PATH --source NAME [--project KEY] [--sensitive] [--json]
                                                   index a folder of Markdown and text files as source documents
  bullpen knowledge sources [--json]               each source's documents, chunks, last sync and errors
  bullpen repo index [PATH] [--repository-id ID] [--json]
                                                   build PATH's file dependency graph (default .) and
                                                   upload it to its registered repository, marked with HEAD
  bullpen backup [--out FILE]                      copy the embedded database to a .tar.gz (safe while it runs)
  bullpen restore FILE [--data-dir DIR]            unpack a backup into an empty data directory
  bullpen export --workspace SLUG [--format F]     one workspace as JSON + Markdown, or a Logseq graph
  bullpen import FILE [--workspace SLUG]           load an export into a new or empty workspace
  bullpen help                                     this text

Tools (BULLPEN_API_KEY, BULLPEN_URL; --json, --soft-fail, --help on each):
${toolsIndex()}
  e.g. bullpen whoami · bullpen task claim --label api · bullpen task get PAY-12 --json

Environment:
  BULLPEN_DATA_DIR   embedded database directory (default .bullpen/data); one server holds it at a time
  DATABASE_URL       use a Postgres server instead of the embedded database
  PORT               port for start (default 3000; --port wins)
  BULLPEN_DB_OPEN_TIMEOUT_MS
                     how long start may take to open and migrate the database (default 300000)

Exit codes: 0 ok · 1 failed · 2 usage error · 3 retryable failure`;

function agentConfig(mcpUrl: string, key: string): string {
  const { cli, json } = connectSnippets(mcpUrl, key);
  return ['Claude Code (run in your project):', `  ${cli}`, '', 'Or add to .mcp.json:', json.split('\n').map((l) => `  ${l}`).join('\n')].join('\n');
}

async function agentAdd(argv: string[]): Promise<number> {
  const { values, positionals } = commandArgs(
    argv,
    {
      workspace: { type: 'string', short: 'w' }, scopes: { type: 'string' }, expires: { type: 'string' }, toolsets: { type: 'string' }, 'new-key': { type: 'boolean' }, json: { type: 'boolean' },
      capabilities: { type: 'string' }, 'max-concurrent-tasks': { type: 'string' }, model: { type: 'string' }, provider: { type: 'string' },
    },
    true,
  );
  if (values.help || positionals.length !== 1) {
    return usageExit(
      'Usage: bullpen agent add NAME [--workspace SLUG] [--scopes SCOPES] [--expires DURATION] [--toolsets SETS] [--new-key] [--json]\n\n' +
        'Registers an agent actor in the workspace (created when new) and prints its API key once.\n' +
        'An agent that already has a live key is refused: pass --new-key to mint it one more live key, or\n' +
        'replace a key with `bullpen key rotate KEY` (`bullpen key list` shows them).\n' +
        '  --scopes   what the key may call: ROOM (reads and writes), ROOM:read, or read (every room, read-only),\n' +
        '             comma-separated, e.g. tasks:read,comments. Omitted: everything.\n' +
        '  --expires  the key stops working after this long: 90m, 12h, 30d. Omitted: never.\n' +
        '  --toolsets the tools the agent\u2019s MCP connection lists, put into the printed MCP URL\n' +
        `             (?toolsets=…): ${toolsetNames().join(', ')}; e.g. core,handoffs. Omitted: every tool.\n` +
        '             The key\u2019s scopes still apply; guide() on any connection describes the other rooms.\n' +
        '  --capabilities  what it can do, comma-separated (python,gpu): claim-next offers it only tasks it can do\n' +
        '  --max-concurrent-tasks N  live leases it may hold at once; --model, --provider: what it runs on',
      !!values.help,
    );
  }
  const name = positionals[0];
  let scopes: string[] | null;
  let expiresIn: number | undefined;
  const toolsets = parseToolsets(values.toolsets);
  if (!toolsets.ok) {
    console.error(`bullpen: unknown toolset${toolsets.unknown.length > 1 ? 's' : ''} ${toolsets.unknown.join(', ')}: use ${toolsets.valid.join(', ')}`);
    return EXIT.USAGE;
  }
  try {
    scopes = parseScopes(values.scopes) as string[] | null;
    expiresIn = values.expires === undefined ? undefined : parseDuration('--expires', values.expires);
  } catch (err) {
    if (!(err instanceof ScopeError) && !(err instanceof UsageError)) throw err;
    console.error(`bullpen: ${err.message}`);
    return EXIT.USAGE;
  }
  const { result, base } = await adminStep(
    'agents',
    {
      name,
      workspace: values.workspace,
      ...(scopes ? { scopes } : {}),
      ...(expiresIn ? { expires_in_seconds: expiresIn } : {}),
      ...(values['new-key'] ? { new_key: true } : {}),
    },
    (db) => addAgent(db, { workspace: values.workspace, name, scopes, expires_in_seconds: expiresIn ?? null, new_key: !!values['new-key'] }),
  ).catch((err: Error & { hint?: string }) => {
    // the refusal's hint says what to do instead (--new-key, key rotate)
    throw new Error(err.hint && !err.message.includes(err.hint) ? `${err.message}\n  ${err.hint}` : err.message);
  });
  let profile: AgentProfile;
  try {
    profile = profileFlags(values);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`bullpen: ${err.message}`);
    return EXIT.USAGE;
  }
  if (Object.keys(profile).length > 0) {
    const body = { name, ...(values.workspace ? { workspace: values.workspace } : {}), ...profile };
    await adminStep('agent-profile', body, (db) => setAgentProfile(db, body));
  }
  const mcpUrl = mcpUrlFor(base, toolsets.names);
  return printResult(
    values.json,
    {
      workspace: result.workspace.slug,
      actor_id: result.actor_id,
      key_id: result.key_id,
      api_key: result.api_key,
      scopes: result.scopes,
      expires_at: result.expires_at,
      created_agent: result.created_agent,
      live_keys: result.live_keys,
      mcp_url: mcpUrl,
      toolsets: toolsets.names.length ? toolsets.names : null,
    },
    [
      result.created_agent
        ? `Agent "${name}" is registered in workspace ${result.workspace.slug}${result.created_workspace ? ' (created now)' : ''}.`
        : `Agent "${name}" already existed in workspace ${result.workspace.slug}; minted another key for it ` +
          `(it has ${result.live_keys} live key${result.live_keys === 1 ? '' : 's'} now; \`bullpen key list\` shows them, \`bullpen key revoke KEY\` ends one).`,
      '',
      `API key (shown once, store it now): ${result.api_key}`,
      `  scopes ${describeScopes(result.scopes)} · ${result.expires_at ? `expires ${result.expires_at}` : 'no expiry'}`,
      `MCP URL: ${mcpUrl}${toolsets.names.length ? ` (lists the ${toolsets.names.join(', ')} tools)` : ''}`,
      '',
      agentConfig(mcpUrl, result.api_key),
    ].join('\n'),
  );
}

/** --capabilities, --max-concurrent-tasks, --model, --provider as register_actor fields. Throws UsageError. */
function profileFlags(values: Record<string, unknown>): AgentProfile {
  const out: AgentProfile = {};
  if (typeof values.capabilities === 'string') out.capabilities = values.capabilities.split(',').map((c) => c.trim()).filter(Boolean);
  const max = values['max-concurrent-tasks'];
  if (typeof max === 'string') {
    const n = Number(max);
    if (!Number.isInteger(n) || n < 1 || n > 1000) throw new UsageError(`--max-concurrent-tasks: a whole number from 1 to 1000, got ${max}`);
    out.max_concurrent_tasks = n;
  }
  if (typeof values.model === 'string') out.default_model = values.model;
  if (typeof values.provider === 'string') out.model_provider = values.provider;
  return out;
}

const STATUS_VERBS = { pause: 'paused', resume: 'active', deactivate: 'deactivated', activate: 'active' } as const;

/** bullpen agent pause|resume|deactivate|activate NAME: an owner's status change, as the console makes it. */
async function agentStatus(verb: keyof typeof STATUS_VERBS, argv: string[]): Promise<number> {
  const { values, positionals } = commandArgs(argv, { workspace: { type: 'string', short: 'w' }, json: { type: 'boolean' } }, true);
  if (values.help || positionals.length !== 1) {
    return usageExit(
      `Usage: bullpen agent ${verb} NAME [--workspace SLUG] [--json]\n\n` +
        'pause: its claims answer "paused" (everything else works); resume: it takes work again.\n' +
        'deactivate: its keys stop at once, its leases go back to the pool with a note, senders of its open\n' +
        'handoffs are told. activate: it may work again (released leases stay released).',
      !!values.help,
    );
  }
  const body = { name: positionals[0], ...(values.workspace ? { workspace: values.workspace } : {}), status: STATUS_VERBS[verb] };
  const { result } = await adminStep('agent-profile', body, (db) => setAgentProfile(db, body));
  const released = result.released_task_ids.length;
  return printResult(
    values.json,
    result,
    `Agent "${String(result.actor.display_name)}" is ${String(result.actor.status)} in workspace ${result.workspace.slug}.` +
      (verb === 'deactivate' ? ` Released ${released} lease${released === 1 ? '' : 's'}; told the senders of ${result.marked_handoff_ids.length} open handoff${result.marked_handoff_ids.length === 1 ? '' : 's'}.` : ''),
  );
}

async function startCmd(argv: string[]): Promise<number> {
  const { values } = commandArgs(argv, { port: { type: 'string', short: 'p' }, host: { type: 'string' }, dev: { type: 'boolean' } });
  if (values.help) {
    return usageExit(
      'Usage: bullpen start [--port N] [--host H] [--dev]\n\n' +
        'Starts the console and the MCP endpoint on the embedded database (BULLPEN_DATA_DIR, default .bullpen/data)\n' +
        'or on DATABASE_URL.\n' +
        '  --port N   the port (default: PORT, else 3000); e.g. `npx bullpen start --port 3100` or `PORT=3100 npm start`\n' +
        '  --host H   the address to listen on (default 127.0.0.1, this machine only; 0.0.0.0: the network)\n' +
        '  --dev      Next.js development mode (no build)\n\n' +
        'One server per data directory: a second start on a directory a live server holds is refused, naming it;\n' +
        'a lock left by a process that is gone is taken over. Opening and migrating the database is bounded by\n' +
        'BULLPEN_DB_OPEN_TIMEOUT_MS (default 300000): past it, start-up stops with an error instead of hanging.',
      true,
      console.log,
    );
  }
  const port = Number(values.port ?? process.env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`bullpen: --port must be a number from 0 to 65535, got ${values.port}`);
    return EXIT.USAGE;
  }
  const { start } = await import('./start');
  (await import('./human')).registerSignInBanner();
  let close: () => Promise<void>;
  try {
    ({ close } = await start({ port, host: values.host ?? process.env.BULLPEN_HOST ?? '127.0.0.1', dev: !!values.dev }));
  } catch (err) {
    // a refusal or a bounded open that ran out: say why and end, whatever is still pending
    console.error(`bullpen: ${(err as Error).message}`);
    process.exit(EXIT.FAILED);
  }
  await new Promise<void>((resolve) => {
    const stop = async () => {
      await close();
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return EXIT.OK;
}

type Out = Pick<Console, 'log' | 'error'>;

/**
 * Runs a command's work over one connection with the agent's key. With --json it prints
 * {ok: true, ...result} or {ok: false, error}; otherwise the work prints its own progress and a
 * failure is one line naming the command. A failure whose message matches `retryable` (the server
 * busy or away by default) exits RETRYABLE, any other FAILED.
 */
async function overConnection(
  command: string,
  json: boolean | undefined,
  work: (call: Awaited<ReturnType<typeof connectTools>>['call'], out: Out) => Promise<object>,
  retryable = /UNAVAILABLE|BUSY|INTERNAL/,
): Promise<number> {
  const key = agentKeyFromEnv();
  if (!key) return EXIT.USAGE;
  const conn = await connectTools(key);
  try {
    const quiet: Out = { log: () => {}, error: (line: string) => console.error(line) };
    const result = await work(conn.call, json ? quiet : console);
    if (json) console.log(JSON.stringify({ ok: true, ...result }));
    return EXIT.OK;
  } catch (err) {
    const message = (err as Error).message;
    if (json) console.log(JSON.stringify({ ok: false, error: { message } }));
    else console.error(`bullpen: ${command}: ${message}`);
    return retryable.test(message) ? EXIT.RETRYABLE : EXIT.FAILED;
  } finally {
    await conn.close();
  }
}

async function skillsSync(argv: string[]): Promise<number> {
  const { values } = commandArgs(argv, { dir: { type: 'string', short: 'd' }, project: { type: 'string', short: 'p' }, json: { type: 'boolean' } });
  if (values.help) {
    return usageExit(
      'Usage: bullpen skills sync [--dir .claude/skills] [--project KEY] [--json]\n\n' +
        "Writes the workspace's active skills (with --project, that project's too, shadowing) as <dir>/<slug>/SKILL.md.\n" +
        'Owns only the folders it wrote (listed in .bullpen-skills.json): a folder it did not write is left alone,\n' +
        'and folders of archived skills it wrote are removed. Needs BULLPEN_API_KEY; BULLPEN_URL defaults to the running server.',
      true,
      console.log,
    );
  }
  const { syncSkills } = await import('./skills-sync');
  return overConnection('skills sync', values.json, (call, out) =>
    syncSkills({ dir: values.dir ?? '.claude/skills', project: values.project, call, out }),
  );
}

async function repoIndex(argv: string[]): Promise<number> {
  const { values, positionals } = commandArgs(argv, { 'repository-id': { type: 'string', short: 'r' }, json: { type: 'boolean' } }, true);
  if (values.help || positionals.length > 1) {
    return usageExit(
      'Usage: bullpen repo index [PATH] [--repository-id ID] [--json]\n\n' +
        "Builds the file dependency graph of the repository at PATH (default .): JavaScript and TypeScript with the\n" +
        "TypeScript compiler (tsconfig paths honoured), Python and Go with tree-sitter. Uploads it in batches to the\n" +
        "repository (--repository-id, else the one PATH's git remote registers), marked with HEAD; the new graph\n" +
        'replaces the previous one atomically. Needs BULLPEN_API_KEY; BULLPEN_URL defaults to the running server.',
      !!values.help,
      values.help ? console.log : console.error,
    );
  }
  const path = await import('node:path');
  const root = path.resolve(positionals[0] ?? '.');
  const [{ indexRepository }, { gitContext }] = await Promise.all([import('./code-graph'), import('./git')]);
  const repo = await gitContext(root);
  return overConnection('repo index', values.json, (call, out) =>
    indexRepository({ root, call, repositoryId: values['repository-id'], remote: repo?.remote ?? null, commit: repo?.head ?? null, out }),
  );
}

async function knowledgeSync(argv: string[]): Promise<number> {
  const { values, positionals } = commandArgs(argv, { source: { type: 'string', short: 's' }, project: { type: 'string', short: 'p' }, sensitive: { type: 'boolean' }, json: { type: 'boolean' } }, true);
  if (values.help || positionals.length !== 1 || !values.source) {
    return usageExit(
      'Usage: bullpen knowledge sync PATH --source NAME [--project KEY] [--sensitive] [--json]\n\n' +
        'Indexes the Markdown and text files under PATH (.md, .markdown, .mdx, .txt; dot folders and node_modules skipped)\n' +
        'as the source NAME: documents cut into chunks along their headings, embedded in the background and found by\n' +
        'knowledge_search {types: ["chunk"]}. Only changed files are sent (content hash); a vanished file is tombstoned.\n' +
        'Two syncs of one source never run at once. --sensitive marks every document of the source sensitive: only keys\n' +
        'with the sensitive scope (and people in the console) see them, and only such a key syncs the source again.\n' +
        'Needs BULLPEN_API_KEY; BULLPEN_URL defaults to the running server.',
      !!values.help,
      values.help ? console.log : console.error,
    );
  }
  const { syncSource } = await import('./knowledge-sync');
  // another sync of the source holds its lock: retry once it is done
  return overConnection(
    'knowledge sync',
    values.json,
    (call, out) => syncSource({ dir: positionals[0], source: values.source!, project: values.project, sensitive: values.sensitive, call, out }),
    /UNAVAILABLE|BUSY|INTERNAL|CONFLICT/,
  );
}

async function knowledgeSources(argv: string[]): Promise<number> {
  const { values } = commandArgs(argv, { project: { type: 'string', short: 'p' }, json: { type: 'boolean' } });
  if (values.help) return usageExit('Usage: bullpen knowledge sources [--project KEY] [--json]', true, console.log);
  const key = agentKeyFromEnv();
  if (!key) return EXIT.USAGE;
  const { formatSources } = await import('./knowledge-sync');
  const conn = await connectTools(key);
  try {
    const env = await conn.call('source_list', values.project ? { project_id: values.project } : {});
    if (values.json) console.log(JSON.stringify(env));
    else if (env.ok) console.log(formatSources(env.sources as Record<string, unknown>[]));
    else console.error(`bullpen: knowledge sources: ${env.error!.code}: ${env.error!.message}`);
    return env.ok ? EXIT.OK : EXIT.FAILED;
  } finally {
    await conn.close();
  }
}

/** Runs the CLI; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [cmd, sub, ...rest] = argv;
  try {
    if (!cmd || cmd === 'help' || cmd === '--help' || cmd === '-h') {
      console.log(HELP());
      return EXIT.OK;
    }
    if (cmd === 'start') return await startCmd(argv.slice(1));
    if (cmd === 'agent' && sub === 'add') return await agentAdd(rest);
    if (cmd === 'agent' && sub in STATUS_VERBS) return await agentStatus(sub as keyof typeof STATUS_VERBS, rest);
    if (cmd === 'key') return await (await import('./keys')).keyCommand(sub, rest);
    if (cmd === 'human' && sub === 'invite') return await (await import('./human')).humanInvite(rest);
    if (cmd === 'skills' && sub === 'sync') return await skillsSync(rest);
    if (cmd === 'knowledge' && sub === 'sync') return await knowledgeSync(rest);
    if (cmd === 'knowledge' && sub === 'sources') return await knowledgeSources(rest);
    if (cmd === 'repo' && sub === 'index') return await repoIndex(rest);
    if (cmd === 'backup') return await (await import('./data')).backupCmd(argv.slice(1));
    if (cmd === 'restore') return await (await import('./data')).restoreCmd(argv.slice(1));
    if (cmd === 'export') return await (await import('./data')).exportCmd(argv.slice(1));
    if (cmd === 'import') return await (await import('./data')).importCmd(argv.slice(1));
    const found = findTool(argv);
    if (found) return await runTool(found.tool, argv.slice(found.used));
    console.error(`bullpen: unknown command: ${argv.join(' ')}\n\n${HELP()}`);
    return EXIT.USAGE;
  } catch (err) {
    console.error(`bullpen: ${(err as Error).message}`);
    return EXIT.FAILED;
  }
}
