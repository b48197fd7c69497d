import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fails, freshDb, ok, seedTenant, target, type Actor, type Tenant, type TestDb } from '../helpers/db';

/**
 * Tenant isolation proofs for the events room: workspace B tries to read and write A's events,
 * cursors, webhooks and deliveries, through SQL as the API role and through every tool; inside A,
 * an agent that is not an owner tries to manage webhooks. tests/db/isolation.test.ts finds the
 * insert proofs and the tool cases below by their text.
 */

let db: TestDb;
let A: Tenant;
let B: Tenant;
let proofs = 0;
const a = { webhook: '', cursor: '', seq: 0 };
const saved = process.env.BULLPEN_WEBHOOK_ALLOW;

beforeAll(async () => {
  db = await freshDb();
  process.env.BULLPEN_WEBHOOK_ALLOW = '127.0.0.1';
  A = await seedTenant(db, 'events-a');
  B = await seedTenant(db, 'events-b');
  ok(await A.agent.call('project_create', { title: 'Secret', key: 'SEC' }));
  a.cursor = ok(await A.agent.call('event_poll', {})).next_cursor;
  a.webhook = ok(await A.human.call('webhook_add', { url: 'http://127.0.0.1:9/hook', events: ['secret.*'] })).webhook.id;
  a.seq = ok(await A.agent.call('event_publish', { event_type: 'secret.plan', payload: { launch: 'tuesday' }, project_id: 'SEC' })).event.seq;
  ok(await B.agent.call('project_create', { title: 'Open', key: 'OPN' }));
});
afterAll(async () => {
  console.log(`[isolation-events:${target}] ${proofs} tenant isolation proofs passed`);
  if (saved === undefined) delete process.env.BULLPEN_WEBHOOK_ALLOW;
  else process.env.BULLPEN_WEBHOOK_ALLOW = saved;
  await db.drop();
});

describe('the tables', () => {
  it('show B none of A’s webhooks or deliveries, while A’s owner sees its own and A’s agents see none', async () => {
    for (const t of ['webhooks', 'webhook_deliveries']) {
      const seen = await db.withClaims<{ n: number }>(B.human.claims, `select count(*)::int as n from public.${t} where tenant_id = '${A.id}'`);
      expect({ t, n: seen[0].n }).toEqual({ t, n: 0 });
      const own = await db.withClaims<{ n: number }>(A.human.claims, `select count(*)::int as n from public.${t} where tenant_id = '${A.id}'`);
      expect(own[0].n, t).toBe(1);
      const agent = await db.withClaims<{ n: number }>(A.agent.claims, `select count(*)::int as n from public.${t}`);
      expect(agent[0].n, t).toBe(0);
      proofs += 3;
    }
  });

  it('refuse every write by the API roles, into either workspace', async () => {
    const attempts = [
      `insert into public.webhooks (tenant_id, url, events, secret, created_by_actor_id) values ('${A.id}', 'http://evil.example/x', '{task.*}', '${'s'.repeat(40)}', '${A.human.id}')`,
      `insert into public.webhook_deliveries (tenant_id, webhook_id, activity_id, event_type) values ('${A.id}', '${a.webhook}', ${a.seq}, 'secret.plan')`,
      `update public.webhooks set url = 'http://evil.example/x'`,
      `delete from public.webhooks`,
      `update public.webhook_deliveries set status = 'delivered'`,
    ];
    for (const sql of attempts) {
      await expect(db.withClaims(B.human.claims, sql), sql).rejects.toMatchObject({ code: '42501' });
      await expect(db.withClaims(A.human.claims, sql), sql).rejects.toMatchObject({ code: '42501' });
      proofs += 2;
    }
  });
});

describe('every events tool, called with another workspace’s ids', () => {
  const cases: [string, () => Record<string, unknown>, () => Actor][] = [
    ['event_publish', () => ({ event_type: 'peek.in', project_id: 'SEC' }), () => B.agent],
    ['event_poll', () => ({ since_cursor: a.cursor }), () => B.agent],
    ['webhook_list', () => ({ webhook_id: a.webhook }), () => B.human],
    ['webhook_remove', () => ({ webhook_id: a.webhook }), () => B.human],
    ['webhook_add', () => ({ url: 'http://127.0.0.1:9/x', events: ['task.*'], recipient: A.agent.id }), () => B.human],
  ];

  it.each(cases)('%s answers NOT_FOUND (%#)', async (tool, input, who) => {
    fails(await who().call(tool, input()), 'NOT_FOUND');
    proofs++;
  });

  it('list tools filter rather than leak', async () => {
    const start = ok(await B.agent.call('event_poll', {})).next_cursor;
    ok(await A.agent.call('event_publish', { event_type: 'secret.again', payload: {} }));
    const polled = ok(await B.agent.call('event_poll', { since_cursor: start }));
    expect(JSON.stringify(polled)).not.toContain('secret.');
    expect(ok(await B.human.call('webhook_list', {})).webhooks).toEqual([]);
    proofs += 2;
  });
});

describe('inside the workspace, only an owner manages webhooks', () => {
  it('an agent’s webhook_add, webhook_list and webhook_remove are FORBIDDEN, and the webhook stays', async () => {
    fails(await A.agent.call('webhook_add', { url: 'http://127.0.0.1:9/mine', events: ['task.*'] }), 'FORBIDDEN');
    fails(await A.agent.call('webhook_list', {}), 'FORBIDDEN');
    fails(await A.agent.call('webhook_remove', { webhook_id: a.webhook }), 'FORBIDDEN');
    expect(ok(await A.human.call('webhook_list', {})).webhooks.map((w: { id: string }) => w.id)).toEqual([a.webhook]);
    proofs += 3;
  });
});
