import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDb, ok, seedTenant, target, type Actor, type Tenant, type TestDb } from '../helpers/db';

/**
 * The inbox reads are bounded by what waits, not by an actor's history (migration 0015): a
 * recipient row is settled once its handoff can no longer wait for that recipient, and a handoff's
 * response once the answer can no longer wait for its sender. Proved here: each path that settles
 * does, nothing settles early, the partial indexes the reads use hold only what waits, a flag left
 * unset changes no answer, and the migration's backfill agrees with the trigger.
 */

let db: TestDb;
let T: Tenant;
let ada: Actor;
let bob: Actor;
let eve: Actor;

beforeAll(async () => {
  db = await freshDb();
  T = await seedTenant(db, 'bounded');
  ada = await T.addAgent('Ada');
  bob = await T.addAgent('Bob');
  eve = await T.addAgent('Eve');
});
afterAll(() => db.drop());

let n = 0;
async function ask(from: Actor, to: Actor[]): Promise<string> {
  return ok(await from.call('handoff_create', { to_actor_ids: to.map((a) => a.id), title: `bounded ask ${++n}` })).handoff_id;
}

async function settled(handoff: string): Promise<Record<string, boolean>> {
  const rows = await db.query<{ actor_id: string; settled: boolean }>(
    `select actor_id, settled from public.handoff_recipients where tenant_id = $1 and handoff_id = $2`,
    [T.id, handoff],
  );
  const name = new Map([[ada.id, 'ada'], [bob.id, 'bob'], [eve.id, 'eve']]);
  return Object.fromEntries(rows.map((r) => [name.get(r.actor_id)!, r.settled]));
}

async function responseSettled(handoff: string): Promise<boolean> {
  const [r] = await db.query<{ response_settled: boolean }>(`select response_settled from public.handoffs where tenant_id = $1 and id = $2`, [T.id, handoff]);
  return r.response_settled;
}

/** Every actor's inbox and whoami inbox section, as the tools answer them. */
async function answers(): Promise<unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, a] of [['ada', ada], ['bob', bob], ['eve', eve]] as const) {
    const inbox = ok(await a.call('inbox', { limit: 200 }));
    const who = ok(await a.call('whoami', { include: ['inbox'] }));
    out[name] = { items: inbox.items.map((i: { id: string; kind: string }) => [i.kind, i.id]), counts: inbox.counts, whoami: [who.inbox_count, who.inbox_counts, who.hints.next] };
  }
  return out;
}

describe('inbox reads bounded by what waits', () => {
  const h: Record<string, string> = {};

  it('a claim settles the other recipients, an answer settles every recipient, and the sender’s ack settles the answer', async () => {
    h.claimed = await ask(bob, [ada, eve]);
    expect(await settled(h.claimed)).toEqual({ ada: false, eve: false });
    ok(await eve.call('handoff_claim', { handoff_id: h.claimed }));
    expect(await settled(h.claimed)).toEqual({ ada: true, eve: false });
    ok(await eve.call('handoff_respond', { handoff_id: h.claimed, response: { text: 'here' } }));
    expect(await settled(h.claimed)).toEqual({ ada: true, eve: true });
    // answered, not yet seen by the sender: it waits in bob's inbox
    expect(await responseSettled(h.claimed)).toBe(false);
    const waiting = ok(await bob.call('inbox', { kinds: ['response'] })).items.map((i: { id: string }) => i.id);
    expect(waiting).toContain(h.claimed);
    // another actor acking does not settle it for the sender
    ok(await eve.call('inbox', { ack: [h.claimed] }));
    expect(await responseSettled(h.claimed)).toBe(false);
    ok(await bob.call('inbox', { ack: [h.claimed] }));
    expect(await responseSettled(h.claimed)).toBe(true);
    expect(ok(await bob.call('inbox', { kinds: ['response'] })).items.map((i: { id: string }) => i.id)).not.toContain(h.claimed);
  });

  it('a sender who cancels settles every recipient; a sender who resolves an answer settles the answer', async () => {
    h.cancelled = await ask(bob, [ada]);
    ok(await bob.call('handoff_resolve', { handoff_id: h.cancelled, resolution: 'cancelled' }));
    expect(await settled(h.cancelled)).toEqual({ ada: true });
    expect(await responseSettled(h.cancelled)).toBe(false); // no answer to settle

    h.resolved = await ask(ada, [bob]);
    ok(await bob.call('handoff_claim', { handoff_id: h.resolved }));
    ok(await bob.call('handoff_respond', { handoff_id: h.resolved, response: { text: 'ok' } }));
    expect(await responseSettled(h.resolved)).toBe(false);
    ok(await ada.call('handoff_resolve', { handoff_id: h.resolved }));
    expect(await responseSettled(h.resolved)).toBe(true);
  });

  it('a recipient who resolves after answering leaves the answer waiting for the sender', async () => {
    h.byRecipient = await ask(ada, [eve]);
    ok(await eve.call('handoff_claim', { handoff_id: h.byRecipient }));
    ok(await eve.call('handoff_respond', { handoff_id: h.byRecipient, response: { text: 'done' } }));
    ok(await eve.call('handoff_resolve', { handoff_id: h.byRecipient }));
    expect(await settled(h.byRecipient)).toEqual({ eve: true });
    expect(await responseSettled(h.byRecipient)).toBe(false);
    expect(ok(await ada.call('inbox', { kinds: ['response'] })).items.map((i: { id: string }) => i.id)).toContain(h.byRecipient);
  });

  it('a handoff to oneself, answered by oneself, never waits as an answer', async () => {
    h.self = await ask(ada, [ada]);
    ok(await ada.call('handoff_claim', { handoff_id: h.self }));
    ok(await ada.call('handoff_respond', { handoff_id: h.self, response: { text: 'noted' } }));
    expect(await settled(h.self)).toEqual({ ada: true });
    expect(await responseSettled(h.self)).toBe(true);
  });

  it('after a long history the reads’ indexes hold only what waits', async () => {
    // 60 handoffs handled by ada (claimed, answered, acked by bob), two still open to her
    for (let i = 0; i < 60; i++) {
      const id = await ask(bob, [ada]);
      ok(await ada.call('handoff_claim', { handoff_id: id }));
      ok(await ada.call('handoff_respond', { handoff_id: id, response: { text: `answer ${i}` } }));
      ok(await bob.call('inbox', { ack: [id] }));
    }
    h.open1 = await ask(bob, [ada]);
    h.open2 = await ask(eve, [ada]);
    const [{ live }] = await db.query<{ live: number }>(
      `select count(*)::int as live from public.handoff_recipients where tenant_id = $1 and actor_id = $2 and not settled`,
      [T.id, ada.id],
    );
    const [{ all }] = await db.query<{ all: number }>(`select count(*)::int as all from public.handoff_recipients where tenant_id = $1 and actor_id = $2`, [T.id, ada.id]);
    expect(all).toBeGreaterThanOrEqual(64);
    const open = ok(await ada.call('inbox', { kinds: ['handoff'], limit: 200 })).items.map((i: { id: string }) => i.id);
    expect(open).toEqual(expect.arrayContaining([h.open1, h.open2]));
    expect(live).toBe(open.length);
    const [{ unseen }] = await db.query<{ unseen: number }>(
      `select count(*)::int as unseen from public.handoffs
        where tenant_id = $1 and from_actor_id = $2 and responded_at is not null and not response_settled`,
      [T.id, bob.id],
    );
    expect(unseen).toBe(ok(await bob.call('inbox', { kinds: ['response'], limit: 200 })).items.length);
    console.log(`[inbox-bounded:${target}] ada received ${all} handoffs; ${live} still wait, and only those are in the index her inbox reads`);
  });

  it('the unread notifications the inbox counts are read off an index of only those', async () => {
    // ada answered 60 handoffs without acking them: their handoff.received notifications stay
    // unread, and none of them is what the inbox lists
    const [{ mirror }] = await db.query<{ mirror: number }>(
      `select count(*)::int as mirror from public.notifications
        where tenant_id = $1 and recipient_actor_id = $2 and read_at is null and kind = any (bullpen.inbox_mirror_kinds())`,
      [T.id, ada.id],
    );
    expect(mirror).toBeGreaterThanOrEqual(60);
    const t = ok(await T.human.call('project_create', { title: 'Bounded', key: 'BND' }));
    ok(await T.human.call('task_create', { project_id: t.project.key, title: 'for ada', assignee_actor_id: ada.id }));
    const r = ok(await ada.call('inbox', { kinds: ['notification'] }));
    expect(r.counts.notification).toBe(1);
    const [{ listed }] = await db.query<{ listed: number }>(
      `select count(*)::int as listed from public.notifications
        where tenant_id = $1 and recipient_actor_id = $2 and read_at is null and not (kind = any (bullpen.inbox_mirror_kinds()))`,
      [T.id, ada.id],
    );
    expect(listed).toBe(1);
    ok(await ada.call('inbox', { ack: r.items.map((i: { id: string }) => i.id) }));
  });

  it('the listed-notifications index leaves out exactly bullpen.inbox_mirror_kinds()', async () => {
    const [{ pred }] = await db.query<{ pred: string }>(
      `select pg_get_expr(i.indpred, i.indrelid) as pred from pg_index i where i.indexrelid = 'public.notifications_unread_listed_idx'::regclass`,
    );
    const [{ kinds }] = await db.query<{ kinds: string[] }>('select bullpen.inbox_mirror_kinds() as kinds');
    const inIndex = [...pred.matchAll(/'([a-z_]+\.[a-z_]+)'/g)].map((m) => m[1]);
    expect(pred).toContain('read_at IS NULL');
    expect(inIndex.sort()).toEqual([...kinds].sort());
  });

  it('flags left unset change no answer, and the migration’s backfill sets them as the trigger does', async () => {
    const before = await answers();
    const flags = async () => ({
      recipients: await db.query(`select handoff_id, actor_id, settled from public.handoff_recipients where tenant_id = $1 order by 1, 2`, [T.id]),
      handoffs: await db.query(`select id, response_settled from public.handoffs where tenant_id = $1 order by 1`, [T.id]),
    });
    const kept = await flags();
    expect(kept.recipients.some((r: any) => r.settled)).toBe(true);
    // as rows an older server or an import wrote: every flag unset (the trigger would set some again)
    await db.query('alter table public.handoffs disable trigger handoffs_settle');
    await db.query(`update public.handoff_recipients set settled = false where tenant_id = $1`, [T.id]);
    await db.query(`update public.handoffs set response_settled = false where tenant_id = $1`, [T.id]);
    await db.query('alter table public.handoffs enable trigger handoffs_settle');
    expect(await answers()).toEqual(before);
    // the backfill statements of the migration, run again, give back exactly the trigger's flags
    const sql = readFileSync(path.join(__dirname, '../../supabase/migrations/0015_inbox_bounded.sql'), 'utf8');
    const backfill = sql.match(/^update public\.[\s\S]*?;$/gm) ?? [];
    expect(backfill).toHaveLength(2);
    for (const stmt of backfill) await db.query(stmt);
    expect(await flags()).toEqual(kept);
    expect(await answers()).toEqual(before);
  });
});
