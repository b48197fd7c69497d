/**
 * The scale bench's workspace (bench/scale.ts). Projects and handoffs go through the real RPCs
 * (project_create, handoff_create, handoff_claim, handoff_respond, inbox), run inside Postgres many
 * per statement (`select public.rpc(…) from generate_series(…)`, one transaction per batch under
 * one actor's claims) instead of one round trip per call. Tasks, notes and the bulk of the activity
 * log take a bulk path that writes the rows task_create, knowledge_write and activity_log write
 * (BULK_TASKS_SQL, BULK_NOTES_SQL, BULK_ACTIVITY_SQL; tests/db/scale-seed.test.ts proves them
 * identical, column by column, and the triggers fire as they do for the RPC). Sizes scale with `scale` (1 = 100,000 tasks in 50 projects, 1,000,000 activity
 * rows, 100,000 notes, 20,000 handoffs).
 */
import pg from 'pg';
import type { Claims, Db } from '../lib/db/types';
import { ensureActor, ensureWorkspace, mintKey } from '../lib/server/workspace';

export type ScaleAgent = { id: string; key: string; claims: Claims };
export type ScaleWorkspace = { tenantId: string; ownerId: string; agents: ScaleAgent[]; projects: string[]; counts: Record<string, number> };

export const SIZES = { projects: 50, tasks: 100_000, activity: 1_000_000, notes: 100_000, handoffs: 20_000, agents: 50 };

/** Runs `sql` (with `$1` = a jsonb argument) in one transaction under `claims`, as the API role. */
async function asActor(client: pg.Client, claims: Claims, sql: string, params: unknown[] = []): Promise<pg.QueryResult> {
  await client.query('begin');
  try {
    await client.query(
      `select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true), set_config('bullpen.notify', 'off', true)`,
      [JSON.stringify(claims)],
    );
    const r = await client.query(sql, params);
    await client.query('commit');
    return r;
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  }
}

/**
 * Runs `sql` in one transaction as the server itself (no row security) with `claims` set, as a bulk
 * path needs: the triggers and bullpen.tenant_id()/actor_id()/run_id() see the same caller as in the RPC.
 */
export async function asServer(
  client: { query: (sql: string, params?: unknown[]) => Promise<unknown> },
  claims: Claims,
  sql: string | string[],
  params: unknown[] | unknown[][],
): Promise<void> {
  const statements = Array.isArray(sql) ? sql : [sql];
  await client.query('begin');
  try {
    await client.query(`select set_config('request.jwt.claims', $1, true), set_config('bullpen.notify', 'off', true)`, [JSON.stringify(claims)]);
    for (const [k, statement] of statements.entries()) await client.query(statement, (Array.isArray(sql) ? params[k] : params) as unknown[]);
    await client.query('commit');
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  }
}

/**
 * Tasks $2 … $2 + $3 − 1 of project $1, as task_create writes them for {title, body, priority,
 * status, labels, assignee_actor_id} (insert_task's insert, the project's task_seq, and its
 * `task.created` row). A task is todo (90 %) or backlog (10 %), then DONE_VIA_RPC_SQL closes a fifth of
 * them through the RPCs; priorities 0–4; one in ten is assigned to an agent of $4 (a jsonb array of actor ids).
 */
export const BULK_TASKS_SQL = `
  with pr as (
    update public.projects set task_seq = task_seq + $3::int where tenant_id = bullpen.tenant_id() and key = $1::text
    returning id, key, task_seq - $3::int as base),
  t as (
    insert into public.tasks (tenant_id, project_id, seq, title, body, status, priority, assignee_actor_id, due_on,
                              parent_task_id, labels, acceptance_criteria, requires_evidence, reviewer_actor_id,
                              created_by_actor_id, meta, order_index)
    select bullpen.tenant_id(), pr.id, pr.base + (g - $2::int + 1), 'scale task ' || pr.key || ' ' || g, 'what to do for item ' || g,
           case when g % 10 = 9 then 'backlog' else 'todo' end, g % 5,
           case when g % 10 = 3 then ($4::jsonb ->> (g % jsonb_array_length($4::jsonb)))::uuid end, null, null,
           bullpen.text_array(jsonb_build_array('area-' || (g % 7), 'scale')), bullpen.normalize_criteria(null), false, null,
           bullpen.actor_id(), bullpen.meta_arg(null, 'meta'), extract(epoch from clock_timestamp())
      from pr, generate_series($2::int, $2::int + $3::int - 1) g
     order by g
    returning *)
  select count(bullpen.log('task.created', 'task', t.id, t.project_id, format('%s-%s %s', $1::text, t.seq, t.title))) from t`;

/**
 * Of the tasks BULK_TASKS_SQL just made ($1–$3 as there), those with g % 10 in 6–7 are then done
 * through the real RPCs, task_claim then task_update {status: 'done'}, by the caller. Run after it,
 * in the same transaction.
 */
export const DONE_VIA_RPC_SQL = `
  with pr as (select id, task_seq - $3::int as base from public.projects where tenant_id = bullpen.tenant_id() and key = $1::text),
  d as (
    select t.id from public.tasks t, pr
     where t.tenant_id = bullpen.tenant_id() and t.project_id = pr.id and t.seq > pr.base and t.seq <= pr.base + $3::int
       and t.status = 'todo' and t.assignee_actor_id is null and (t.seq - pr.base - 1 + $2::int) % 10 between 6 and 7
     order by t.seq)
  select count(public.task_claim(jsonb_build_object('task_id', d.id::text)) ->> 'claimed'),
         count(public.task_update(jsonb_build_object('task_id', d.id::text, 'patch', jsonb_build_object('status', 'done'))))
    from d`;

/**
 * Notes $1 … $1 + $2 − 1 in projects P0 … P($3 − 1), as knowledge_write writes them (its insert and
 * its `note.written` row, word for word; tests/db/scale-seed.test.ts compares the two paths' rows).
 * Titles are unlike one another, so knowledge_write's near-duplicate check would link none of them.
 */
export const BULK_NOTES_SQL = `
  with x as (
    select substr(md5(g::text), 1, 10) || ' ' || substr(md5((g * 7)::text), 1, 10) as title,
           'what we learned about area ' || (g % 97) || ' while working on item ' || g as body,
           'P' || (g % $3::int) as project, array['area-' || (g % 7)] as tags
      from generate_series($1::int, $1::int + $2::int - 1) g),
  n as (
    insert into public.knowledge_notes (tenant_id, project_id, kind, language, category, title, body, tags, expires_at, author_actor_id,
                                        updated_by_actor_id, run_id, content_hash, embedding_status)
    select bullpen.tenant_id(), pr.id, 'finding', null, null, x.title, x.body, array(select distinct unnest(x.tags)), null,
           bullpen.actor_id(), bullpen.actor_id(), bullpen.run_id(), bullpen.memory_hash(bullpen.note_embed_text(x.title, x.body)),
           case when bullpen.memory_vectors_available() then 'pending' else 'unavailable' end
      from x join public.projects pr on pr.tenant_id = bullpen.tenant_id() and pr.key = x.project
    returning *)
  select count(bullpen.log('note.written', 'note', n.id, n.project_id, format('%s: %s', n.kind, n.title),
           jsonb_build_object('kind', n.kind, 'tags', to_jsonb(n.tags), 'related_task_ids', to_jsonb('{}'::uuid[]))))
    from n`;

/**
 * Milestones $1 … $1 + $2 − 1 on the workspace's tasks, as activity_log writes them for
 * {verb, summary, severity, object_type: 'task', object_id} (its insert, content hash included).
 */
export const BULK_ACTIVITY_SQL = `
  with t as (select array_agg(id order by id) as ids from (select id from public.tasks where tenant_id = bullpen.tenant_id() order by id limit 2000) x),
  x as (
    select (array['tests.passed', 'deploy.finished', 'build.failed'])[1 + g % 3] as verb, 'milestone ' || g as summary,
           case when g % 50 = 0 then 'warn' else 'info' end as severity, t.ids[1 + g % array_length(t.ids, 1)] as task_id
      from t, generate_series($1::int, $1::int + $2::int - 1) g)
  insert into public.activity (tenant_id, project_id, actor_id, run_id, verb, object_type, object_id, summary, severity, status, metadata, content_hash)
  select bullpen.tenant_id(), tk.project_id, bullpen.actor_id(), bullpen.run_id(), x.verb, 'task', tk.id, x.summary, x.severity, null, '{}',
         md5(jsonb_build_array(bullpen.actor_id(), bullpen.run_id(), x.verb, x.summary, 'task', tk.id::text, x.severity, null::text, '{}'::jsonb)::text)
    from x join public.tasks tk on tk.tenant_id = bullpen.tenant_id() and tk.id = x.task_id
  on conflict (tenant_id, content_hash) where content_hash is not null do nothing`;

/** Runs jobs over `clients` connections, each connection taking the next job when it is free. */
async function pool<T>(clients: pg.Client[], jobs: T[], run: (c: pg.Client, job: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    clients.map(async (c) => {
      while (next < jobs.length) await run(c, jobs[next++]);
    }),
  );
}

export async function seedScale(
  db: Db,
  url: string,
  opts: { scale?: number; connections?: number; log?: (msg: string) => void } = {},
): Promise<ScaleWorkspace> {
  const scale = opts.scale ?? 1;
  const log = opts.log ?? (() => {});
  const n = (x: number) => Math.max(1, Math.round(x * scale));
  const PROJECTS = Math.min(SIZES.projects, n(SIZES.projects));
  const TASKS = n(SIZES.tasks);
  const NOTES = n(SIZES.notes);
  const HANDOFFS = n(SIZES.handoffs);
  const ACTIVITY = n(SIZES.activity);
  const ws = await ensureWorkspace(db, `scale-${Date.now().toString(36)}`);
  const owner = await ensureActor(db, ws.id, { kind: 'human', external_ref: 'human:scale', display_name: 'Scale owner', is_owner: true });
  const agents: ScaleAgent[] = [];
  for (let i = 0; i < SIZES.agents; i++) {
    const a = await ensureActor(db, ws.id, { kind: 'agent', external_ref: `agent:scale-${i}`, display_name: `scale-${i}` });
    agents.push({ id: a.id, key: (await mintKey(db, ws.id, a.id)).api_key, claims: { sub: a.id, role: 'authenticated', tenant_id: ws.id, actor_id: a.id, run_id: `scale-${i}` } });
  }
  const ownerClaims: Claims = { sub: owner.id, role: 'authenticated', tenant_id: ws.id, actor_id: owner.id, run_id: 'scale-owner' };
  const clients = await Promise.all(
    Array.from({ length: opts.connections ?? 4 }, async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      return c;
    }),
  );
  const t0 = performance.now();
  const lap = (what: string) => log(`seeded ${what} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  try {
    const projects: string[] = [];
    for (let p = 0; p < PROJECTS; p++) projects.push(`P${p}`);
    await asActor(
      clients[0],
      ownerClaims,
      `select public.project_create(jsonb_build_object('key', 'P' || g, 'title', 'Scale project ' || g)) from generate_series(0, $1::int - 1) g`,
      [PROJECTS],
    );
    lap(`${PROJECTS} projects`);

    // tasks: the bulk path (BULK_TASKS_SQL), 500 per statement, by the agents in turn. A task is todo (60 %), done
    // (30 %) or backlog (10 %); priorities 0–4; labels from a small set; one in ten assigned.
    const perCall = 500;
    const taskJobs: { project: string; from: number; count: number; who: ScaleAgent }[] = [];
    const perProject = Math.ceil(TASKS / PROJECTS);
    let made = 0;
    for (let p = 0; p < PROJECTS && made < TASKS; p++) {
      for (let from = 0; from < perProject && made < TASKS; from += perCall) {
        const count = Math.min(perCall, perProject - from, TASKS - made);
        taskJobs.push({ project: projects[p], from, count, who: agents[taskJobs.length % agents.length] });
        made += count;
      }
    }
    const agentIds = JSON.stringify(agents.map((a) => a.id));
    await pool(clients, taskJobs, (c, job) =>
      asServer(c, job.who.claims, [BULK_TASKS_SQL, DONE_VIA_RPC_SQL], [[job.project, job.from, job.count, agentIds], [job.project, job.from, job.count]]),
    );
    lap(`${TASKS} tasks`);

    // notes: the bulk path (BULK_NOTES_SQL), 1,000 per statement
    const noteJobs: { from: number; count: number; who: ScaleAgent }[] = [];
    for (let from = 0; from < NOTES; from += 1000) noteJobs.push({ from, count: Math.min(1000, NOTES - from), who: agents[noteJobs.length % agents.length] });
    await pool(clients, noteJobs, (c, job) => asServer(c, job.who.claims, BULK_NOTES_SQL, [job.from, job.count, PROJECTS]).then(() => {}));
    lap(`${NOTES} notes`);

    // handoffs: handoff_create from one agent to the next; nine in ten are then claimed, answered
    // and their answer acknowledged by the sender (settled history), one in ten stays open
    const handoffJobs: { from: number; count: number; sender: ScaleAgent; to: ScaleAgent }[] = [];
    for (let from = 0, k = 0; from < HANDOFFS; from += 200, k++) {
      handoffJobs.push({ from, count: Math.min(200, HANDOFFS - from), sender: agents[k % agents.length], to: agents[(k + 1) % agents.length] });
    }
    await pool(clients, handoffJobs, async (c, job) => {
      const ids = (
        await asActor(
          c,
          job.sender.claims,
          `select (public.handoff_create(jsonb_build_object('to_actor_ids', jsonb_build_array($3::text), 'kind', 'question',
                     'title', 'question ' || g, 'body', 'can you look at item ' || g)) ->> 'handoff_id') as id
             from generate_series($1::int, $1::int + $2::int - 1) g`,
          [job.from, job.count, job.to.id],
        )
      ).rows.map((r) => r.id as string);
      const settle = ids.filter((_, i) => (job.from + i) % 10 !== 0);
      await asActor(
        c,
        job.to.claims,
        `select public.handoff_claim(jsonb_build_object('handoff_id', h)), public.handoff_respond(jsonb_build_object('handoff_id', h, 'response', jsonb_build_object('text', 'done')))
           from unnest($1::text[]) h`,
        [settle],
      );
      await asActor(c, job.sender.claims, `select public.inbox(jsonb_build_object('ack', $1::jsonb))`, [JSON.stringify(settle)]);
    });
    lap(`${HANDOFFS} handoffs`);

    // activity: what the writes above logged, then activity_log milestones by the agents in turn
    // (BULK_ACTIVITY_SQL, on the workspace's tasks) until the table holds ACTIVITY rows
    const [{ count: have }] = (await clients[0].query(`select count(*)::int as count from public.activity where tenant_id = $1`, [ws.id])).rows;
    const more = Math.max(0, ACTIVITY - have);
    const activityJobs: { from: number; count: number; who: ScaleAgent }[] = [];
    for (let from = 0; from < more; from += 5000) activityJobs.push({ from, count: Math.min(5000, more - from), who: agents[activityJobs.length % agents.length] });
    await pool(clients, activityJobs, (c, job) => asServer(c, job.who.claims, BULK_ACTIVITY_SQL, [job.from, job.count]).then(() => {}));
    lap(`${ACTIVITY} activity rows`);
    const counts = (
      await clients[0].query(
        `select (select count(*) from public.tasks where tenant_id = $1)::int as tasks, (select count(*) from public.projects where tenant_id = $1)::int as projects,
                (select count(*) from public.activity where tenant_id = $1)::int as activity, (select count(*) from public.knowledge_notes where tenant_id = $1)::int as notes,
                (select count(*) from public.handoffs where tenant_id = $1)::int as handoffs`,
        [ws.id],
      )
    ).rows[0];
    await clients[0].query('vacuum analyze');
    lap('and analyzed');
    return { tenantId: ws.id, ownerId: owner.id, agents, projects, counts };
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
}
