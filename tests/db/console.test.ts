import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute } from '../../lib/core/execute';
import { ChangeHub } from '../../lib/console/hub';
import { liveStream } from '../../lib/console/live-stream';
import {
  actorsOverview,
  addComment,
  changeHead,
  changeReplay,
  createAgent,
  inviteHumanAs,
  mintAgentKey,
  revokeAgentKey,
  type Who,
} from '../../lib/console/ops';
import { consumeSignInToken, createSignInToken, hasSignedIn, inviteHuman } from '../../lib/console/signin';
import { humanForSupabaseUser } from '../../lib/console/supabase';
import { authenticateKey } from '../../lib/server/auth';
import { ensureActor, mintKey } from '../../lib/server/workspace';
import type { ChangeEvent } from '../../lib/db/types';
import { actorOverview } from '../../lib/core/rows';
import { fails, freshDb, ok, seedTenant, target, type Tenant, type TestDb } from '../helpers/db';

/**
 * The console's database side: sign-in links, comment_add, the live-feed reads (head, replay with
 * its overlap window, the activity page, the actors page) and owner-only administration, each
 * proven inside one workspace and walled off from another.
 */

let db: TestDb;
let A: Tenant;
let B: Tenant;
const who = (t: Tenant, as: 'human' | 'agent' = 'human'): Who => ({ db, claims: t[as].claims });

beforeAll(async () => {
  db = await freshDb();
  A = await seedTenant(db, 'con-a');
  B = await seedTenant(db, 'con-b');
  ok(await A.agent.call('project_create', { title: 'Console A', key: 'CA' }));
  ok(await A.agent.call('task_create', { project_id: 'CA', title: 'a task', acceptance_criteria: ['done right'] }));
  ok(await B.agent.call('project_create', { title: 'Console B', key: 'CB' }));
  ok(await B.agent.call('task_create', { project_id: 'CB', title: 'b task' }));
});

afterAll(async () => {
  await db.drop();
});

describe('sign-in tokens', () => {
  it('sign a human in once, then never again', async () => {
    const { token, expires_at } = await createSignInToken(db, { tenantId: A.id, actorId: A.human.id });
    expect(token).toMatch(/^bpsi_[A-Za-z0-9_-]{43}$/);
    expect(new Date(expires_at).getTime()).toBeGreaterThan(Date.now() + 23 * 3600_000);
    expect(await hasSignedIn(db, A.id, A.human.id)).toBe(false);
    const first = await consumeSignInToken(db, token);
    expect(first).toMatchObject({ tenant_id: A.id, actor_id: A.human.id, tenant_slug: 'con-a' });
    expect(await consumeSignInToken(db, token)).toBeNull();
    expect(await hasSignedIn(db, A.id, A.human.id)).toBe(true);
    // the sign-in is on the record, as an activity row (so also on the live feed)
    const feed = ok(await execute(who(A), 'activity_query', { actor_id: A.human.id }));
    expect(feed.activity[0]).toMatchObject({ verb: 'actor.signed_in', actor_id: A.human.id });
  });

  it('refuse expired, unknown, malformed tokens and tokens for agents', async () => {
    const { token } = await createSignInToken(db, { tenantId: A.id, actorId: A.human.id, ttlSeconds: 60 });
    await db.query(`update bullpen.signin_tokens set created_at = now() - interval '2 hours', expires_at = now() - interval '1 hour' where used_at is null`);
    expect(await consumeSignInToken(db, token)).toBeNull();
    expect(await consumeSignInToken(db, `bpsi_${'x'.repeat(43)}`)).toBeNull();
    expect(await consumeSignInToken(db, 'not-a-token')).toBeNull();
    expect(await consumeSignInToken(db, null)).toBeNull();
    await expect(createSignInToken(db, { tenantId: A.id, actorId: A.agent.id })).rejects.toThrow(/human/);
    // an actor of another workspace cannot be named with this workspace's id
    await expect(createSignInToken(db, { tenantId: A.id, actorId: B.human.id })).rejects.toThrow(/human/);
  });

  it('live in a table with forced RLS that no API role can read a hash from, or read across workspaces', async () => {
    const [t] = await db.query<{ rls: boolean; forced: boolean }>(
      `select relrowsecurity as rls, relforcerowsecurity as forced from pg_class where oid = 'bullpen.signin_tokens'::regclass`,
    );
    expect(t).toEqual({ rls: true, forced: true });
    await createSignInToken(db, { tenantId: B.id, actorId: B.human.id });
    const own = await db.withClaims<{ n: number }>(A.human.claims, `select count(*)::int as n from bullpen.signin_tokens`);
    const [{ total }] = await db.query<{ total: number }>(`select count(*)::int as total from bullpen.signin_tokens where tenant_id = $1`, [A.id]);
    expect(own[0].n).toBe(total);
    const across = await db.withClaims<{ n: number }>(B.human.claims, `select count(*)::int as n from bullpen.signin_tokens where tenant_id = '${A.id}'`);
    expect(across[0].n).toBe(0);
    await expect(db.withClaims(A.human.claims, `select token_hash from bullpen.signin_tokens`)).rejects.toMatchObject({ code: '42501' });
    await expect(
      db.withClaims(A.human.claims, `insert into bullpen.signin_tokens (tenant_id, actor_id, token_hash, expires_at) values ('${A.id}', '${A.human.id}', '${'a'.repeat(64)}', now() + interval '1 day')`),
    ).rejects.toMatchObject({ code: '42501' });
    await expect(db.withClaims(A.human.claims, `select * from bullpen.consume_signin_token('${'a'.repeat(64)}')`)).rejects.toMatchObject({ code: '42501' });
  });

  it('invite people: the first human of a new workspace owns it; inviting again re-issues a link and revokes the older one', async () => {
    const first = await inviteHuman(db, { name: 'Nora North', workspace: 'con-new' });
    expect(first).toMatchObject({ created_workspace: true, created_actor: true, is_owner: true, display_name: 'Nora North' });
    const second = await inviteHuman(db, { name: 'Omar Ortiz', workspace: 'con-new' });
    expect(second).toMatchObject({ created_workspace: false, created_actor: true, is_owner: false });
    const again = await inviteHuman(db, { name: 'Nora North', workspace: 'con-new' });
    expect(again).toMatchObject({ actor_id: first.actor_id, created_actor: false, is_owner: true });
    expect(again.token).not.toBe(first.token);
    expect(await consumeSignInToken(db, first.token)).toBeNull();
    expect((await consumeSignInToken(db, again.token))?.actor_id).toBe(first.actor_id);
  });
});

describe('comment_add', () => {
  it('adds a comment to a task thread and logs it against the task', async () => {
    const env = ok(await addComment(who(A), { object_type: 'task', object_id: 'CA-1', body: 'Please check the **edge** case' }));
    expect(env.comment).toMatchObject({ object_type: 'task', author_actor_id: A.human.id, author_kind: 'human', body: 'Please check the **edge** case' });
    const task = ok(await A.agent.call('task_get', { task_id: 'CA-1' }));
    expect(task.comments.map((c: { body: string }) => c.body)).toContain('Please check the **edge** case');
    expect(task.activity[0]).toMatchObject({ verb: 'comment.added', actor_id: A.human.id });
    expect(task.activity[0].summary).toContain('CA-1');
  });

  it('replies, mentions, and comments on a project', async () => {
    const root = ok(await addComment(who(A), { object_type: 'task', object_id: 'CA-1', body: 'root' }));
    const reply = ok(await addComment(who(A, 'agent'), { object_type: 'task', object_id: 'CA-1', body: 'on it', parent_comment_id: root.comment_id, mentions: [A.human.id] }));
    expect(reply.comment).toMatchObject({ parent_comment_id: root.comment_id, mentions: [A.human.id], author_kind: 'agent' });
    const onProject = ok(await addComment(who(A), { object_type: 'project', object_id: 'CA', body: 'kickoff notes' }));
    expect(onProject.comment.object_type).toBe('project');
  });

  it('replays a retry with the same idempotency key and refuses the key for other input', async () => {
    const one = ok(await addComment(who(A), { object_type: 'task', object_id: 'CA-1', body: 'once', idempotency_key: 'c-1' }));
    const two = ok(await addComment(who(A), { object_type: 'task', object_id: 'CA-1', body: 'once', idempotency_key: 'c-1' }));
    expect(two.comment_id).toBe(one.comment_id);
    expect(two.idempotent_replay).toBe(true);
    fails(await addComment(who(A), { object_type: 'task', object_id: 'CA-1', body: 'twice', idempotency_key: 'c-1' }), 'IDEMPOTENCY_CONFLICT');
  });

  it('validates its input and names the field', async () => {
    expect(fails(await addComment(who(A), { object_type: 'task', object_id: 'CA-1', body: '   ' }), 'VALIDATION_ERROR').message).toContain('body');
    expect(fails(await addComment(who(A), { object_type: 'repository', object_id: 'CA-1', body: 'x' }), 'VALIDATION_ERROR').message).toContain('object_type');
    expect(fails(await addComment(who(A), { object_type: 'decision', object_id: 'CA-1', body: 'x' }), 'VALIDATION_ERROR').message).toContain('object_id');
    expect(fails(await addComment(who(A), { object_type: 'task', object_id: 'CA-1', body: 'x', colour: 'red' }), 'VALIDATION_ERROR').message).toContain('colour');
    const other = ok(await addComment(who(A), { object_type: 'project', object_id: 'CA', body: 'elsewhere' }));
    expect(fails(await addComment(who(A), { object_type: 'task', object_id: 'CA-1', body: 'x', parent_comment_id: other.comment_id }), 'VALIDATION_ERROR').message).toContain('another thread');
    fails(await addComment(who(A), { object_type: 'task', object_id: 'CA-99', body: 'x' }), 'NOT_FOUND');
  });

  it('refuses a caller without an actor', async () => {
    fails(await addComment({ db, claims: { ...A.human.claims, actor_id: '', sub: '' } }, { object_type: 'task', object_id: 'CA-1', body: 'x' }), 'UNAUTHENTICATED');
  });

  it("reads another workspace's task, project, parent comment and mentions as NOT_FOUND", async () => {
    const aTask = ok(await A.agent.call('task_get', { task_id: 'CA-1' })).task.id as string;
    const aComment = ok(await addComment(who(A), { object_type: 'task', object_id: aTask, body: 'private' })).comment_id as string;
    const bTask = ok(await B.agent.call('task_get', { task_id: 'CB-1' })).task.id as string;
    const attempts: Record<string, unknown>[] = [
      { object_type: 'task', object_id: aTask, body: 'intrude' },
      { object_type: 'task', object_id: 'CA-1', body: 'intrude' },
      { object_type: 'project', object_id: 'CA', body: 'intrude' },
      { object_type: 'task', object_id: bTask, body: 'reply', parent_comment_id: aComment },
      { object_type: 'task', object_id: bTask, body: 'mention', mentions: [A.human.id] },
    ];
    for (const input of attempts) fails(await addComment(who(B), input), 'NOT_FOUND');
    const [{ n }] = await db.query<{ n: number }>(`select count(*)::int as n from public.comments where tenant_id = $1`, [B.id]);
    expect(n).toBe(0);
  });
});

describe('live feed reads', () => {
  it('change_head is the newest seq of the caller’s own workspace', async () => {
    const headA = await changeHead(who(A));
    const headB = await changeHead(who(B));
    const [{ a, b }] = await db.query<{ a: string; b: string }>(
      `select (select max(id) from public.activity where tenant_id = $1) as a, (select max(id) from public.activity where tenant_id = $2) as b`,
      [A.id, B.id],
    );
    expect([headA, headB]).toEqual([Number(a), Number(b)]);
  });

  it('change_replay returns what came after, oldest first, never another workspace’s', async () => {
    const head = await changeHead(who(A));
    ok(await A.agent.call('task_create', { project_id: 'CA', title: 'after head' }));
    ok(await B.agent.call('task_create', { project_id: 'CB', title: 'b after head' }));
    ok(await A.agent.call('task_claim', { task_id: 'CA-1' }));
    const { events, truncated } = await changeReplay(who(A), head);
    expect(truncated).toBe(false);
    const fresh = events.filter((e) => e.seq > head);
    expect(fresh.map((e) => e.verb)).toEqual(['task.created', 'task.claimed']);
    expect(events.every((e) => e.tenant_id === A.id)).toBe(true);
    expect(events.map((e) => e.seq)).toEqual([...events.map((e) => e.seq)].sort((x, y) => x - y));
    // the overlap: recent events at or before the resume point come too (clients drop what they have)
    expect(events.some((e) => e.seq <= head)).toBe(true);
    const b = await changeReplay(who(B), head);
    expect(b.events.every((e) => e.tenant_id === B.id)).toBe(true);
    expect(b.events.some((e) => e.tenant_id === A.id)).toBe(false);
  });

  it('change_replay catches an event that committed after a later one (out of seq order)', async () => {
    // Three ids drawn from the activity sequence, as three concurrent writers would draw them;
    // the largest commits (and is seen) first, the others land after it.
    const S = await seedTenant(db, 'con-s');
    const [{ x, a, b }] = await db.query<{ x: string; a: string; b: string }>(
      `select nextval(pg_get_serial_sequence('public.activity', 'id')) as x,
              nextval(pg_get_serial_sequence('public.activity', 'id')) as a,
              nextval(pg_get_serial_sequence('public.activity', 'id')) as b`,
    );
    const stage = (id: string, summary: string, ago: string) =>
      db.query(
        `insert into public.activity (id, tenant_id, actor_id, verb, object_type, summary, at)
         overriding system value values ($1, $2, $3, 'task.updated', 'task', $4, now() - $5::interval)`,
        [id, S.id, S.agent.id, summary, ago],
      );
    await stage(b, 'seen', '0 seconds');
    const seen = Number(b);
    expect((await changeReplay(who(S), seen)).events.map((e) => e.seq)).not.toContain(Number(a));
    await stage(a, 'straggler', '2 seconds');
    expect((await changeReplay(who(S), seen)).events.map((e) => e.seq)).toContain(Number(a));
    // an event far older than the window is not repeated
    await stage(x, 'ancient', '10 minutes');
    expect((await changeReplay(who(S), seen)).events.map((e) => e.seq)).not.toContain(Number(x));
  });

  it('change_replay says when too much was missed to replay', async () => {
    const res = await changeReplay(who(A), 0, 3);
    expect(res.truncated).toBe(true);
    expect(res.events).toHaveLength(3);
  });

  it('the activity page reads the log through activity_query: filters, pages, and stays in its workspace', async () => {
    const q = (w: ReturnType<typeof who>, input: Record<string, unknown>) => execute(w, 'activity_query', input);
    const all = ok(await q(who(A), { limit: 5 }));
    expect(all.activity).toHaveLength(5);
    expect(all.activity.every((i: { seq: number }, k: number, arr: { seq: number }[]) => k === 0 || arr[k - 1].seq > i.seq)).toBe(true);
    const next = ok(await q(who(A), { limit: 5, cursor: all.next_cursor }));
    expect(next.activity[0].seq).toBeLessThan(all.activity[4].seq);
    const projectId = ok(await A.agent.call('project_brief', { project: 'CA' })).project.id;
    const byProject = ok(await q(who(A), { project_id: projectId, limit: 200 }));
    expect(byProject.activity.length).toBeGreaterThan(2);
    expect(byProject.activity.every((i: { project_id: string }) => i.project_id === projectId)).toBe(true);
    expect(byProject.activity.find((i: { verb: string }) => i.verb === 'task.created')).toMatchObject({ task_ref: expect.stringMatching(/^CA-\d+$/), project_key: 'CA' });
    expect(ok(await q(who(A), { project_id: 'CA', limit: 200 })).activity).toEqual(byProject.activity);
    const byActor = ok(await q(who(A), { actor_id: A.agent.id, limit: 200 }));
    expect(byActor.activity.every((i: { actor_id: string; actor_kind: string }) => i.actor_id === A.agent.id && i.actor_kind === 'agent')).toBe(true);
    // B naming A's project or actor is told they do not exist, never shown A's rows
    fails(await q(who(B), { project_id: projectId }), 'NOT_FOUND');
    fails(await q(who(B), { actor_id: A.agent.id }), 'NOT_FOUND');
    const bAll = ok(await q(who(B), { limit: 200 }));
    expect(JSON.stringify(bAll)).not.toContain(A.id);
    expect(JSON.stringify(bAll)).not.toContain('Console A');
    expect(fails(await q(who(A), { cursor: 'bm90LWEtc2Vx' }), 'VALIDATION_ERROR').message).toContain('cursor');
  });

  it('the actors page lists the workspace’s actors with open tasks, live claim and keys', async () => {
    await mintKey(db, A.id, A.agent.id, 'page key');
    const env = ok(await actorsOverview(who(A)));
    // the console's ActorOverview type is inferred from this schema: the rows must match it
    actorOverview.array().parse(env.actors);
    const agent = env.actors.find((a: { id: string }) => a.id === A.agent.id);
    expect(agent.open_tasks).toBeGreaterThanOrEqual(1);
    expect(agent.current_claim).toMatchObject({ ref: 'CA-1', project_key: 'CA' });
    expect(agent.keys[0]).toMatchObject({ label: 'page key', revoked_at: null });
    expect(agent.keys[0]).not.toHaveProperty('key_hash');
    expect(env.actors.every((a: { id: string }) => a.id !== B.agent.id && a.id !== B.human.id)).toBe(true);
    const bEnv = ok(await actorsOverview(who(B)));
    expect(bEnv.actors.map((a: { id: string }) => a.id).sort()).toEqual([B.agent.id, B.human.id].sort());
  });

  it('a live stream replays, then goes live, with each seq once; another workspace’s events never reach it', async () => {
    const hub = new ChangeHub();
    const unlisten = await db.listen('bullpen_changes', (p) => hub.dispatch(p));
    const head = await changeHead(who(A));
    ok(await A.agent.call('task_create', { project_id: 'CA', title: 'missed while away' }));
    const ac = new AbortController();
    const reader = liveStream({ who: who(A), hub, resume: head, signal: ac.signal, heartbeatMs: 60_000 }).getReader();
    const dec = new TextDecoder();
    let text = '';
    const until = async (pred: () => boolean) => {
      const deadline = Date.now() + 10_000;
      while (!pred() && Date.now() < deadline) {
        const chunk = await Promise.race([reader.read(), new Promise<null>((r) => setTimeout(() => r(null), 500))]);
        if (!chunk) continue;
        if (chunk.done) break;
        text += dec.decode(chunk.value);
      }
    };
    await until(() => text.includes('event: ready'));
    ok(await B.agent.call('task_create', { project_id: 'CB', title: 'B must not leak' }));
    ok(await A.agent.call('task_create', { project_id: 'CA', title: 'live one' }));
    const events = () =>
      text
        .split('\n\n')
        .filter((b) => b.includes('event: change'))
        .map((b) => JSON.parse(b.split('\n').find((l) => l.startsWith('data: '))!.slice(6)) as ChangeEvent);
    await until(() => events().filter((e) => e.seq > head && e.verb === 'task.created').length >= 2);
    ac.abort();
    const got = events();
    expect(got.every((e) => e.tenant_id === A.id)).toBe(true);
    expect(new Set(got.map((e) => e.seq)).size).toBe(got.length);
    expect(got.filter((e) => e.seq > head && e.verb === 'task.created')).toHaveLength(2);
    expect(text).toMatch(/event: ready\ndata: \{"head":\d+,"resumed":true/);
    expect(hub.subscribers()).toBe(0);
    await unlisten();
  });
});

describe('owner-only administration', () => {
  it('an owner connects an agent: its key authenticates as that agent, once revoked it does not', async () => {
    const scoped = ok(await createAgent(who(A), { name: 'Scoped Console Agent', scopes: 'tasks:read', expires_in_days: 7 }));
    expect(scoped.scopes).toEqual(['tasks:read']);
    expect(new Date(scoped.expires_at).getTime()).toBeGreaterThan(Date.now() + 6 * 86400_000);
    expect((await authenticateKey(db, scoped.api_key, null))?.scopes).toEqual(['tasks:read']);
    const typo = fails(await createAgent(who(A), { name: 'Typo Agent', scopes: 'taskz' }), 'VALIDATION_ERROR');
    expect(typo.message).toContain('scopes');
    expect(typo.details).toEqual({ fields: ['scopes'] });
    const made = ok(await createAgent(who(A), { name: 'Console Agent' }));
    expect(made.api_key).toMatch(/^bp_live_/);
    const id = await authenticateKey(db, made.api_key, null);
    expect(id?.claims).toMatchObject({ tenant_id: A.id, actor_id: made.actor_id, kind: 'agent' });
    const rotated = ok(await mintAgentKey(who(A), { actor_id: made.actor_id }));
    expect(rotated.api_key).not.toBe(made.api_key);
    const revoked = ok(await revokeAgentKey(who(A), { key_id: made.key_id }));
    expect(revoked).toMatchObject({ revoked: true });
    expect(await authenticateKey(db, made.api_key, null)).toBeNull();
    expect(await authenticateKey(db, rotated.api_key, null)).not.toBeNull();
    expect(ok(await revokeAgentKey(who(A), { key_id: made.key_id }))).toMatchObject({ revoked: false, already_revoked: true });
  });

  it('refuses members who are not owners', async () => {
    const member = await ensureActor(db, A.id, { kind: 'human', external_ref: 'human:member', display_name: 'Member' });
    const m: Who = { db, claims: { sub: member.id, role: 'authenticated', tenant_id: A.id, actor_id: member.id, kind: 'human' } };
    fails(await createAgent(m, { name: 'nope' }), 'FORBIDDEN');
    fails(await inviteHumanAs(m, { name: 'nope' }), 'FORBIDDEN');
    fails(await mintAgentKey(m, { actor_id: A.agent.id }), 'FORBIDDEN');
    fails(await revokeAgentKey(m, { key_id: '00000000-0000-4000-8000-000000000000' }), 'FORBIDDEN');
    // agents are not owners either, whatever their claims say
    fails(await createAgent(who(A, 'agent'), { name: 'nope' }), 'FORBIDDEN');
  });

  it("answers NOT_FOUND for another workspace's keys and agents, and leaves them alone", async () => {
    const bKey = await mintKey(db, B.id, B.agent.id, 'b key');
    fails(await revokeAgentKey(who(A), { key_id: bKey.key_id }), 'NOT_FOUND');
    fails(await mintAgentKey(who(A), { actor_id: B.agent.id }), 'NOT_FOUND');
    expect(await authenticateKey(db, bKey.api_key, null)).not.toBeNull();
    fails(await mintAgentKey(who(A), { actor_id: A.human.id }), 'VALIDATION_ERROR');
  });

  it('an owner invites a person into their own workspace only', async () => {
    const inv = ok(await inviteHumanAs(who(A), { name: 'Pat Ng', email: 'pat@example.com' }));
    const signedIn = await consumeSignInToken(db, inv.token);
    expect(signedIn).toMatchObject({ tenant_id: A.id, actor_id: inv.actor_id });
    const [row] = await db.query<{ external_ref: string; is_owner: boolean }>(`select external_ref, is_owner from public.actors where id = $1`, [inv.actor_id]);
    expect(row).toEqual({ external_ref: 'email:pat@example.com', is_owner: false });
    fails(await inviteHumanAs(who(A), { name: 'x', email: 'not-an-email' }), 'VALIDATION_ERROR');
  });
});

describe('Supabase users map to human actors', () => {
  it('links an invited email on first sign-in, then finds the human by auth user id', async () => {
    const inv = await inviteHuman(db, { name: 'Quinn', email: 'Quinn@Example.com', workspace: 'con-a' });
    const authUser = '3f0e8f6e-6c1b-4a43-9a8e-111111111111';
    const verified = { email_verified: true };
    const first = await humanForSupabaseUser(db, { sub: authUser, role: 'authenticated', email: 'quinn@example.com', exp: 0, user_metadata: verified });
    expect(first).toMatchObject({ tenant_id: A.id, actor_id: inv.actor_id, sub: authUser });
    const [row] = await db.query<{ auth_user_id: string }>(`select auth_user_id from public.actors where id = $1`, [inv.actor_id]);
    expect(row.auth_user_id).toBe(authUser);
    // later sign-ins need no email
    expect(await humanForSupabaseUser(db, { sub: authUser, role: 'authenticated', exp: 0 })).toMatchObject({ actor_id: inv.actor_id });
    // another auth user with the same email does not take the linked invitation over
    expect(await humanForSupabaseUser(db, { sub: '3f0e8f6e-6c1b-4a43-9a8e-222222222222', role: 'authenticated', email: 'quinn@example.com', exp: 0, user_metadata: verified })).toBeNull();
    // nobody invited: no actor
    expect(await humanForSupabaseUser(db, { sub: '3f0e8f6e-6c1b-4a43-9a8e-333333333333', role: 'authenticated', email: 'stranger@example.com', exp: 0, user_metadata: verified })).toBeNull();
  });

  it('links an invitation only to a verified email: the token says so, or the auth server confirms it', async () => {
    const inv = await inviteHuman(db, { name: 'Sam Sol', email: 'sam@example.com', workspace: 'con-a' });
    const squatter = { sub: '3f0e8f6e-6c1b-4a43-9a8e-555555555555', role: 'authenticated' as const, email: 'sam@example.com', exp: 0 };
    // signed up with the invited address, never confirmed it: no actor, nothing linked
    expect(await humanForSupabaseUser(db, squatter)).toBeNull();
    expect(await humanForSupabaseUser(db, { ...squatter, user_metadata: { email_verified: false } })).toBeNull();
    expect(await humanForSupabaseUser(db, squatter, null, async () => false)).toBeNull();
    // an anonymous user is never linked, whatever it claims
    expect(await humanForSupabaseUser(db, { ...squatter, is_anonymous: true, user_metadata: { email_verified: true } }, null, async () => true)).toBeNull();
    // a failing confirmation check is no confirmation
    expect(await humanForSupabaseUser(db, squatter, null, async () => Promise.reject(new Error('auth server down')))).toBeNull();
    const [still] = await db.query<{ auth_user_id: string | null }>(`select auth_user_id from public.actors where id = $1`, [inv.actor_id]);
    expect(still.auth_user_id).toBeNull();
    // the auth server confirms the address: linked
    const owner = { ...squatter, sub: '3f0e8f6e-6c1b-4a43-9a8e-666666666666' };
    expect(await humanForSupabaseUser(db, owner, null, async () => true)).toMatchObject({ actor_id: inv.actor_id });
  });

  it('prefers the workspace the user chose when they belong to several', async () => {
    const authUser = '3f0e8f6e-6c1b-4a43-9a8e-444444444444';
    const inA = await inviteHuman(db, { name: 'Rae', email: 'rae@example.com', workspace: 'con-a' });
    const inB = await inviteHuman(db, { name: 'Rae', email: 'rae@example.com', workspace: 'con-b' });
    const u = { sub: authUser, role: 'authenticated' as const, email: 'rae@example.com', exp: 0, user_metadata: { email_verified: true } };
    const picked = await humanForSupabaseUser(db, u, B.id);
    expect(picked).toMatchObject({ tenant_id: B.id, actor_id: inB.actor_id });
    expect(await humanForSupabaseUser(db, u, A.id)).toMatchObject({ tenant_id: A.id, actor_id: inA.actor_id });
  });

  it(`runs on ${target}`, () => {
    expect(['pg', 'pglite']).toContain(target);
  });
});
