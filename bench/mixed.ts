/**
 * A mixed workload over HTTP (MCP tools/call against `bullpen start`) on Postgres, at 8, 32 and
 * 64 agents, each level measured three ways in one run:
 *
 *   mixed       every agent loops whoami → task_claim → comment_add → task_update (in_progress)
 *               → task_update (done) → inbox; one loop in four also asks another agent a question
 *               (handoff_create) before closing its task, and whatever arrives in the inbox is
 *               answered (handoff_claim, handoff_respond) and acknowledged on the next inbox call.
 *               Throughput (loops/s, calls/s) and p50/p99 per tool.
 *   claim_next  the same number of agents calling task_claim alone, over HTTP.
 *   sql         the bare FOR UPDATE SKIP LOCKED claim statement at the same concurrency: the
 *               ceiling every product figure is printed against, as a ratio.
 *
 * Each phase also reports CPU per call split into Node (the `bullpen start` process and its
 * children) and Postgres (the postmaster and all its children), from /proc/<pid>/stat, sampled at
 * the start and end of the measured window. Every call's envelope is checked: refusals are counted
 * by tool and error code and reported, never measured as work.
 *
 * Env: BENCH_MIX_SECONDS (measured window per phase, default 6), BENCH_MIX_WARMUP (s, default one
 * tenth of a second per agent, at least 1, in the mix; the claim phases warm up for 1 s),
 * BENCH_MIX_LEVELS (default 8,32,64), BENCH_MIX_TASKS (workspace size, default 5000),
 * BENCH_RATE_LIMITS=off. Prints JSON lines.
 */
import pg from 'pg';
import { cpuSampler, emit, mcpCall, percentile, postmasterPid, scratchDatabase, seedWorkspace, startServer, unlimitedRates, addTasks, BARE_CLAIM_SQL, type CpuSample, envFields, runBench } from './lib';

const SECONDS = Number(process.env.BENCH_MIX_SECONDS ?? 6);
/**
 * Warm-up before the window opens: every agent starts with whoami at once, so the window must wait
 * until the loops have spread out — about one loop, which grows with the number of agents.
 */
const warmupFor = (agents: number) => Number(process.env.BENCH_MIX_WARMUP ?? Math.max(1, agents / 10));
const LEVELS = (process.env.BENCH_MIX_LEVELS ?? '8,32,64').split(',').map(Number);
const TASKS = Number(process.env.BENCH_MIX_TASKS ?? 5000);
const HANDOFF_EVERY = 4;
const TOOL_ORDER = ['whoami', 'task_claim', 'comment_add', 'task_update', 'handoff_create', 'inbox', 'handoff_claim', 'handoff_respond'];

type Env = { ok: boolean; [k: string]: any };

/**
 * One measured phase: agents run from the start; the window opens after the warm-up and closes
 * SECONDS later, each edge with a CPU sample. Calls and loops count when they end inside the window.
 */
class Phase {
  from = Infinity;
  to = Infinity;
  readonly end: number;
  readonly warmup: number;
  readonly latencies = new Map<string, number[]>();
  readonly errors = new Map<string, number>();
  calls = 0;
  loops = 0;
  cpu: { a?: CpuSample; b?: CpuSample } = {};
  private timers: NodeJS.Timeout[] = [];

  constructor(sample: () => CpuSample, warmup: number) {
    const t0 = performance.now();
    this.warmup = warmup;
    this.end = t0 + (warmup + SECONDS) * 1000;
    this.timers.push(
      setTimeout(() => {
        this.cpu.a = sample();
        this.from = this.cpu.a.at;
      }, warmup * 1000),
      setTimeout(() => {
        this.cpu.b = sample();
        this.to = this.cpu.b.at;
      }, (warmup + SECONDS) * 1000),
    );
  }

  running(): boolean {
    return performance.now() < this.end;
  }

  inWindow(t: number): boolean {
    return t >= this.from && t < this.to;
  }

  error(tool: string, code: string) {
    const k = `${tool}:${code}`;
    this.errors.set(k, (this.errors.get(k) ?? 0) + 1);
  }

  /** Times one call; a refusal or a transport failure is counted by code and answers null. */
  async time<T>(tool: string, fn: () => Promise<T>, ok: (r: T) => string | null = () => null): Promise<T | null> {
    const s = performance.now();
    let r: T;
    try {
      r = await fn();
    } catch (err) {
      this.error(tool, `TRANSPORT(${String((err as Error).message).slice(0, 60)})`);
      return null;
    }
    const e = performance.now();
    const bad = ok(r);
    if (bad) {
      this.error(tool, bad);
      return null;
    }
    if (this.inWindow(e)) {
      this.calls++;
      let list = this.latencies.get(tool);
      if (!list) this.latencies.set(tool, (list = []));
      list.push(e - s);
    }
    return r;
  }

  loopDone() {
    if (this.inWindow(performance.now())) this.loops++;
  }

  /** Waits for the window to close (the agents may stop earlier, e.g. when the pool runs dry). */
  async closed(): Promise<void> {
    while (!this.cpu.b) await new Promise((r) => setTimeout(r, 20));
  }

  seconds(): number {
    return (this.to - this.from) / 1000;
  }

  perTool() {
    const seconds = this.seconds();
    return [...this.latencies.entries()]
      .sort(([a], [b]) => TOOL_ORDER.indexOf(a) - TOOL_ORDER.indexOf(b))
      .map(([tool, list]) => {
        list.sort((x, y) => x - y);
        return { tool, calls: list.length, calls_per_s: Math.round(list.length / seconds), p50_ms: percentile(list, 50), p99_ms: percentile(list, 99) };
      });
  }

  errorSummary() {
    let n = 0;
    for (const v of this.errors.values()) n += v;
    return { errors: n, errors_by_code: Object.fromEntries(this.errors) };
  }
}

/** An MCP envelope that is not ok names its error code. */
const envOk = (env: Env) => (env.ok ? null : String(env.error?.code ?? 'NOT_OK'));

/**
 * A claim phase (1 s of warm-up, then SECONDS measured): every agent in `agents` claims through
 * `claim` in a loop until the phase ends or its `claim` answers false (the pool ran dry for it);
 * resolves with the closed phase.
 */
async function claimPhase<A>(sample: () => CpuSample, agents: A[], claim: (phase: Phase, me: A) => Promise<boolean>): Promise<Phase> {
  const phase = new Phase(sample, 1);
  await Promise.all(
    agents.map(async (me) => {
      while (phase.running()) if (!(await claim(phase, me))) return;
    }),
  );
  await phase.closed();
  return phase;
}

async function main() {
  const maxAgents = Math.max(...LEVELS);
  const scratch = await scratchDatabase({ prefix: 'bp_mix' });
  const { db } = scratch;
  const ws = await seedWorkspace(db, { name: 'mix', tasks: TASKS, agents: maxAgents, keys: true });
  const server = await startServer({ DATABASE_URL: scratch.url, ...unlimitedRates() });
  const bare = new pg.Pool({ connectionString: scratch.url, max: maxAgents + 4 });
  const pgPid = await postmasterPid(bare);
  const cpu = cpuSampler(server.pid, pgPid);
  const settle = async () => {
    // each phase leaves updated rows behind: vacuum them now, so autovacuum catching up is not
    // charged to whichever phase runs next
    await bare.query('vacuum (analyze)');
  };
  emit({
    ...(await envFields('mixed', bare)),
    seconds_per_phase: SECONDS,
    warmup_seconds: process.env.BENCH_MIX_WARMUP ? Number(process.env.BENCH_MIX_WARMUP) : 'max(1, agents / 10) in the mix, 1 in the claim phases',
    workspace_tasks: TASKS,
    agents_in_workspace: maxAgents,
    rate_limits: process.env.BENCH_RATE_LIMITS === 'off' ? 'off' : 'buckets too large to empty',
    cpu_accounting: pgPid ? 'proc' : 'server only (Postgres is not on this machine)',
  });

  try {
    for (const n of LEVELS) {
      const agents = ws.agents.slice(0, n);
      const [{ todo }] = (await bare.query(`select count(*)::int as todo from public.tasks where tenant_id = $1 and status = 'todo'`, [ws.tenantId])).rows;
      // a longer run (BENCH_MIX_SECONDS) must not run dry: top the pool up
      if (todo < 2000) await addTasks(db, ws, TASKS);
      await settle();

      // ------------------------------------------------------------------ mixed
      const mix = new Phase(cpu.sample, warmupFor(n));
      let handoffsSent = 0;
      let handoffsAnswered = 0;
      let responsesRead = 0;
      let dry = 0;
      await Promise.all(
        agents.map(async (me, i) => {
          const call = (tool: string, args: Record<string, unknown>) => mix.time(tool, () => mcpCall(server.url, me.key, tool, args), envOk);
          let ack: string[] = [];
          for (let k = 0; mix.running(); k++) {
            await call('whoami', {});
            const claim = await mix.time('task_claim', () => mcpCall(server.url, me.key, 'task_claim', {}), (env) =>
              !env.ok ? envOk(env) : env.claimed ? null : `claimed:false(${env.reason})`,
            );
            if (!claim) {
              if (++dry > 100) return;
              continue;
            }
            const task = claim.task as { id: string; ref: string };
            await call('comment_add', { object_type: 'task', object_id: task.id, body: `agent ${i}: picked this up (loop ${k})` });
            await call('task_update', { task_id: task.id, patch: { status: 'in_progress' } });
            if (n > 1 && (i + k) % HANDOFF_EVERY === 0) {
              const to = agents[(i + 1 + (k % (n - 1))) % n];
              const sent = await call('handoff_create', {
                to_actor_ids: [to.id],
                kind: 'question',
                title: `agent ${i}, loop ${k}: is ${task.ref} safe to close?`,
                body: 'a quick yes or no, with a reason',
                related_task_id: task.id,
              });
              if (sent) handoffsSent++;
            }
            await call('task_update', { task_id: task.id, patch: { status: 'done' } });
            const inbox = await call('inbox', { limit: 20, ...(ack.length ? { ack } : {}) });
            ack = [];
            for (const item of (inbox?.items ?? []) as { id: string; kind: string; handoff?: { id: string; status: string } }[]) {
              if (item.kind === 'handoff' && item.handoff) {
                const claimed = await call('handoff_claim', { handoff_id: item.handoff.id });
                if (claimed && (await call('handoff_respond', { handoff_id: item.handoff.id, response: { text: `agent ${i}: yes, the tests pass` } }))) handoffsAnswered++;
              } else if (item.kind === 'response') responsesRead++;
              ack.push(item.id);
            }
            mix.loopDone();
          }
          // acknowledge what was acted on, outside the window, so the next level starts clean
          if (ack.length) await mix.time('inbox', () => mcpCall(server.url, me.key, 'inbox', { ack, limit: 1 }), envOk);
        }),
      );
      await mix.closed();
      const mixCpu = cpu.split(mix.cpu.a!, mix.cpu.b!, mix.calls);
      for (const t of mix.perTool()) emit({ bench: 'mixed_tool', agents: n, ...t });
      const mixSummary = {
        agents: n,
        warmup_seconds: mix.warmup,
        seconds: Math.round(mix.seconds() * 100) / 100,
        loops: mix.loops,
        loops_per_s: Math.round((mix.loops / mix.seconds()) * 10) / 10,
        calls: mix.calls,
        calls_per_s: Math.round(mix.calls / mix.seconds()),
        handoffs_sent: handoffsSent,
        handoffs_answered: handoffsAnswered,
        responses_read: responsesRead,
        ...mix.errorSummary(),
        ...mixCpu,
      };

      // ------------------------------------------------------------------ claim-next over HTTP
      await settle();
      // enough for the bare claim's rate on a quiet machine over the whole phase
      const pool = Math.max(5000, n * 1000);
      const cws = await seedWorkspace(db, { name: 'mix-claim', tasks: pool, agents: n, keys: true });
      await settle();
      const cn = await claimPhase(cpu.sample, cws.agents, async (phase, me) => {
        const r = await phase.time('task_claim', () => mcpCall(server.url, me.key, 'task_claim', {}), (env) =>
          !env.ok ? envOk(env) : env.claimed ? null : `claimed:false(${env.reason})`,
        );
        return !r || !!r.claimed;
      });
      const claimNext = {
        agents: n,
        mode: 'http',
        claims: cn.calls,
        claims_per_s: Math.round(cn.calls / cn.seconds()),
        p50_ms: percentile((cn.latencies.get('task_claim') ?? []).sort((a, b) => a - b), 50),
        p99_ms: percentile((cn.latencies.get('task_claim') ?? []).sort((a, b) => a - b), 99),
        ...cn.errorSummary(),
        ...cpu.split(cn.cpu.a!, cn.cpu.b!, cn.calls),
      };

      // ------------------------------------------------------------------ the ceiling: bare SQL
      // runs last at each level: its churn must not be charged to the product paths
      await settle();
      const sws = await seedWorkspace(db, { name: 'mix-sql', tasks: pool, agents: n, keys: false });
      await settle();
      const sq = await claimPhase(cpu.sample, sws.agents, async (phase, me) => {
        return !!(await phase.time('claim_sql', () => bare.query(BARE_CLAIM_SQL, [sws.tenantId, me.id]), (res) => (res.rowCount ? null : 'POOL_EMPTY')));
      });
      const ceilingRate = sq.calls / sq.seconds();
      const sqlList = (sq.latencies.get('claim_sql') ?? []).sort((a, b) => a - b);
      const ratio = (x: number) => Math.round((x / ceilingRate) * 1000) / 1000;
      emit({
        bench: 'claim_ceiling',
        agents: n,
        mode: 'sql',
        claims: sq.calls,
        claims_per_s: Math.round(ceilingRate),
        p50_ms: percentile(sqlList, 50),
        p99_ms: percentile(sqlList, 99),
        ...sq.errorSummary(),
        ...cpu.split(sq.cpu.a!, sq.cpu.b!, sq.calls),
      });
      emit({ bench: 'claim_next', ...claimNext, ceiling_claims_per_s: Math.round(ceilingRate), ratio_to_ceiling: ratio(claimNext.claims_per_s) });
      // every mixed loop claims one task: loops/s is its claim rate, next to the bare claim's
      emit({ bench: 'mixed', ...mixSummary, ceiling_claims_per_s: Math.round(ceilingRate), loops_ratio_to_ceiling: ratio(mixSummary.loops_per_s), calls_ratio_to_ceiling: ratio(mixSummary.calls_per_s) });
    }
  } finally {
    await server.stop();
    await bare.end();
    await scratch.close();
  }
}

runBench(main);
