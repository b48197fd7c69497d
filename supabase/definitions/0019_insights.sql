-- Insights: a project at a glance, read from the ledger's own rows. One read-only RPC that agents
-- and the console call alike (project_insights); no table of its own, nothing cached.
--
-- What each figure means, in the ledger's terms:
-- - throughput: tasks that reached done, per UTC day of the window (completed_at);
-- - cycle time: claim to done, started_at (the first move to in_progress, which a claim makes) to
--   completed_at, for tasks done in the window;
-- - work in progress: at the end of each day (now, for today), the tasks started and not yet
--   finished, by their assignee. A task released back to the pool is not counted: its row keeps
--   when it started but not when it stopped;
-- - blocked chain: the longest path of open dependencies (a dependent that is not finished, on a
--   task that is not done), from the task that holds it up to the last one waiting;
-- - review turnaround: review handoffs about the project's tasks, from the request (the task's
--   last move to in_review before the answer, or the handoff itself when later) to the answer.

create or replace function public.project_insights(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
-- the CTEs' row estimates are guesses, and their inflated costs would buy a JIT compile that
-- takes longer than the whole answer (seconds, measured at 10,000 tasks)
set jit = off
as $$
declare
  v_tenant uuid;
  v_project public.projects;
  v_days int;
  v_today date := (now() at time zone 'UTC')::date;
  v_since date;
  v_from timestamptz;
  v_totals jsonb;
  v_throughput jsonb;
  v_cycle jsonb;
  v_wip jsonb;
  v_chain jsonb;
  v_blocked int;
  v_reviews jsonb;
begin
  perform bullpen.require_actor();
  v_tenant := bullpen.tenant_id();
  v_days := coalesce((p ->> 'days')::int, 30);
  if v_days < 1 or v_days > 365 then
    perform bullpen.fail('VALIDATION_ERROR', 'days must be between 1 and 365', 'pass days: 30 for the last month');
  end if;
  v_project := bullpen.resolve_project(p ->> 'project_id', 'project_id');
  v_since := v_today - (v_days - 1);
  v_from := v_since::timestamp at time zone 'UTC';

  select jsonb_build_object(
           'tasks', count(*)::int,
           'open', (count(*) filter (where t.status not in ('done', 'cancelled', 'failed', 'skipped')))::int,
           'in_progress', (count(*) filter (where t.status = 'in_progress'))::int,
           'in_review', (count(*) filter (where t.status = 'in_review'))::int,
           'done', (count(*) filter (where t.status = 'done'))::int)
    into v_totals
    from public.tasks t
   where t.tenant_id = v_tenant and t.project_id = v_project.id;

  -- finished work in the window, once: throughput counts it, cycle time measures it
  with fin as (
    select (t.completed_at at time zone 'UTC')::date as day,
           extract(epoch from (t.completed_at - t.started_at))::float8 / 3600 as h
      from public.tasks t
     where t.tenant_id = v_tenant and t.project_id = v_project.id
       and t.completed_at is not null and t.completed_at >= v_from and t.status = 'done'
  ),
  per_day as (select fin.day, count(*)::int as n from fin group by fin.day),
  cyc as (select fin.h from fin where fin.h is not null)
  select (select coalesce(jsonb_agg(jsonb_build_object('day', to_char(g.day, 'YYYY-MM-DD'), 'done', coalesce(pd.n, 0))
                                    order by g.day), '[]')
            from (select s::date as day from generate_series(v_since::timestamp, v_today::timestamp, interval '1 day') s) g
            left join per_day pd on pd.day = g.day),
         (select jsonb_build_object(
                   'count', count(*)::int,
                   'p50_hours', round((percentile_cont(0.5) within group (order by cyc.h))::numeric, 2),
                   'p90_hours', round((percentile_cont(0.9) within group (order by cyc.h))::numeric, 2),
                   'mean_hours', round(avg(cyc.h)::numeric, 2),
                   'buckets', jsonb_build_array(
                     jsonb_build_object('label', 'under 1 h', 'min_hours', 0, 'max_hours', 1, 'count', (count(*) filter (where cyc.h < 1))::int),
                     jsonb_build_object('label', '1–4 h', 'min_hours', 1, 'max_hours', 4, 'count', (count(*) filter (where cyc.h >= 1 and cyc.h < 4))::int),
                     jsonb_build_object('label', '4–24 h', 'min_hours', 4, 'max_hours', 24, 'count', (count(*) filter (where cyc.h >= 4 and cyc.h < 24))::int),
                     jsonb_build_object('label', '1–3 d', 'min_hours', 24, 'max_hours', 72, 'count', (count(*) filter (where cyc.h >= 24 and cyc.h < 72))::int),
                     jsonb_build_object('label', '3–7 d', 'min_hours', 72, 'max_hours', 168, 'count', (count(*) filter (where cyc.h >= 72 and cyc.h < 168))::int),
                     jsonb_build_object('label', '7 d or more', 'min_hours', 168, 'max_hours', null, 'count', (count(*) filter (where cyc.h >= 168))::int)))
            from cyc)
    into v_throughput, v_cycle;

  -- work in progress at the end of each day, by assignee: each task adds one on the day it
  -- started (or the window's first) and takes it away on the day it finished, so the count at a
  -- day's end is the running sum; one pass over the tasks, not one per day
  with w as (
    select t.assignee_actor_id as a,
           greatest((t.started_at at time zone 'UTC')::date, v_since) as s,
           (t.completed_at at time zone 'UTC')::date as c
      from public.tasks t
     where t.tenant_id = v_tenant and t.project_id = v_project.id and t.started_at is not null
       and (t.completed_at >= v_from or (t.completed_at is null and t.status in ('in_progress', 'in_review', 'blocked')))
  ),
  delta as (
    select x.a, x.day, sum(x.n)::int as n
      from (select w.a, w.s as day, 1 as n from w
            union all
            select w.a, w.c, -1 from w where w.c is not null) x
     group by x.a, x.day
  ),
  d as (select s::date as day from generate_series(v_since::timestamp, v_today::timestamp, interval '1 day') s),
  -- the running sum per assignee (a null assignee is keyed by the nil uuid, so the join hashes)
  n as (
    select g.day, g.a, (sum(coalesce(delta.n, 0)) over (partition by g.k order by g.day))::int as cnt
      from (select d.day, a.a, coalesce(a.a, '00000000-0000-0000-0000-000000000000'::uuid) as k
              from d cross join (select distinct delta.a from delta) a) g
      left join delta on coalesce(delta.a, '00000000-0000-0000-0000-000000000000'::uuid) = g.k and delta.day = g.day
  ),
  ac as (
    select n.a, row_number() over (order by sum(n.cnt) desc, max(x.display_name), n.a) as i, max(x.display_name) as name
      from n left join public.actors x on x.tenant_id = v_tenant and x.id = n.a
     group by n.a
    having sum(n.cnt) > 0
  ),
  per_day as (
    select n.day, sum(n.cnt)::int as total, jsonb_agg(n.cnt order by ac.i) as counts
      from n join ac on ac.a is not distinct from n.a
     group by n.day
  )
  select jsonb_build_object(
           'actors', (select coalesce(jsonb_agg(jsonb_build_object('actor_id', ac.a, 'name', coalesce(ac.name, 'unassigned')) order by ac.i), '[]') from ac),
           'days', (select coalesce(jsonb_agg(jsonb_build_object('day', to_char(d.day, 'YYYY-MM-DD'),
                                                                 'total', coalesce(pd.total, 0), 'counts', coalesce(pd.counts, '[]'))
                                              order by d.day), '[]')
                      from d left join per_day pd on pd.day = d.day))
    into v_wip;

  -- the longest chain of open dependencies: depth 1 is a task that holds others up and waits on
  -- nothing open itself; each step adds a task waiting on the one before. UNION keeps one row per
  -- (task, depth), so shared sub-chains are walked once per depth, not once per path.
  with recursive e as (
    select dep.task_id, dep.depends_on_task_id as on_id, t.created_at as task_created, dt.created_at as on_created
      from public.task_dependencies dep
      join public.tasks t on t.tenant_id = dep.tenant_id and t.id = dep.task_id
      join public.tasks dt on dt.tenant_id = dep.tenant_id and dt.id = dep.depends_on_task_id
     where dep.tenant_id = v_tenant and t.project_id = v_project.id
       and t.status not in ('done', 'cancelled', 'failed', 'skipped') and dt.status not in ('done', 'skipped')
  ),
  r (task_id, depth) as (
    select distinct e.on_id, 1 from e where not exists (select 1 from e e2 where e2.task_id = e.on_id)
    union
    select e.task_id, r.depth + 1 from r join e on e.on_id = r.task_id where r.depth < 1000
  ),
  -- when each task was created, for the tie-breaks: read with the edges, not from tasks again
  born as (
    select x.id, min(x.created_at) as created_at
      from (select e.on_id as id, e.on_created as created_at from e
            union all
            select e.task_id, e.task_created from e) x
     group by x.id
  ),
  md as materialized (
    select m.task_id, m.d, b.created_at
      from (select r.task_id, max(r.depth) as d from r group by r.task_id) m
      join born b on b.id = m.task_id
  ),
  -- each task's link back along its longest chain: the dependency one level shallower (the
  -- oldest, when several are), chosen for all tasks at once so the walk below is lookups only
  back_on as materialized (
    select e.task_id, e.on_id, mo.d as on_d, mo.created_at as on_created
      from e join md mo on mo.task_id = e.on_id
  ),
  back as materialized (
    select distinct on (b.task_id) b.task_id, b.on_id
      from back_on b join md mt on (mt.task_id, mt.d) = (b.task_id, b.on_d + 1)
     order by b.task_id, b.on_created, b.on_id
  ),
  path (task_id, d) as (
    select x.task_id, x.d from (select md.task_id, md.d from md order by md.d desc, md.created_at, md.task_id limit 1) x
    union all
    select back.on_id, path.d - 1 from path join back on back.task_id = path.task_id where path.d > 1
  )
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', t.id, 'ref', pr.key || '-' || t.seq, 'title', t.title, 'status', t.status,
           'assignee', x.display_name) order by path.d), '[]'),
         (select count(distinct e.task_id)::int from e)
    into v_chain, v_blocked
    from path
    join public.tasks t on t.tenant_id = v_tenant and t.id = path.task_id
    join public.projects pr on pr.tenant_id = t.tenant_id and pr.id = t.project_id
    left join public.actors x on x.tenant_id = t.tenant_id and x.id = t.assignee_actor_id;

  -- a review handoff opens when work starts (the review on-ramp); the request a reviewer answers
  -- is the task's last move to in_review before the answer
  with rv as (
    select h.created_at, h.responded_at, t.status as task_status,
           greatest(h.created_at, (
             select max(a.at) from public.activity a
              where a.tenant_id = v_tenant and a.object_id = t.id and a.verb = 'task.status_changed'
                and a.metadata ->> 'to' = 'in_review' and a.at <= coalesce(h.responded_at, now()))) as asked
      from public.handoffs h
      join public.tasks t on t.tenant_id = h.tenant_id and t.id = h.related_task_id
     where h.tenant_id = v_tenant and h.kind = 'review' and t.project_id = v_project.id
       and (h.responded_at >= v_from or (h.responded_at is null and h.status in ('open', 'claimed')))
  ),
  done_rv as (
    select (rv.responded_at at time zone 'UTC')::date as day,
           extract(epoch from (rv.responded_at - rv.asked))::float8 / 3600 as h
      from rv where rv.responded_at is not null
  ),
  per_day as (
    select done_rv.day, count(*)::int as n,
           round((percentile_cont(0.5) within group (order by done_rv.h))::numeric, 2) as p50
      from done_rv group by done_rv.day
  )
  select jsonb_build_object(
           'count', (select count(*)::int from done_rv),
           'p50_hours', (select round((percentile_cont(0.5) within group (order by done_rv.h))::numeric, 2) from done_rv),
           'p90_hours', (select round((percentile_cont(0.9) within group (order by done_rv.h))::numeric, 2) from done_rv),
           'waiting', (select count(*)::int from rv where rv.responded_at is null and rv.task_status = 'in_review'),
           'oldest_waiting_hours', (select round((max(extract(epoch from (now() - rv.asked))) / 3600.0)::numeric, 2)
                                      from rv where rv.responded_at is null and rv.task_status = 'in_review'),
           'days', (select coalesce(jsonb_agg(jsonb_build_object('day', to_char(g.day, 'YYYY-MM-DD'),
                                                                 'count', coalesce(pd.n, 0), 'p50_hours', pd.p50)
                                              order by g.day), '[]')
                      from (select s::date as day from generate_series(v_since::timestamp, v_today::timestamp, interval '1 day') s) g
                      left join per_day pd on pd.day = g.day))
    into v_reviews;

  return jsonb_build_object(
    'project', jsonb_build_object('id', v_project.id, 'key', v_project.key, 'title', v_project.title),
    'window', jsonb_build_object('days', v_days, 'since', to_char(v_since, 'YYYY-MM-DD'),
                                 'until', to_char(v_today, 'YYYY-MM-DD'), 'as_of', now()),
    'totals', v_totals || jsonb_build_object('blocked', v_blocked),
    'throughput', v_throughput,
    'cycle_time', v_cycle,
    'wip', v_wip,
    'blocked_chain', jsonb_build_object('length', jsonb_array_length(v_chain), 'tasks', v_chain),
    'review_turnaround', v_reviews);
end
$$;
alter function public.project_insights(jsonb) owner to bullpen_writer;

revoke all on function public.project_insights(jsonb) from public, anon;
grant execute on function public.project_insights(jsonb) to authenticated, service_role;

comment on function public.project_insights(jsonb) is
  'A project at a glance: throughput, cycle time, work in progress by assignee, the longest chain of open dependencies and review turnaround, over the last days (default 30). Read-only.';
