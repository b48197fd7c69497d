/**
 * Claim-next with routing in play (issue 20: capabilities, load limits, agent status), through the
 * executor in-process on Postgres, at 1 and 8 concurrent agents. Prints JSON lines.
 *
 * BENCH_ROUTING=on gives every agent capabilities and a load limit (1000, so the limit is checked on
 * every call but never reached within a run) and makes every 3rd task require "python" (which the
 * agents have) and every 7th require "gpu" (which they lack, so claim-next steps over it). Off: the
 * plain pool, the same as bench/claim.ts seeds it. The same file runs against an earlier release
 * (which has no routing columns) for a before/after ratio; bench/results/claim-routing.jsonl keeps
 * four alternated rounds (before = the release before routing, after-plain, after-routing).
 */
import { execute } from '../lib/core/execute';
import { emit, runBench, scratchDatabase, seedWorkspace } from './lib';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const LEVELS = (process.env.BENCH_LEVELS ?? '1,8').split(',').map(Number);
const ROUTING = process.env.BENCH_ROUTING === 'on';
const LABEL = process.env.BENCH_LABEL ?? (ROUTING ? 'routing' : 'plain');

async function main() {
  const scratch = await scratchDatabase({ prefix: 'bp_route' });
  const { db } = scratch;
  try {
    for (const n of LEVELS) {
      const ws = await seedWorkspace(db, { name: `route-${n}`, tasks: Math.max(4000, n * 1500), agents: n, keys: false });
      if (ROUTING) {
        await db.query(`update public.actors set capabilities = '{python,bench}', max_concurrent_tasks = 1000 where tenant_id = $1 and kind = 'agent'`, [ws.tenantId]);
        await db.query(
          `update public.tasks set requires_capabilities = case when seq % 7 = 0 then '{gpu}'::text[] when seq % 3 = 0 then '{python}'::text[] else '{}' end
            where tenant_id = $1`,
          [ws.tenantId],
        );
      }
      await db.query('vacuum (analyze) public.tasks, public.actors');
      let claims = 0;
      let refused = 0;
      const deadline = Date.now() + SECONDS * 1000;
      const t0 = performance.now();
      await Promise.all(
        ws.agents.map(async (a) => {
          while (Date.now() < deadline) {
            const env = await execute({ db, claims: a.claims }, 'task_claim', {});
            if (!env.ok) throw new Error(env.error.message);
            if (env.claimed) claims++;
            else if (env.reason === 'pool_empty') return;
            else refused++;
          }
        }),
      );
      const seconds = (performance.now() - t0) / 1000;
      emit({
        bench: 'claim_routing',
        label: LABEL,
        routing: ROUTING,
        concurrency: n,
        claims,
        refused,
        seconds: Math.round(seconds * 1000) / 1000,
        claims_per_s: Math.round(claims / seconds),
        ms_per_call: Math.round(((seconds * 1000 * n) / Math.max(1, claims)) * 1000) / 1000,
      });
    }
  } finally {
    await scratch.close();
  }
}

runBench(main);
