import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_MODEL_PRICES, configuredModelPrices, priceTokens } from '../../lib/shared/model-prices';
import { fails, freshDb, ok, seedTenant, type Actor, type Tenant, type TestDb } from '../helpers/db';
import { asRun } from '../helpers/runs';

/**
 * Costs and budgets (supabase/definitions/0027_costs.sql): usage reports land in the ledger priced
 * (reported, from the table, or unknown) and add up; budgets warn once, refuse claims, stop runs and
 * refuse the council; claim estimates are reserved and released.
 */

let db: TestDb;
let T: Tenant;
let ada: Actor;
let bob: Actor;

beforeAll(async () => {
  db = await freshDb();
  T = await seedTenant(db, 'costs');
  ada = await T.addAgent('Ada');
  bob = await T.addAgent('Bob');
  ok(await T.human.call('project_create', { title: 'Costly', key: 'CO' }));
  ok(await T.human.call('project_create', { title: 'Ledger', key: 'LG' }));
});
afterAll(() => db.drop());

async function ledger(where = 'true') {
  return db.query<Record<string, any>>(`select * from public.usage_events where tenant_id = $1 and ${where} order by created_at, id`, [T.id]);
}

describe('usage reports land in the ledger, priced', () => {
  it('prices a report without cost from the table, keeps a reported cost, marks an unknown model', async () => {
    const run = asRun(ada, { run_id: 'price-1' });
    const task = ok(await T.human.call('task_create', { project_id: 'CO', title: 'priced work' })).task;
    const hb = ok(await run.call('run_heartbeat', {
      task_id: task.ref,
      usage: [
        { model: 'claude-sonnet-4-5-20250929', provider: 'anthropic', tokens_in: 1_000_000, tokens_out: 100_000, tokens_cache_read: 2_000_000, tokens_cache_write: 10_000 },
        { model: 'house-model', tokens_in: 500, tokens_out: 50, cost_usd: 0.25 },
        { model: 'mystery-model', tokens_in: 10, tokens_out: 10 },
      ],
    }));
    expect(hb.stop).toBeUndefined();
    const rows = await ledger(`run_id = '${hb.run.id}'`);
    const by = Object.fromEntries(rows.map((r) => [r.model, r]));
    const sonnet = BUILT_IN_MODEL_PRICES['claude-sonnet-4-5'];
    const expected = priceTokens(sonnet, { tokens_in: 1_000_000, tokens_out: 100_000, tokens_cache_read: 2_000_000, tokens_cache_write: 10_000 });
    expect(expected).toBeCloseTo(3 + 1.5 + 0.6 + 0.0375, 6);
    expect(by['claude-sonnet-4-5-20250929']).toMatchObject({ priced: 'table', provider: 'anthropic', task_id: task.id });
    expect(Number(by['claude-sonnet-4-5-20250929'].tokens_cache_read)).toBe(2_000_000);
    expect(Number(by['claude-sonnet-4-5-20250929'].cost_usd)).toBeCloseTo(expected, 6);
    expect(by['house-model']).toMatchObject({ priced: 'reported' });
    expect(Number(by['house-model'].cost_usd)).toBe(0.25);
    expect(by['mystery-model']).toMatchObject({ priced: 'unknown' });
    expect(Number(by['mystery-model'].cost_usd)).toBe(0);
    expect(rows.every((r) => r.project_id === task.project_id)).toBe(true);
    // the run's own total is the ledger's
    expect(hb.run.cost_usd).toBeCloseTo(expected + 0.25, 6);
  });

  it('writes increments of running totals: a repeated report adds nothing, a larger one adds the difference', async () => {
    const run = asRun(bob, { run_id: 'incr-1' });
    const report = { usage: { model: 'gpt-4o', tokens_in: 1000, tokens_out: 100 } };
    const first = ok(await run.call('run_heartbeat', report));
    ok(await run.call('run_heartbeat', report));
    ok(await run.call('run_heartbeat', { usage: { model: 'gpt-4o', tokens_in: 3000, tokens_out: 300 } }));
    const rows = await ledger(`run_id = '${first.run.id}'`);
    expect(rows.map((r) => [Number(r.tokens_in), Number(r.tokens_out)])).toEqual([[1000, 100], [2000, 200]]);
    const end = ok(await run.call('run_end', { status: 'succeeded', usage: { model: 'gpt-4o', tokens_in: 4000, tokens_out: 400 } }));
    const all = await ledger(`run_id = '${first.run.id}'`);
    expect(all).toHaveLength(3);
    const sum = all.reduce((s, r) => s + Number(r.cost_usd), 0);
    expect(end.run.cost_usd).toBeCloseTo(sum, 6);
    expect(sum).toBeCloseTo(priceTokens(BUILT_IN_MODEL_PRICES['gpt-4o'], { tokens_in: 4000, tokens_out: 400 }), 6);
  });

  it('lands on the one task the run holds when no task_id is named', async () => {
    const run = asRun(bob, { run_id: 'held-1' });
    const task = ok(await T.human.call('task_create', { project_id: 'LG', title: 'held work' })).task;
    ok(await run.call('task_claim', { task_id: task.id }));
    const hb = ok(await run.call('run_heartbeat', { usage: { model: 'o3', tokens_in: 100 } }));
    const [row] = await ledger(`run_id = '${hb.run.id}'`);
    expect(row).toMatchObject({ task_id: task.id, project_id: task.project_id });
    ok(await run.call('task_release', { task_id: task.id }));
  });

  it('reads overrides from BULLPEN_MODEL_PRICES, as JSON or a file', async () => {
    expect(configuredModelPrices({ BULLPEN_MODEL_PRICES: '{"My-Model": {"in": 1, "out": 2}, "bad": {"in": "x"}}' })).toEqual({ 'my-model': { in: 1, out: 2 } });
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const dir = mkdtempSync('/tmp/bp-prices-');
    writeFileSync(`${dir}/p.json`, '{"file-model": {"in": 4, "out": 8}}');
    expect(configuredModelPrices({ BULLPEN_MODEL_PRICES: `${dir}/p.json` })).toEqual({ 'file-model': { in: 4, out: 8 } });
    expect(configuredModelPrices({ BULLPEN_MODEL_PRICES: `${dir}/missing.json` })).toEqual({});
  });
});

describe('cost_summary adds up', () => {
  const groupings = ['agent', 'model', 'project', 'task', 'workflow', 'day'] as const;

  it('the groups of every grouping sum to the total, to the cent, over a seeded ledger of 10,000 reports', async () => {
    const S = await seedTenant(db, 'costs-sum');
    const agents = [S.agent, await S.addAgent('s1'), await S.addAgent('s2')];
    const projects: string[] = [];
    const tasks: { id: string; project_id: string }[] = [];
    for (const key of ['SA', 'SB', 'SC']) {
      const p = ok(await S.human.call('project_create', { title: key, key })).project;
      projects.push(p.id);
      for (let i = 0; i < 4; i++) tasks.push({ id: ok(await S.human.call('task_create', { project_id: key, title: `t${i}` })).task.id, project_id: p.id });
    }
    // deterministic pseudo-random rows: costs with six decimals, a quarter with no task or project
    await db.query(
      `insert into public.usage_events (tenant_id, actor_id, task_id, project_id, workflow_id, model, provider, tokens_in, tokens_out,
                                        tokens_cache_read, tokens_cache_write, cost_usd, priced, created_at)
       select $1, ($2::uuid[])[1 + i % 3], t.id, t.project_id,
              case when i % 5 = 0 then null else ('00000000-0000-0000-0000-00000000000' || (i % 3))::uuid end,
              (array['gpt-4o', 'claude-sonnet-4-5', 'house', 'o3'])[1 + i % 4], 'p', i % 997, i % 113, i % 31, i % 7,
              round(((i * 7919) % 100000)::numeric / 33333.0, 6), 'table', now() - make_interval(hours => i % 200)
         from generate_series(1, 10000) i
         left join lateral (select (x ->> 'id')::uuid as id, (x ->> 'project_id')::uuid as project_id
                              from jsonb_array_elements($3::jsonb) with ordinality e(x, n) where i % 4 <> 0 and n = 1 + i % 12) t on true`,
      [S.id, agents.map((a) => a.id), JSON.stringify(tasks)],
    );
    const [{ n, cost }] = await db.query<{ n: number; cost: string }>(`select count(*)::int n, sum(cost_usd)::text cost from public.usage_events where tenant_id = $1`, [S.id]);
    expect(n).toBe(10_000);
    const cents = (x: number | string) => Math.round(Number(x) * 100);
    for (const project_id of [undefined, 'SB']) {
      const base = ok(await S.agent.call('cost_summary', { period: 'all', ...(project_id ? { project_id } : {}) }));
      if (!project_id) {
        expect(base.total.calls).toBe(10_000);
        expect(cents(base.total.cost_usd)).toBe(cents(cost));
      }
      for (const group_by of groupings) {
        const s = ok(await S.agent.call('cost_summary', { period: 'all', group_by, ...(project_id ? { project_id } : {}) }));
        expect(s.total).toEqual(base.total);
        const sum = (k: string) => s.groups.reduce((acc: number, g: Record<string, number>) => acc + g[k], 0);
        expect({ group_by, project_id, cents: cents(sum('cost_usd')) }).toEqual({ group_by, project_id, cents: cents(s.total.cost_usd) });
        for (const k of ['calls', 'tokens_in', 'tokens_out', 'tokens_cache_read', 'tokens_cache_write']) expect(sum(k), `${group_by} ${k}`).toBe(s.total[k]);
      }
    }
    const byAgent = ok(await S.agent.call('cost_summary', { period: 'all', group_by: 'agent' }));
    expect(byAgent.groups.map((g: { label: string }) => g.label).sort()).toEqual([`Agent costs-sum`, 's1', 's2']);
    // daily: each group's spend by day adds up to the group, to the cent, days oldest first
    for (const group_by of ['agent', 'model', 'project'] as const) {
      const d = ok(await S.agent.call('cost_summary', { period: 'all', group_by, daily: true }));
      expect(d.total).toEqual(byAgent.total);
      for (const g of d.groups as { key: string; cost_usd: number; daily: { day: string; cost_usd: number }[] }[]) {
        expect(g.daily.length, `${group_by} ${g.key}`).toBeGreaterThan(0);
        expect(g.daily.map((x) => x.day)).toEqual([...g.daily.map((x) => x.day)].sort());
        expect(cents(g.daily.reduce((acc, x) => acc + x.cost_usd, 0))).toBe(cents(g.cost_usd));
      }
    }
    expect(byAgent.groups[0].daily).toBeUndefined();
    const byDay = ok(await S.agent.call('cost_summary', { period: 'all', group_by: 'day' }));
    expect(byDay.groups.map((g: { key: string }) => g.key)).toEqual([...byDay.groups.map((g: { key: string }) => g.key)].sort());
    const today = ok(await S.agent.call('cost_summary', { period: 'day' }));
    expect(today.total.calls).toBeLessThan(10_000);
    const window = ok(await S.agent.call('cost_summary', { from: new Date(Date.now() - 3_600_000 * 10.5).toISOString() }));
    expect(window.total.calls).toBeGreaterThan(0);
    expect(window.total.calls).toBeLessThan(today.total.calls + 10_000);
  });

  it('refuses from after to', async () => {
    fails(await T.agent.call('cost_summary', { from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }), 'VALIDATION_ERROR');
  });
});

describe('budgets', () => {
  it('only an owner sets one; budget_status shows spent, remaining and state', async () => {
    const e = fails(await ada.call('budget_set', { scope: 'workspace', period: 'month', limit_usd: 100 }), 'FORBIDDEN');
    expect(e.message).toMatch(/only a workspace owner/);
    fails(await T.human.call('budget_set', { scope: 'project', period: 'day', limit_usd: 1 }), 'VALIDATION_ERROR');
    fails(await T.human.call('budget_set', { scope: 'workspace', scope_id: 'CO', period: 'day', limit_usd: 1 }), 'VALIDATION_ERROR');
    const b = ok(await T.human.call('budget_set', { scope: 'agent', scope_id: bob.id, period: 'total', limit_usd: 1000, warn_at: 0.5 })).budget;
    expect(b).toMatchObject({ scope: 'agent', scope_id: bob.id, period: 'total', limit_usd: 1000, warn_at: 0.5, state: 'ok', label: 'agent Bob total budget ($1000.00)' });
    expect(b.spent_usd).toBeGreaterThan(0);
    expect(b.remaining_usd).toBeCloseTo(1000 - b.spent_usd, 6);
    const st = ok(await bob.call('budget_status', { scope: 'agent', scope_id: bob.id }));
    expect(st.budgets.map((x: { id: string }) => x.id)).toEqual([b.id]);
    expect(ok(await bob.call('budget_status', { scope: 'agent', scope_id: ada.id })).budgets).toEqual([]);
    // setting the same scope and period again updates it
    const again = ok(await T.human.call('budget_set', { scope: 'agent', scope_id: bob.id, period: 'total', limit_usd: 2000 })).budget;
    expect(again.id).toBe(b.id);
    expect(again.warn_at).toBe(0.8);
  });

  it('warns owners and the agent once per period, then stops the run, refuses claims and the council', async () => {
    const W = await seedTenant(db, 'costs-warn');
    const cat = await W.addAgent('Cat');
    ok(await W.human.call('project_create', { title: 'Capped', key: 'CP' }));
    const t1 = ok(await W.human.call('task_create', { project_id: 'CP', title: 'one' })).task;
    const t2 = ok(await W.human.call('task_create', { project_id: 'CP', title: 'two' })).task;
    ok(await W.human.call('budget_set', { scope: 'project', scope_id: 'CP', period: 'month', limit_usd: 1 }));
    const run = asRun(cat, { run_id: 'warn-run' });
    ok(await run.call('task_claim', { task_id: t1.id }));
    const notes = async (who: Actor) =>
      (await db.query<{ n: number }>(`select count(*)::int n from public.notifications where tenant_id = $1 and recipient_actor_id = $2 and kind = 'budget.warning'`, [W.id, who.id]))[0].n;
    const a = ok(await run.call('run_heartbeat', { usage: { model: 'house', cost_usd: 0.5 } }));
    expect(a.stop).toBeUndefined();
    expect(await notes(W.human)).toBe(0);
    const b = ok(await run.call('run_heartbeat', { usage: { model: 'house', cost_usd: 0.85 } }));
    expect(b.stop).toBeUndefined();
    expect([await notes(W.human), await notes(cat)]).toEqual([1, 1]);
    expect(ok(await W.human.call('budget_status', { scope: 'project', scope_id: 'CP' })).budgets[0]).toMatchObject({ state: 'warning' });
    ok(await run.call('run_heartbeat', { usage: { model: 'house', cost_usd: 0.9 } }));
    expect([await notes(W.human), await notes(cat)]).toEqual([1, 1]);
    const c = ok(await run.call('run_heartbeat', { usage: { model: 'house', cost_usd: 1.2 } }));
    expect(c.stop).toBe(true);
    expect(c.reason).toMatch(/budget_exceeded: the project CP month budget \(\$1\.00\) is spent/);
    expect(ok(await W.human.call('budget_status', {})).budgets[0]).toMatchObject({ state: 'exceeded', remaining_usd: 0 });
    // claims: by id refused naming the budget; claim-next answers budget_exceeded
    const e = fails(await W.agent.call('task_claim', { task_id: t2.id }), 'BUDGET_EXCEEDED');
    expect(e.message).toMatch(/project CP month budget/);
    expect(e.details).toMatchObject({ scope: 'project', limit_usd: 1 });
    const next = ok(await W.agent.call('task_claim', {}));
    expect(next).toMatchObject({ claimed: false, reason: 'budget_exceeded' });
    expect(next.hint).toMatch(/project CP month budget/);
    // work elsewhere in the workspace goes on
    ok(await W.human.call('project_create', { title: 'Free', key: 'FR' }));
    const free = ok(await W.human.call('task_create', { project_id: 'FR', title: 'free' })).task;
    expect(ok(await W.agent.call('task_claim', { task_id: free.id })).claimed).toBe(true);
    // the council spends on the workspace's behalf: a workspace budget that is spent refuses it
    ok(await W.human.call('budget_set', { scope: 'workspace', period: 'day', limit_usd: 0.5 }));
    const saved = { m: process.env.BULLPEN_COUNCIL_MODELS, c: process.env.BULLPEN_COUNCIL_CHAIRMAN };
    process.env.BULLPEN_COUNCIL_MODELS = 'local:alpha';
    process.env.BULLPEN_COUNCIL_CHAIRMAN = 'local:alpha';
    try {
      const ce = fails(await W.agent.call('council_ask', { question: 'Which way?' }), 'BUDGET_EXCEEDED');
      expect(ce.message).toMatch(/council_ask: the workspace day budget \(\$0\.50\) is spent/);
    } finally {
      for (const [k, v] of [['BULLPEN_COUNCIL_MODELS', saved.m], ['BULLPEN_COUNCIL_CHAIRMAN', saved.c]] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
    // raising the limit lets work resume
    ok(await W.human.call('budget_set', { scope: 'workspace', period: 'day', limit_usd: 100 }));
    ok(await W.human.call('budget_set', { scope: 'project', scope_id: 'CP', period: 'month', limit_usd: 10 }));
    expect(ok(await W.agent.call('task_claim', { task_id: t2.id })).claimed).toBe(true);
    expect(ok(await run.call('run_heartbeat', {})).stop).toBeUndefined();
  });

  it('reserves a claim’s estimate, refuses one that would pass the limit, and releases it at run_end or lease end', async () => {
    const R = await seedTenant(db, 'costs-res');
    const dan = await R.addAgent('Dan');
    const eve = await R.addAgent('Eve');
    ok(await R.human.call('project_create', { title: 'Reserve', key: 'RS' }));
    const t = await Promise.all([1, 2, 3].map(async (i) => ok(await R.human.call('task_create', { project_id: 'RS', title: `r${i}` })).task));
    ok(await R.human.call('budget_set', { scope: 'workspace', period: 'total', limit_usd: 0.5 }));
    const dRun = asRun(dan, { run_id: 'dan-run' });
    expect(ok(await dRun.call('task_claim', { task_id: t[0].id, estimated_cost_usd: 0.3 })).claimed).toBe(true);
    expect(ok(await R.human.call('budget_status', {})).budgets[0]).toMatchObject({ reserved_usd: 0.3, remaining_usd: 0.2 });
    const e = fails(await eve.call('task_claim', { task_id: t[1].id, estimated_cost_usd: 0.3 }), 'BUDGET_EXCEEDED');
    expect(e.message).toMatch(/\$0\.00 spent, \$0\.30 reserved, \$0\.30 asked/);
    expect(ok(await eve.call('task_claim', { estimated_cost_usd: 0.3 }))).toMatchObject({ claimed: false, reason: 'budget_exceeded' });
    // a renewal replaces its own reservation rather than adding to it
    expect(ok(await dRun.call('task_claim', { task_id: t[0].id, estimated_cost_usd: 0.4 })).extended).toBe(true);
    expect(ok(await R.human.call('budget_status', {})).budgets[0]).toMatchObject({ reserved_usd: 0.4 });
    // run_end releases the run's reservations
    ok(await dRun.call('run_end', { status: 'succeeded', usage: { model: 'house', cost_usd: 0.1 } }));
    expect(ok(await R.human.call('budget_status', {})).budgets[0]).toMatchObject({ spent_usd: 0.1, reserved_usd: 0 });
    expect(ok(await eve.call('task_claim', { task_id: t[1].id, estimated_cost_usd: 0.3 })).claimed).toBe(true);
    // a lease that ends (release) frees its reservation too
    ok(await eve.call('task_release', { task_id: t[1].id }));
    expect(ok(await R.human.call('budget_status', {})).budgets[0]).toMatchObject({ reserved_usd: 0 });
    expect(ok(await eve.call('task_claim', { task_id: t[2].id, estimated_cost_usd: 0.4 })).claimed).toBe(true);
  });
});
