import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fails, freshDb, ok, seedTenant, target, type Tenant, type TestDb } from '../helpers/db';

/**
 * Every row-level-security policy reads the request's claims once per statement, not once per row:
 * a claim reader (`bullpen.tenant_id()`, `bullpen.actor_id()`, `bullpen.can_see_sensitive()`, any
 * zero-argument helper of ours, `current_setting`) appears only as a scalar subquery,
 * `(select bullpen.tenant_id())`, which the planner runs once as an InitPlan. Written bare, the
 * helper inlines into the filter and parses the claims JSON for every row the policy looks at.
 * Policies are read from the catalog, so one a later migration adds is held to the same form.
 */

let db: TestDb;
let A: Tenant;

beforeAll(async () => {
  db = await freshDb();
  A = await seedTenant(db, 'rls-once');
  ok(await A.agent.call('project_create', { title: 'Once', key: 'ON' }));
  ok(await A.agent.call('task_create', { project_id: 'ON', title: 'one' }));
});

afterAll(async () => {
  await db.drop();
});

type Policy = { schema: string; tablename: string; policyname: string; qual: string | null; with_check: string | null };

/** A call of a claim reader: a zero-argument function of ours, or current_setting. */
const READER = /\b(bullpen|auth|realtime)\.(\w+)\(\)|\bcurrent_setting\(/g;

/**
 * The claim-reader calls in a policy expression (as pg_policies deparses it) that are not the
 * whole of a scalar subquery, `( SELECT bullpen.f() AS f)`. A set-returning helper in a
 * subquery's FROM (`in (select … from bullpen.f() t)`) is read once too and passes.
 */
function bareReaders(expr: string | null): string[] {
  if (!expr) return [];
  const bare: string[] = [];
  for (const m of expr.matchAll(READER)) {
    const before = expr.slice(0, m.index);
    const after = expr.slice(m.index! + m[0].length);
    const scalar = m[1] !== undefined && /\(\s*SELECT\s+$/i.test(before) && /^\s+AS\s+\w+\)/i.test(after);
    const fromItem = m[1] !== undefined && /\bFROM\s+$/i.test(before);
    if (!scalar && !fromItem) bare.push(m[0]);
  }
  return bare;
}

async function policies(): Promise<Policy[]> {
  return db.query<Policy>(
    `select schemaname as schema, tablename, policyname, qual, with_check from pg_policies
      where schemaname not in ('pg_catalog', 'information_schema') order by 1, 2, 3`,
  );
}

/** The filter and index-condition lines of a verbose plan: where an expression runs per row. */
function perRowLines(plan: string[]): string[] {
  return plan.filter((l) => /^(Filter|Index Cond|Recheck Cond|Join Filter|Hash Cond):/.test(l.trim().replace(/^->\s*/, '')));
}

async function explain(claims: Tenant['agent']['claims'] | null, sql: string): Promise<string[]> {
  const q = `explain (verbose, costs off) ${sql}`;
  const rows = claims ? await db.withClaims<{ 'QUERY PLAN': string }>(claims, q) : await db.query<{ 'QUERY PLAN': string }>(q);
  return rows.map((r) => r['QUERY PLAN']);
}

describe('policies read the claims once per statement', () => {
  it('no policy calls a claim reader bare', async () => {
    const all = await policies();
    expect(all.length).toBeGreaterThanOrEqual(100);
    const offenders = all.flatMap((p) =>
      [...bareReaders(p.qual).map((c) => ['using', c]), ...bareReaders(p.with_check).map((c) => ['with check', c])].map(
        ([where, call]) => `${p.schema}.${p.tablename} ${p.policyname} (${where}): ${call}`,
      ),
    );
    expect(offenders).toEqual([]);
    const reads = new RegExp(READER.source);
    const readers = all.filter((p) => reads.test(`${p.qual ?? ''} ${p.with_check ?? ''}`));
    expect(readers.length).toBeGreaterThanOrEqual(100);
    console.log(`[rls-once:${target}] ${all.length} policies, ${readers.length} read the claims, none bare`);
  });

  it('a policy written with a bare call is caught, naming its table, policy and call', async () => {
    const caught = await db
      .transaction(async (s) => {
        await s.exec(`create policy zz_bare_probe on public.tasks for select to authenticated
                        using (tenant_id = bullpen.tenant_id() and bullpen.actor_id() is not null)`);
        await s.exec(`create policy zz_scalar_probe on public.tasks for select to authenticated
                        using (tenant_id = (select bullpen.tenant_id()))`);
        const rows = await s.query<Policy>(`select policyname, qual from pg_policies where policyname like 'zz\\_%' order by 1`);
        throw Object.assign(new Error('rollback'), { rows });
      })
      .catch((e: { rows?: Policy[] }) => e.rows ?? []);
    expect(caught.map((p) => [p.policyname, bareReaders(p.qual)])).toEqual([
      ['zz_bare_probe', ['bullpen.tenant_id()', 'bullpen.actor_id()']],
      ['zz_scalar_probe', []],
    ]);
    // rolled back: nothing of the probe is left
    expect(await db.query(`select 1 from pg_policies where policyname like 'zz\\_%'`)).toEqual([]);
  });

  it('the planner runs the policy’s tenant read once (an InitPlan), not in the per-row filter', async () => {
    // as the API role: the policy's filter compares to the InitPlan's value
    const plan = await explain(A.agent.claims, `select id from public.tasks where title <> 'x'`);
    expect(plan.join('\n')).toMatch(/InitPlan/);
    const perRow = perRowLines(plan);
    expect(perRow.length).toBeGreaterThan(0);
    expect(perRow.filter((l) => /current_setting|jsonb/.test(l))).toEqual([]);
    // the same read written bare, as the server (no policy): the claims parse lands in the filter
    const bare = perRowLines(await explain(null, `select id from public.tasks where title <> 'x' and tenant_id = bullpen.tenant_id()`));
    expect(bare.some((l) => /current_setting/.test(l))).toBe(true);
  });

  it('what a policy lets through is unchanged: the caller’s workspace only', async () => {
    const B = await seedTenant(db, 'rls-once-b');
    ok(await B.agent.call('project_create', { title: 'Other', key: 'OT' }));
    ok(await B.agent.call('task_create', { project_id: 'OT', title: 'theirs' }));
    const mine = await db.withClaims<{ title: string }>(A.agent.claims, `select title from public.tasks order by title`);
    expect(mine.map((r) => r.title)).toEqual(['one']);
    const theirs = await db.withClaims<{ n: number }>(A.agent.claims, `select count(*)::int as n from public.tasks where tenant_id = '${B.id}'`);
    expect(theirs).toEqual([{ n: 0 }]);
    fails(await A.agent.call('task_get', { task_id: 'OT-1' }), 'NOT_FOUND');
  });
});
