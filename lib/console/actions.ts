'use server';

import { headers } from 'next/headers';
import { getSession, SIGNED_OUT } from '@/lib/console/auth';
import { addComment, admitPerson, createAgent, inviteHumanAs, mintAgentKey, revokeAgentKey, runTool, triageFeatureRequest, type Who } from '@/lib/console/ops';
import { signInUrl } from '@/lib/console/signin';
import type { Envelope } from '@/lib/core/execute';
import { getDb } from '@/lib/db';
import { config } from '@/lib/server/config';

/**
 * The console's writes. Thin on purpose: resolve the session (every action requires one), then call
 * the same executor every surface uses, under the human's own claims. Owner-only administration is
 * checked inside lib/console/ops before it touches lib/server/workspace.
 */

const signedOut: Envelope = SIGNED_OUT;

/** The signed-in person, or the envelope that refuses the call: signed out, or over their rate limit. */
async function who(): Promise<Who | Envelope> {
  const s = await getSession();
  if (!s) return signedOut;
  const db = await getDb();
  return (await admitPerson(db, s)) ?? { db, claims: s.claims };
}

function refused(w: Who | Envelope): w is Envelope {
  return 'ok' in w;
}

async function origin(): Promise<string> {
  const fixed = config.publicUrl();
  if (fixed) return fixed;
  const h = await headers();
  const host = h.get('x-forwarded-host') ?? h.get('host') ?? 'localhost:3000';
  const proto = h.get('x-forwarded-proto') ?? (host.startsWith('localhost') || host.startsWith('127.') ? 'http' : 'https');
  return `${proto}://${host}`;
}

/** Runs any registry tool (task_update, task_create, …) as the signed-in human. */
export async function runToolAction(tool: string, input: unknown): Promise<Envelope> {
  const w = await who();
  return refused(w) ? w : runTool(w, tool, input);
}

/** Adds a comment to a task or project thread. */
export async function addCommentAction(input: unknown): Promise<Envelope> {
  const w = await who();
  return refused(w) ? w : addComment(w, input);
}

/** Owners: registers an agent and mints its key (shown once), with the MCP URL to connect it. */
export async function createAgentAction(input: unknown): Promise<Envelope> {
  return withMcpUrl(createAgent, input);
}

/** Owners: mints another key for an agent. */
export async function mintKeyAction(input: unknown): Promise<Envelope> {
  return withMcpUrl(mintAgentKey, input);
}

/** Runs a key-minting operation as the signed-in human and adds the MCP URL the key connects to. */
async function withMcpUrl(op: (w: Who, input: unknown) => Promise<Envelope>, input: unknown): Promise<Envelope> {
  const w = await who();
  if (refused(w)) return w;
  const env = await op(w, input);
  return env.ok ? { ...env, mcp_url: `${await origin()}/api/mcp` } : env;
}

/** Owners: revokes a key; the agent's next MCP call with it is answered 401. */
export async function revokeKeyAction(input: unknown): Promise<Envelope> {
  const w = await who();
  return refused(w) ? w : revokeAgentKey(w, input);
}

/** Owners: invites a human; returns the one-time sign-in link. */
export async function inviteHumanAction(input: unknown): Promise<Envelope> {
  const w = await who();
  if (refused(w)) return w;
  const env = await inviteHumanAs(w, input);
  if (!env.ok) return env;
  const { token, ...rest } = env as { ok: true; token: string } & Record<string, unknown>;
  return { ...rest, ok: true, url: signInUrl(await origin(), token) };
}

/** Owners: moves a feature request's status (open → accepted → in_progress → shipped | declined); the filer is told. */
export async function triageFeatureRequestAction(input: unknown): Promise<Envelope> {
  const w = await who();
  return refused(w) ? w : triageFeatureRequest(w, input);
}
