import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fails, freshDb, ok, seedTenant, target, type Actor, type Tenant, type TestDb } from '../helpers/db';

/**
 * Tenant isolation proofs for the coordination room: handoffs, handoff_recipients, handoff_acks
 * and notifications, and every coordination tool called with another workspace's ids. (The
 * generic proofs of isolation.test.ts run over these tables too; this file adds rows that exist,
 * the cross-tenant inserts, and the tools.)
 */

let db: TestDb;
let A: Tenant;
let B: Tenant;
let aPeer: Actor;
const a: Record<string, string> = {};
let proofs = 0;

const TABLES = ['handoffs', 'handoff_recipients', 'handoff_acks', 'notifications'];

beforeAll(async () => {
  db = await freshDb();
  A = await seedTenant(db, 'coord-a');
  B = await seedTenant(db, 'coord-b');
  aPeer = await A.addAgent('peer');
  ok(await A.human.call('project_create', { title: 'Secret plans', key: 'SEC' }));
  a.task = ok(await A.human.call('task_create', { project_id: 'SEC', title: 'secret task', reviewer_actor_id: A.human.id })).task_id;
  a.project = ok(await A.human.call('project_query', {})).projects[0].id;
  const h = ok(await A.agent.call('handoff_create', { to_actor_ids: [A.human.id, aPeer.id], title: 'Secret question', kind: 'question', related_task_id: a.task }));
  a.handoff = h.handoff_id;
  ok(await aPeer.call('inbox', { ack: [a.handoff] }));
  a.notification = ok(await A.human.call('notification_query', {})).notifications[0].id;
  a.actor = A.agent.id;
  ok(await A.agent.call('task_claim', { task_id: a.task }));
  // B has its own coordination data, so "sees nothing of A" is not "sees nothing"
  ok(await B.human.call('project_create', { title: 'Open plans', key: 'OPN' }));
  a.b_task = ok(await B.human.call('task_create', { project_id: 'OPN', title: 'b task' })).task_id;
  ok(await B.agent.call('handoff_create', { to_actor_ids: [B.human.id], title: 'B question' }));
});

afterAll(async () => {
  console.log(`[isolation-coordination:${target}] ${proofs} tenant isolation proofs passed`);
  await db.drop();
});

describe('coordination tables', () => {
  it('have row-level security enabled and forced', async () => {
    const rows = await db.query<{ name: string; rls: boolean; forced: boolean }>(
      `select relname as name, relrowsecurity as rls, relforcerowsecurity as forced from pg_class
        where relnamespace = 'public'::regnamespace and relname = any($1) order by 1`, [TABLES]);
    expect(rows).toEqual([...TABLES].sort().map((name) => ({ name, rls: true, forced: true })));
    proofs += rows.length;
  });

  it('show another workspace none of their rows, while A reads its own', async () => {
    for (const t of TABLES) {
      const [{ total }] = await db.query<{ total: number }>(`select count(*)::int total from public.${t} where tenant_id = $1`, [A.id]);
      expect(total, `${t} has rows in A`).toBeGreaterThan(0);
      const seen = await db.withClaims<{ n: number }>(B.agent.claims, `select count(*)::int n from public.${t} where tenant_id = '${A.id}'`);
      expect({ t, n: seen[0].n }).toEqual({ t, n: 0 });
      const own = await db.withClaims<{ n: number }>(B.human.claims, `select count(*)::int n from public.${t} where tenant_id = '${A.id}'`);
      expect({ t, n: own[0].n }).toEqual({ t, n: 0 });
      proofs += 2;
    }
    // inside A, the tenant-wide tables are readable by any member; notifications and acks only by their owner
    const peerSees = async (t: string) => (await db.withClaims<{ n: number }>(aPeer.claims, `select count(*)::int n from public.${t}`))[0].n;
    expect(await peerSees('handoffs')).toBeGreaterThan(0);
    expect(await peerSees('notifications')).toBe(1);
    expect(await peerSees('handoff_acks')).toBe(1);
    const agentSees = await db.withClaims<{ n: number }>(A.agent.claims, `select count(*)::int n from public.handoff_acks`);
    expect(agentSees[0].n).toBe(0);
    proofs += 4;
  });

  it('refuse updates and deletes from another workspace (and from A’s own members)', async () => {
    for (const t of TABLES) {
      for (const claims of [B.agent.claims, A.agent.claims]) {
        for (const stmt of [`update public.${t} set tenant_id = tenant_id returning 1`, `delete from public.${t} returning 1`]) {
          let rows: unknown[] = [];
          try {
            rows = await db.withClaims(claims, stmt);
          } catch (err) {
            expect((err as { code?: string }).code, `${t}: ${stmt}`).toBe('42501');
          }
          expect(rows, `${t}: ${stmt}`).toHaveLength(0);
          proofs++;
        }
      }
    }
  });

  it('refuse rows written into another workspace', async () => {
    const attempts: Record<string, string> = {
      handoffs: `insert into public.handoffs (tenant_id, kind, title, from_actor_id, fingerprint) values ('${A.id}', 'handoff', 'evil', '${A.agent.id}', 'evil')`,
      handoff_recipients: `insert into public.handoff_recipients (tenant_id, handoff_id, actor_id) values ('${A.id}', '${a.handoff}', '${A.agent.id}')`,
      handoff_acks: `insert into public.handoff_acks (tenant_id, actor_id, handoff_id, item) values ('${A.id}', '${A.human.id}', '${a.handoff}', 'handoff')`,
      notifications: `insert into public.notifications (tenant_id, recipient_actor_id, kind, title) values ('${A.id}', '${A.human.id}', 'evil.spam', 'evil')`,
    };
    expect(Object.keys(attempts).sort()).toEqual([...TABLES].sort());
    for (const [table, sql] of Object.entries(attempts)) {
      await expect(db.withClaims(B.agent.claims, sql), table).rejects.toMatchObject({ code: '42501' });
      // members of A cannot write them directly either: the RPCs are the only way in
      await expect(db.withClaims(A.agent.claims, sql), table).rejects.toMatchObject({ code: '42501' });
      proofs += 2;
    }
  });
});

describe('every coordination tool, called with another workspace’s ids', () => {
  const cases: [string, () => Record<string, unknown>][] = [
    ['handoff_create', () => ({ to_actor_ids: [a.actor], title: 'intrude' })],
    ['handoff_create', () => ({ to_actor_ids: ['me'], title: 'intrude task', related_task_id: a.task })],
    ['handoff_create', () => ({ to_actor_ids: ['me'], title: 'intrude ref', related_task_id: 'SEC-1' })],
    ['handoff_create', () => ({ to_actor_ids: ['me'], title: 'intrude project', related_project_id: a.project })],
    ['handoff_create', () => ({ to_actor_ids: ['me'], title: 'intrude key', related_project_id: 'SEC' })],
    ['handoff_claim', () => ({ handoff_id: a.handoff })],
    ['handoff_respond', () => ({ handoff_id: a.handoff, response: { text: 'mine now' } })],
    ['handoff_resolve', () => ({ handoff_id: a.handoff, resolution: 'cancelled' })],
    ['handoff_query', () => ({ related_task_id: a.task })],
    ['handoff_query', () => ({ related_project_id: a.project })],
    ['inbox', () => ({ ack: [a.handoff] })],
    ['inbox', () => ({ ack: [a.notification] })],
    ['notification_mark_read', () => ({ ids: [a.notification] })],
    ['comment_add', () => ({ object_type: 'handoff', object_id: a.handoff, body: 'intrude' })],
    ['comment_add', () => ({ object_type: 'work_request', object_id: a.handoff, body: 'intrude' })],
    ['comment_query', () => ({ object_type: 'handoff', object_id: a.handoff })],
  ];

  it.each(cases)('%s answers NOT_FOUND (%#)', async (tool, input) => {
    fails(await B.agent.call(tool, input()), 'NOT_FOUND');
    proofs++;
  });

  it('changed nothing in A', async () => {
    const [h] = await db.query<{ status: string; claimed_by_actor_id: string | null }>(`select status, claimed_by_actor_id from public.handoffs where id = $1`, [a.handoff]);
    expect(h).toEqual({ status: 'open', claimed_by_actor_id: null });
    const [nrow] = await db.query<{ read_at: string | null }>(`select read_at from public.notifications where id = $1`, [a.notification]);
    expect(nrow.read_at).toBeNull();
    const [{ c }] = await db.query<{ c: number }>(`select count(*)::int c from public.handoff_acks where handoff_id = $1`, [a.handoff]);
    expect(c).toBe(1);
    const [{ t }] = await db.query<{ t: number }>(`select count(*)::int t from public.comments where object_id = $1`, [a.handoff]);
    expect(t).toBe(0);
    proofs += 4;
  });

  it('lists only B’s own: handoff_query, inbox, notification_query, task_get and whoami', async () => {
    const any = ok(await B.agent.call('handoff_query', {}));
    expect(any.handoffs.map((h: { title: string }) => h.title)).toEqual(['B question']);
    expect(JSON.stringify(ok(await B.human.call('inbox', {})))).not.toContain('Secret');
    expect(ok(await B.agent.call('notification_query', {})).notifications).toEqual([]);
    const who = ok(await B.human.call('whoami', {}));
    expect(JSON.stringify(who)).not.toContain(A.id);
    expect(JSON.stringify(who)).not.toContain('Secret');
    const got = ok(await B.human.call('task_get', { task_id: a.b_task }));
    expect(got.handoffs).toEqual([]);
    proofs += 5;
  });

  it('a waiting call is woken by its own workspace only', async () => {
    const t0 = Date.now();
    const waiting = B.agent.call('task_claim', { wait_seconds: 1, label: 'shared-label' });
    await new Promise((r) => setTimeout(r, 150));
    ok(await A.human.call('task_create', { project_id: 'SEC', title: 'A work appears', labels: ['shared-label'] }));
    ok(await A.agent.call('handoff_create', { to_actor_ids: [A.human.id], title: 'A ping' }));
    const r = ok(await waiting);
    expect(r).toMatchObject({ claimed: false, reason: 'pool_empty' });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
    proofs++;
  });
});

describe('per-actor rules inside one workspace', () => {
  it('a non-recipient cannot claim, respond or ack; only sender or claimer resolves', async () => {
    const outsider = await A.addAgent('outsider');
    const h = ok(await A.agent.call('handoff_create', { to_actor_ids: [aPeer.id], title: 'only for peer' }));
    expect(fails(await outsider.call('handoff_claim', { handoff_id: h.handoff_id }), 'FORBIDDEN').message).toContain('only a recipient claims');
    expect(fails(await outsider.call('handoff_respond', { handoff_id: h.handoff_id, response: { text: 'x' } }), 'FORBIDDEN').message).toContain('only a recipient answers');
    expect(fails(await outsider.call('inbox', { ack: [h.handoff_id] }), 'FORBIDDEN').message).toContain('not in your inbox');
    expect(fails(await outsider.call('handoff_resolve', { handoff_id: h.handoff_id }), 'FORBIDDEN').message).toContain('only the sender');
    proofs += 4;
  });

  it('B-the-actor cannot read or mark A-the-actor’s notifications, through the tools or the database', async () => {
    const humanNote = ok(await A.human.call('notification_query', {})).notifications[0];
    expect(humanNote).toBeDefined();
    fails(await aPeer.call('notification_mark_read', { ids: [humanNote.id] }), 'NOT_FOUND');
    fails(await aPeer.call('inbox', { ack: [humanNote.id] }), 'NOT_FOUND');
    expect(ok(await aPeer.call('notification_query', {})).notifications.map((x: { id: string }) => x.id)).not.toContain(humanNote.id);
    const raw = await db.withClaims<{ n: number }>(aPeer.claims, `select count(*)::int n from public.notifications where id = '${humanNote.id}'`);
    expect(raw[0].n).toBe(0);
    proofs += 4;
  });
});
