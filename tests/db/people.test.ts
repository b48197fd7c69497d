import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute } from '../../lib/core/execute';
import { createSignInToken, inviteHuman } from '../../lib/console/signin';
import { inviteHumanAs } from '../../lib/console/ops';
import { reapRuns } from '../../lib/jobs/reaper';
import { ensureActor } from '../../lib/server/workspace';
import { fails, freshDb, ok, seedTenant, type Actor, type Tenant, type TestDb } from '../helpers/db';
import { asRun } from '../helpers/runs';

/**
 * People and what agents say about themselves (issue 15, items 4, 9 and 14): only people create
 * people, display names are unique per kind, a run belongs to its actor, the log cannot be forged
 * or truncated, whoami shows what a key may read, notes and review answers are comments, comment_add
 * returns its mentions, and silent runs end idle.
 */

let db: TestDb;
let A: Tenant;
let B: Tenant;
beforeAll(async () => {
  db = await freshDb();
  A = await seedTenant(db);
  B = await seedTenant(db);
  ok(await A.human.call('project_create', { title: 'People', key: 'PPL' }));
  ok(await B.human.call('project_create', { title: 'Other', key: 'PPL' }));
});
afterAll(async () => {
  await db?.drop();
});

const root = path.resolve(import.meta.dirname, '..', '..');

describe('only people create people', () => {
  it('refuses an agent registering a human or an email: actor, and changes nothing', async () => {
    const e = fails(await A.agent.call('register_actor', { external_ref: 'person:mallory', kind: 'human', display_name: 'Mallory' }), 'FORBIDDEN');
    expect(e.message).toContain('only a workspace owner registers people');
    expect(e.details).toMatchObject({ fields: ['kind'] });
    const mail = fails(await A.agent.call('register_actor', { external_ref: 'email:victim@example.com', kind: 'agent' }), 'FORBIDDEN');
    expect(mail.message).toContain('external_ref');
    // the same from an agent of another workspace, naming this workspace's human
    fails(await B.agent.call('register_actor', { external_ref: `human:${A.slug}`, kind: 'human', display_name: 'Hijack' }), 'FORBIDDEN');
    const rows = await db.query<{ n: number }>(
      `select count(*)::int as n from public.actors where external_ref in ('person:mallory', 'email:victim@example.com') or display_name = 'Hijack'`,
    );
    expect(rows[0].n).toBe(0);
  });

  it('refuses a human who is not an owner, and lets an owner register a person', async () => {
    const plain = await ensureActor(db, A.id, { kind: 'human', external_ref: `human:plain-${A.slug}`, display_name: `Plain ${A.slug}` });
    const claims = { ...A.human.claims, sub: plain.id, actor_id: plain.id, run_id: `run-plain-${A.slug}` };
    fails(await execute({ db, claims }, 'register_actor', { external_ref: 'email:new@example.com', kind: 'human' }), 'FORBIDDEN');
    const made = ok(await A.human.call('register_actor', { external_ref: 'email:new@example.com', kind: 'human', display_name: 'New Person' }));
    expect(made).toMatchObject({ created: true, actor: { kind: 'human', external_ref: 'email:new@example.com' } });
  });
});

describe('display names are unique per kind', () => {
  it('refuses a name that reads as another actor of the same kind, ignoring case and spaces', async () => {
    const taken = `Agent ${A.slug}`;
    for (const name of [taken, taken.toUpperCase(), `  ${taken.replace(' ', '   ')} `, taken.replace(' ', ''), taken.replace(' ', ' \u200b')]) {
      const e = fails(await A.human.call('register_actor', { external_ref: `lookalike:${name.length}:${name.charCodeAt(1)}`, kind: 'agent', display_name: name }), 'ALREADY_EXISTS');
      expect(e.message).toContain('display_name');
      expect(e.message).toContain('unique per kind');
    }
    // another kind, or another workspace, may carry it
    ok(await A.human.call('register_actor', { external_ref: 'svc:lookalike', kind: 'service', display_name: taken }));
    ok(await B.human.call('register_actor', { external_ref: 'agent:lookalike', kind: 'agent', display_name: taken }));
  });

  it('refuses renaming onto another actor’s name, and keeps one’s own name in another case', async () => {
    const other = await A.addAgent('Rename Target');
    fails(await other.call('register_actor', { external_ref: `agent:${A.slug}:Rename Target`, kind: 'agent', display_name: `agent ${A.slug}` }), 'ALREADY_EXISTS');
    const own = ok(await other.call('register_actor', { external_ref: `agent:${A.slug}:Rename Target`, kind: 'agent', display_name: 'RENAME target' }));
    expect(own.actor.display_name).toBe('RENAME target');
  });

  it('holds in the database itself: the server path cannot insert a look-alike either', async () => {
    await expect(ensureActor(db, A.id, { kind: 'agent', external_ref: 'direct:lookalike', display_name: `AGENT${A.slug}` })).rejects.toMatchObject({
      code: '23505',
      constraint: 'actors_display_name_key',
    });
  });

  it('compares by the same key in the index and in bullpen.name_key()', async () => {
    const [{ def }] = await db.query<{ def: string }>(`select indexdef as def from pg_indexes where indexname = 'actors_display_name_key'`);
    const [{ src }] = await db.query<{ src: string }>(`select prosrc as src from pg_proc where proname = 'name_key'`);
    const pattern = (s: string) => /regexp_replace\([^,]+,\s*'([^']+)'/.exec(s)?.[1];
    expect(pattern(def)).toBeTruthy();
    expect(pattern(def)).toBe(pattern(src));
    const [{ same }] = await db.query<{ same: boolean }>(`select bullpen.name_key(' Bob\u200b  Smith ') = 'bobsmith' as same`);
    expect(same).toBe(true);
  });
});

describe('console invitations and sign-in links', () => {
  it('refuses a console invitation for a person who already signs in; the CLI may, and the log says who minted which link', async () => {
    const who = { db, claims: A.human.claims };
    const first = ok(await inviteHumanAs(who, { name: 'Ivy Invitee', email: 'ivy@example.com' }));
    // a fresh invitee has not signed in: inviting again just issues a new link
    ok(await inviteHumanAs(who, { name: 'Ivy Invitee', email: 'ivy@example.com' }));
    await db.query(`insert into public.activity (tenant_id, actor_id, verb, object_type, object_id, summary) values ($1, $2, 'actor.signed_in', 'actor', $2, 'signed in')`, [
      A.id,
      first.actor_id,
    ]);
    const refused = fails(await inviteHumanAs(who, { name: 'Ivy Invitee', email: 'IVY@example.com' }), 'FORBIDDEN');
    expect(refused.message).toContain('already signs in');
    expect(refused.hint).toContain('bullpen human invite');
    // an operator on the server machine still can
    const cli = await inviteHuman(db, { name: 'Ivy Invitee', email: 'ivy@example.com', tenantId: A.id });
    expect(cli.actor_id).toBe(first.actor_id);
    const log = await db.query<{ actor_id: string | null; metadata: { via: string; link_id: string; minted_by_actor_id: string | null } }>(
      `select actor_id, metadata from public.activity where tenant_id = $1 and verb = 'actor.signin_link_issued' and object_id = $2 order by id`,
      [A.id, first.actor_id],
    );
    expect(log.map((r) => r.metadata.via)).toEqual(['console', 'console', 'cli']);
    expect(log[0]).toMatchObject({ actor_id: A.human.id, metadata: { minted_by_actor_id: A.human.id } });
    expect(log[2]).toMatchObject({ actor_id: null, metadata: { minted_by_actor_id: null } });
    expect(new Set(log.map((r) => r.metadata.link_id)).size).toBe(3);
    const [{ n }] = await db.query<{ n: number }>(`select count(*)::int as n from bullpen.signin_tokens where id = $1`, [log[2].metadata.link_id]);
    expect(n).toBe(1);
  });

  it('logs a link minted at start as the server’s', async () => {
    await createSignInToken(db, { tenantId: B.id, actorId: B.human.id, mintedBy: { via: 'start' } });
    const [row] = await db.query<{ metadata: { via: string } }>(
      `select metadata from public.activity where tenant_id = $1 and verb = 'actor.signin_link_issued' order by id desc limit 1`,
      [B.id],
    );
    expect(row.metadata.via).toBe('start');
  });
});

describe('a run belongs to the actor that started it', () => {
  let owner: Actor;
  let intruder: Actor;
  beforeAll(async () => {
    owner = asRun(A.agent, { run_id: 'owned-run' });
    intruder = asRun(await A.addAgent('Intruder'), { run_id: 'owned-run' });
    ok(await owner.call('task_create', { project_id: 'PPL', title: 'mine' }));
  });

  it('refuses another actor’s writes, whoami and heartbeats under it', async () => {
    for (const [tool, input] of [
      ['task_create', { project_id: 'PPL', title: 'pushed into their run' }],
      ['comment_add', { object_type: 'project', object_id: 'PPL', body: 'pushed' }],
      ['activity_log', { verb: 'deploy.finished', summary: 'pushed' }],
      ['whoami', {}],
      ['run_heartbeat', {}],
    ] as const) {
      const e = fails(await intruder.call(tool, input), 'FORBIDDEN');
      expect(e.message, tool).toContain('belongs to another actor');
    }
    const [{ n }] = await db.query<{ n: number }>(`select count(*)::int as n from public.activity where tenant_id = $1 and run_id = 'owned-run' and actor_id <> $2`, [
      A.id,
      A.agent.id,
    ]);
    expect(n).toBe(0);
    expect(ok(await owner.call('run_summary', {})).run.actor_id).toBe(A.agent.id);
  });

  it('does not revive another actor’s ended run', async () => {
    await db.query(`update public.runs set last_active_at = now() - interval '2 hours' where tenant_id = $1 and run_key = 'owned-run'`, [A.id]);
    await reapRuns(db, { afterSeconds: 1800 });
    fails(await intruder.call('task_create', { project_id: 'PPL', title: 'revive it' }), 'FORBIDDEN');
    const [run] = await db.query<{ status: string }>(`select status from public.runs where tenant_id = $1 and run_key = 'owned-run'`, [A.id]);
    expect(run.status).toBe('idle');
  });

  it('is the run of its workspace alone: the same key in another workspace is another run', async () => {
    const there = asRun(B.agent, { run_id: 'owned-run' });
    ok(await there.call('task_create', { project_id: 'PPL', title: 'my own run of that name' }));
    const runs = await db.query<{ tenant_id: string; actor_id: string }>(`select tenant_id, actor_id from public.runs where run_key = 'owned-run' order by tenant_id`);
    expect(runs).toHaveLength(2);
    expect(runs.find((r) => r.tenant_id === B.id)?.actor_id).toBe(B.agent.id);
  });
});

/** Every verb the server writes, read out of the SQL and the server code. */
function serverVerbs(): string[] {
  const files: string[] = [];
  const walk = (dir: string, ext: RegExp) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p, ext);
      else if (ext.test(e.name) && !e.name.endsWith('.test.ts')) files.push(p);
    }
  };
  walk(path.join(root, 'supabase'), /\.sql$/);
  walk(path.join(root, 'lib'), /\.ts$/);
  const verbs = new Set<string>();
  for (const f of files) {
    const src = readFileSync(f, 'utf8');
    const sql = f.endsWith('.sql') || f.endsWith('.ts');
    if (!sql) continue;
    // bullpen.log('x.y', …), bullpen.log_aside(tenant, 'x.y', …), bullpen.notify(…, 'x.y', …)
    for (const m of src.matchAll(/bullpen\.(?:log|log_aside|notify|inbox_touch)\(([^;]*?)\)/gs)) {
      for (const v of m[1].matchAll(/'([a-z_]+\.[a-z_]+)'/g)) verbs.add(v[1]);
    }
    // insert into public.activity … 'x.y' … (the literal verbs of a direct insert)
    for (const m of src.matchAll(/insert into public\.activity[\s\S]{0,900}?(?:returning|;|`\s*,)/g)) {
      for (const v of m[0].matchAll(/'([a-z_]+\.[a-z_]+)'/g)) verbs.add(v[1]);
    }
    // case … then 'x.y' (computed verbs), and a notification's kind
    for (const v of src.matchAll(/then '([a-z_]+\.[a-z_]+)'|else '([a-z_]+\.[a-z_]+)' end/g)) verbs.add(v[1] ?? v[2]);
  }
  // config names and schema-qualified names are not verbs
  return [...verbs].filter((v) => !/^(bullpen|public|request|realtime|hnsw|patch|github|gitlab)\./.test(v)).sort();
}

describe('the log cannot be forged', () => {
  it('finds the server’s verbs in its sources', () => {
    const verbs = serverVerbs();
    for (const v of ['task.created', 'comment.added', 'review.requested', 'inbox.changed', 'run.abandoned', 'run.idle', 'actor.signed_in', 'actor.signin_link_issued', 'note.expired']) {
      expect(verbs, v).toContain(v);
    }
  });

  it('refuses every verb the server writes, and the families the issue names', async () => {
    const verbs = [...serverVerbs(), 'review.approved', 'inbox.acked', 'session.revoked', 'key.rotated', 'lease.broken', 'Task.Created'.toLowerCase()];
    for (const verb of verbs) {
      const e = fails(await A.agent.call('activity_log', { verb, summary: 'forged' }), 'VALIDATION_ERROR');
      expect(e.message, verb).toContain('written by Bullpen itself');
    }
    // a milestone of one's own still lands
    ok(await A.agent.call('activity_log', { verb: 'deploy.finished', summary: 'shipped' }));
  });

  it('refuses TRUNCATE of the activity table to every role, the server’s included', async () => {
    const [{ before }] = await db.query<{ before: number }>(`select count(*)::int as before from public.activity`);
    await expect(db.query(`truncate public.activity`)).rejects.toMatchObject({ message: expect.stringContaining('append-only') });
    await expect(db.query(`truncate public.tenants cascade`)).rejects.toMatchObject({ message: expect.stringContaining('append-only') });
    const [{ after }] = await db.query<{ after: number }>(`select count(*)::int as after from public.activity`);
    expect(after).toBe(before);
  });
});

describe('whoami shows what a key may read', () => {
  it('leaves out the activity of rooms outside a key’s scopes', async () => {
    const t = await seedTenant(db);
    const reader = t.agent;
    ok(await reader.call('whoami', {}));
    const [{ since }] = await db.query<{ since: string }>(`select last_seen_at::text as since from public.actors where id = $1`, [reader.id]);
    ok(await t.human.call('project_create', { title: 'Scoped', key: 'SCP' }));
    ok(await t.human.call('task_create', { project_id: 'SCP', title: 'visible to tasks:read' }));
    ok(await t.human.call('decision_log', { project_id: 'SCP', title: 'secret choice', choice: 'x', rationale: 'y' }));
    ok(await t.human.call('handoff_create', { to_actor_ids: [reader.id], title: 'a question', body: 'hidden from tasks:read' }));
    const all = ok(await reader.call('whoami', { include: ['delta'] }));
    const families = (d: { recent: { verb: string }[] }) => new Set(d.recent.map((e) => e.verb.split('.')[0]));
    expect(families(all.delta)).toEqual(new Set(['project', 'task', 'decision', 'handoff']));
    // back to before the reads: the same delta, seen through a tasks:read key
    await db.query(`update public.actors set last_seen_at = $2 where id = $1`, [reader.id, since]);
    const scoped = await execute({ ...reader.ctx, scopes: ['tasks:read'] }, 'whoami', { include: ['delta'] });
    const d = ok(scoped).delta;
    expect(families(d)).toEqual(new Set(['task']));
    expect(Object.keys(d.by_verb).every((v) => v.startsWith('task.'))).toBe(true);
    expect(d.count).toBe(Object.values(d.by_verb as Record<string, number>).reduce((a, b) => a + b, 0));
    // a key that may read the activity room reads it all
    await db.query(`update public.actors set last_seen_at = $2 where id = $1`, [reader.id, since]);
    const wide = ok(await execute({ ...reader.ctx, scopes: ['activity:read'] }, 'whoami', { include: ['delta'] })).delta;
    expect(families(wide)).toEqual(new Set(['project', 'task', 'decision', 'handoff']));
  });
});

describe('notes and answers are comments', () => {
  it('task_release’s note is a comment: comment.added on the live feed, mentions told', async () => {
    const buddy = await A.addAgent('Release Buddy');
    const t = ok(await A.agent.call('task_create', { project_id: 'PPL', title: 'to release' }));
    ok(await A.agent.call('task_claim', { task_id: t.task_id }));
    const released = ok(await A.agent.call('task_release', { task_id: t.task_id, note: 'stuck on the schema, @Release Buddy can you look?' }));
    expect(released.released).toBe(true);
    const thread = ok(await A.human.call('comment_query', { object_type: 'task', object_id: t.task_id }));
    expect(thread.comments.map((c: { body: string }) => c.body)).toEqual(['stuck on the schema, @Release Buddy can you look?']);
    expect(thread.comments[0].mentions).toEqual([buddy.id]);
    const log = ok(await A.human.call('activity_query', { object_type: 'task', object_id: t.task_id }));
    expect(log.activity.map((e: { verb: string }) => e.verb)).toEqual(expect.arrayContaining(['comment.added', 'task.released']));
    const inbox = ok(await buddy.call('notification_query', {}));
    expect(inbox.notifications.some((n: { kind: string }) => n.kind === 'comment.mentioned')).toBe(true);
  });

  it('a review’s requested changes are a comment on the task through the same path', async () => {
    const reviewer = await A.addAgent('Review Person');
    const t = ok(await A.agent.call('task_create', { project_id: 'PPL', title: 'to review' }));
    ok(await A.agent.call('task_claim', { task_id: t.task_id }));
    const h = ok(await A.agent.call('handoff_create', { to_actor_ids: [reviewer.id], kind: 'review', title: 'review it', related_task_id: t.task_id }));
    ok(await reviewer.call('handoff_respond', { handoff_id: h.handoff.id, response: { chosen_option: 'request_changes', text: 'rename the column' } }));
    const log = ok(await A.human.call('activity_query', { object_type: 'task', object_id: t.task_id, verb: 'comment.added' }));
    expect(log.activity).toHaveLength(1);
    expect(log.activity[0]).toMatchObject({ actor_id: reviewer.id });
    expect(log.activity[0].summary).toContain('Changes requested: rename the column');
  });

  it('handoff_respond’s text is a comment on the handoff’s thread: comment.added, mentions told', async () => {
    const asker = await A.addAgent('Answer Seeker');
    const helper = await A.addAgent('Answer Giver');
    const h = ok(await asker.call('handoff_create', { to_actor_ids: [helper.id], kind: 'question', title: 'Which queue?' }));
    ok(await helper.call('handoff_respond', { handoff_id: h.handoff.id, response: { text: 'the durable one; @Answer Seeker see the runbook' } }));
    const thread = ok(await asker.call('comment_query', { object_type: 'handoff', object_id: h.handoff.id }));
    expect(thread.comments.map((c: { body: string; author_actor_id: string }) => [c.body, c.author_actor_id])).toEqual([
      ['the durable one; @Answer Seeker see the runbook', helper.id],
    ]);
    expect(thread.comments[0].mentions).toEqual([asker.id]);
    const log = ok(await A.human.call('activity_query', { object_type: 'handoff', object_id: h.handoff.id }));
    expect(log.activity.map((e: { verb: string }) => e.verb)).toEqual(expect.arrayContaining(['comment.added', 'handoff.responded']));
    // an answer without words adds nothing to the thread
    const h2 = ok(await asker.call('handoff_create', { to_actor_ids: [helper.id], kind: 'approval', title: 'Ship it?' }));
    ok(await helper.call('handoff_respond', { handoff_id: h2.handoff.id, response: { chosen_option: 'approve' } }));
    expect(ok(await asker.call('comment_query', { object_type: 'handoff', object_id: h2.handoff.id })).comments).toEqual([]);
  });
});

describe('comment_add returns its mentions', () => {
  it('answers with the mentions it resolved from the body, as it notified them', async () => {
    const pal = await A.addAgent('Mention Pal');
    const c = ok(await A.agent.call('comment_add', { object_type: 'project', object_id: 'PPL', body: 'thanks @Mention Pal and @nobody' }));
    expect(c.comment.mentions).toEqual([pal.id]);
    const both = ok(await A.agent.call('comment_add', { object_type: 'project', object_id: 'PPL', body: '@Mention Pal again', mentions: [A.human.id] }));
    expect(both.comment.mentions).toEqual([A.human.id, pal.id]);
    // an actor of another workspace with that name is never mentioned
    await B.addAgent('Mention Pal');
    const only = ok(await A.agent.call('comment_add', { object_type: 'project', object_id: 'PPL', body: 'once more @Mention Pal' }));
    expect(only.comment.mentions).toEqual([pal.id]);
  });
});

describe('runs that go quiet', () => {
  it('ends a silent run that holds nothing as idle, and abandons one that holds a lease', async () => {
    const quiet = asRun(A.agent, { run_id: 'quiet-run' });
    ok(await quiet.call('whoami', {}));
    const busy = asRun(A.agent, { run_id: 'busy-run' });
    const t = ok(await busy.call('task_create', { project_id: 'PPL', title: 'held' }));
    ok(await busy.call('task_claim', { task_id: t.task_id }));
    await db.query(`update public.runs set last_active_at = now() - interval '2 hours' where tenant_id = $1 and run_key in ('quiet-run', 'busy-run')`, [A.id]);
    const swept = await reapRuns(db, { afterSeconds: 1800 });
    expect(swept.idle).toBeGreaterThanOrEqual(1);
    expect(swept.abandoned).toBeGreaterThanOrEqual(1);
    const runs = ok(await A.human.call('run_query', { status: ['idle', 'abandoned'] }));
    const by = Object.fromEntries(runs.runs.map((r: { run_key: string; status: string }) => [r.run_key, r.status]));
    expect(by).toMatchObject({ 'quiet-run': 'idle', 'busy-run': 'abandoned' });
    const idleLog = ok(await A.human.call('activity_query', { verb: 'run.idle' }));
    expect(idleLog.activity.some((e: { summary: string }) => e.summary.startsWith('quiet-run ended idle'))).toBe(true);
  });
});
