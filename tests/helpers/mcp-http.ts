import { post, rpc } from '../../scripts/fuzz/run';
import type { Answer } from './queue';

/**
 * Agents and people against a started `bullpen start`, over plain HTTP: what the pg suite's
 * multi-instance and fault tests drive.
 */

/**
 * A tool call over HTTP (JSON-RPC POST to /api/mcp). A refusal before the tool ran (429, 503)
 * carries its envelope in the JSON-RPC error's data and comes back as that envelope; an answer that
 * is no tool result at all (a dropped connection, a bare 5xx) is null.
 */
export async function toolOverHttp(url: string, key: string, name: string, args: Record<string, unknown>): Promise<Answer | null> {
  const a = await rpc(url, key, 'tools/call', { name, arguments: args });
  try {
    const body = JSON.parse(a.body);
    if (a.status === 200 && body.result) return JSON.parse(body.result.content[0].text) as Answer;
    if (body.error?.data?.error) return body.error.data as Answer;
  } catch {}
  return null;
}

/** An agent key in a workspace, minted through the admin route `bullpen agent add` uses. */
export async function agentKey(server: { url: string; adminToken: string }, name: string, workspace = 'default'): Promise<{ key: string; actorId: string }> {
  const a = await post(server.url, '/api/admin/agents', JSON.stringify({ name, workspace }), { 'x-bullpen-admin-token': server.adminToken });
  if (a.status !== 200) throw new Error(`agent add: HTTP ${a.status} ${a.body.slice(0, 200)}`);
  const r = JSON.parse(a.body);
  return { key: r.api_key, actorId: r.actor_id };
}

/** A console session cookie: a sign-in link from the admin route, spent the way the browser spends it. */
export async function sessionCookie(server: { url: string; adminToken: string }, name = 'Watcher', workspace = 'default'): Promise<string> {
  const a = await post(server.url, '/api/admin/humans', JSON.stringify({ name, workspace }), { 'x-bullpen-admin-token': server.adminToken });
  const { token } = JSON.parse(a.body) as { token: string };
  let res = await fetch(`${server.url}/auth/session`, { method: 'POST', body: new URLSearchParams({ token }), redirect: 'manual' });
  if (res.status === 404 || res.status === 405) res = await fetch(`${server.url}/auth/link?token=${encodeURIComponent(token)}`, { redirect: 'manual' });
  const cookie = res.headers.getSetCookie().find((c) => /^(__Host-)?bullpen_session=/.test(c));
  if (!cookie) throw new Error(`sign-in set no session cookie (HTTP ${res.status})`);
  return cookie.split(';')[0];
}
