import { describeScopes } from '../core/scopes';
import { findKey, listKeys, parseDuration, revokeKey, rotateKey, type KeyRow } from '../server/workspace';
import { commandArgs, printResult, usageExit } from './args';
import { adminStep } from './server-file';
import { EXIT } from './tools';

/**
 * `bullpen key list | revoke | rotate`: the operator's view of API keys, through the running
 * server's admin route when one runs (it holds the embedded database), else on the database.
 * Keys are named by id or by the prefix a listing prints; only hashes are stored.
 */

const USAGE = `Usage:
  bullpen key list [--workspace SLUG] [--all] [--json]
      live keys (--all: revoked and expired too) with actor, scopes, expiry and last use
  bullpen key revoke KEY [--workspace SLUG] [--json]
      ends a key at once (KEY: its id or printed prefix)
  bullpen key rotate KEY [--grace 1h] [--workspace SLUG] [--json]
      mints a replacement with the same actor, scopes and expiry; the old key keeps working for
      the grace period (default 1h), then expires`;

function when(iso: string | null): string {
  if (!iso) return '—';
  return iso.replace('T', ' ').replace(/:\d\d\.\d+Z$/, 'Z');
}

function table(rows: KeyRow[]): string {
  if (rows.length === 0) return 'No keys. Mint one with: bullpen agent add NAME [--scopes tasks:read] [--expires 30d]';
  const head = ['ID', 'PREFIX', 'WORKSPACE', 'ACTOR', 'SCOPES', 'STATE', 'EXPIRES', 'LAST USED'];
  const body = rows.map((k) => [k.id, k.prefix, k.workspace, k.actor, describeScopes(k.scopes), k.state, when(k.expires_at), when(k.last_used_at)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  return [head, ...body].map((r) => r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}

export async function keyCommand(sub: string | undefined, argv: string[]): Promise<number> {
  const { values, positionals } = commandArgs(argv, { workspace: { type: 'string', short: 'w' }, all: { type: 'boolean' }, grace: { type: 'string' }, json: { type: 'boolean' } }, true);
  if (values.help || !sub || !['list', 'revoke', 'rotate'].includes(sub)) {
    return usageExit(USAGE, !!values.help, values.help ? console.log : console.error);
  }
  if (sub === 'list') {
    if (positionals.length) return usageExit(USAGE, false);
    const { result } = await adminStep<{ keys: KeyRow[] }>('keys', { action: 'list', workspace: values.workspace, all: values.all }, async (db) => ({
      keys: await listKeys(db, { workspace: values.workspace, includeEnded: values.all }),
    }));
    return printResult(values.json, result, table(result.keys));
  }
  if (positionals.length !== 1) return usageExit(USAGE, false);
  const ref = positionals[0];
  if (sub === 'revoke') {
    const { result } = await adminStep<{ key_id: string; prefix: string; revoked: boolean }>('keys', { action: 'revoke', key: ref, workspace: values.workspace }, async (db) => {
      const k = await findKey(db, ref, values.workspace);
      return { key_id: k.id, prefix: k.prefix, revoked: await revokeKey(db, k.tenant_id, k.id) };
    });
    return printResult(values.json, result, result.revoked ? `Revoked ${result.prefix}… (${result.key_id}): its next call gets 401 (other instances on the database stop believing it within BULLPEN_KEY_CACHE_MS, 1 s).` : `${result.prefix}… (${result.key_id}) was already revoked.`);
  }
  let grace: number;
  try {
    grace = values.grace === undefined ? 3600 : values.grace === '0' ? 0 : parseDuration('--grace', values.grace);
  } catch (err) {
    console.error(`bullpen: ${(err as Error).message}`);
    return EXIT.USAGE;
  }
  const { result } = await adminStep<Awaited<ReturnType<typeof rotateKey>> & { actor: string; workspace: string }>(
    'keys',
    { action: 'rotate', key: ref, workspace: values.workspace, grace_seconds: grace },
    async (db) => {
      const k = await findKey(db, ref, values.workspace);
      return { ...(await rotateKey(db, k.tenant_id, k.id, grace)), actor: k.actor, workspace: k.workspace };
    },
  );
  return printResult(
    values.json,
    result,
    [
      `Rotated the key of ${result.actor} (workspace ${result.workspace}).`,
      '',
      `New API key (shown once, store it now): ${result.api_key}`,
      `  id ${result.key_id} · scopes ${describeScopes(result.scopes)} · expires ${when(result.expires_at)}`,
      `The old key ${result.old_key_id} keeps working until ${when(result.old_expires_at)}, then expires.`,
    ].join('\n'),
  );
}
