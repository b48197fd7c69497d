-- Costs and budgets: the usage ledger (written by run_heartbeat and run_end), cost_summary,
-- budget_set, budget_status, and the budget checks task_claim, run_heartbeat and council_ask make.
-- Tables in migrations/0027_costs.sql.
-- Re-applied on every upgrade that changes a definition file: create or replace only.

-- ---------------------------------------------------------------------------------------------
-- The ledger
-- ---------------------------------------------------------------------------------------------

/** Where a budget period began (UTC); the whole past for period 'total'. */
create or replace function bullpen.period_start(p_period text, p_at timestamptz default now()) returns timestamptz
language sql stable
as $$
  select case p_period
    when 'day' then date_trunc('day', p_at at time zone 'UTC') at time zone 'UTC'
    when 'week' then date_trunc('week', p_at at time zone 'UTC') at time zone 'UTC'
    when 'month' then date_trunc('month', p_at at time zone 'UTC') at time zone 'UTC'
    else '-infinity'::timestamptz
  end
$$;

/**
 * Writes a usage report of a run into the ledger: per model, the increment of the running totals
 * since what the ledger already holds for that run and model (a repeated report adds nothing).
 * The cost is the caller's (priced 'reported'), or the server's price-table figure the tool's
 * prepare step put in the entry (priced 'table'), or nothing (priced 'unknown'). The increment lands
 * on the task named by task_id, else on the one task the run holds a lease on.
 * Returns the project the usage landed on (null when none), for the budget checks.
 */
create or replace function bullpen.usage_record(r public.runs, p_usage jsonb, p_task_ref text) returns uuid
language plpgsql
as $$
declare
  u jsonb;
  v_task public.tasks;
  v_model text;
  v_prev record;
  v_in bigint; v_out bigint; v_cr bigint; v_cw bigint;
  v_cost numeric;
  v_priced text;
begin
  if p_task_ref is not null then
    v_task := bullpen.resolve_task(p_task_ref, 'task_id');
  else
    select t.* into v_task from public.tasks t
     where t.tenant_id = r.tenant_id and t.lease_run_key = r.run_key and t.lease_actor_id = r.actor_id
       and t.status = 'in_progress'
       and (select count(*) from public.tasks t2 where t2.tenant_id = r.tenant_id and t2.lease_run_key = r.run_key
              and t2.lease_actor_id = r.actor_id and t2.status = 'in_progress') = 1;
  end if;
  if p_usage is null then
    return v_task.project_id;
  end if;
  for u in select x from jsonb_array_elements(case jsonb_typeof(p_usage) when 'array' then p_usage
                                                 when 'object' then jsonb_build_array(p_usage) else '[]'::jsonb end) x loop
    v_model := coalesce(nullif(u ->> 'model', ''), 'unknown');
    select coalesce(sum(e.tokens_in), 0) as tin, coalesce(sum(e.tokens_out), 0) as tout,
           coalesce(sum(e.tokens_cache_read), 0) as tcr, coalesce(sum(e.tokens_cache_write), 0) as tcw,
           coalesce(sum(e.cost_usd), 0) as cost
      into v_prev
      from public.usage_events e where e.tenant_id = r.tenant_id and e.run_id = r.id and e.model = v_model;
    v_in := greatest(coalesce((u ->> 'tokens_in')::bigint, 0) - v_prev.tin, 0);
    v_out := greatest(coalesce((u ->> 'tokens_out')::bigint, 0) - v_prev.tout, 0);
    v_cr := greatest(coalesce((u ->> 'tokens_cache_read')::bigint, 0) - v_prev.tcr, 0);
    v_cw := greatest(coalesce((u ->> 'tokens_cache_write')::bigint, 0) - v_prev.tcw, 0);
    v_cost := greatest(coalesce((u ->> 'cost_usd')::numeric, 0) - v_prev.cost, 0);
    v_priced := case when u ->> 'priced' in ('table', 'unknown') then u ->> 'priced'
                     when u ? 'cost_usd' then 'reported' else 'unknown' end;
    if v_in + v_out + v_cr + v_cw > 0 or v_cost > 0 then
      insert into public.usage_events (tenant_id, run_id, actor_id, task_id, project_id, workflow_id, model, provider,
                                       tokens_in, tokens_out, tokens_cache_read, tokens_cache_write, cost_usd, priced)
      values (r.tenant_id, r.id, r.actor_id, v_task.id, v_task.project_id, bullpen.task_workflow(v_task), v_model,
              nullif(u ->> 'provider', ''), v_in, v_out, v_cr, v_cw, round(v_cost, 6), v_priced);
    end if;
  end loop;
  return v_task.project_id;
end
$$;

-- ---------------------------------------------------------------------------------------------
-- Budgets: what applies, what is spent and reserved
-- ---------------------------------------------------------------------------------------------

/** The budgets that apply to spending by an actor on a project (and workflow): workspace ones too. */
create or replace function bullpen.budgets_for(p_tenant uuid, p_actor uuid, p_project uuid, p_workflow uuid default null)
returns setof public.budgets
language sql stable
as $$
  select b.* from public.budgets b
   where b.tenant_id = p_tenant
     and (b.scope = 'workspace'
          or (b.scope = 'agent' and b.scope_id = p_actor)
          or (b.scope = 'project' and b.scope_id = p_project)
          or (b.scope = 'workflow' and b.scope_id = p_workflow))
   order by b.id
$$;

/** Spent in the budget's current period, from the ledger. */
create or replace function bullpen.budget_spent(b public.budgets) returns numeric
language sql stable
as $$
  select coalesce(sum(e.cost_usd), 0) from public.usage_events e
   where e.tenant_id = b.tenant_id and e.created_at >= bullpen.period_start(b.period)
     and case b.scope when 'workspace' then true
                      when 'agent' then e.actor_id = b.scope_id
                      when 'project' then e.project_id = b.scope_id
                      else e.workflow_id = b.scope_id end
$$;

/** Live reservations under the budget: unreleased, and the claim's lease still live. */
create or replace function bullpen.budget_reserved(b public.budgets) returns numeric
language sql stable
as $$
  select coalesce(sum(r.amount_usd), 0) from public.budget_reservations r
    join public.tasks t on t.tenant_id = r.tenant_id and t.id = r.task_id
   where r.tenant_id = b.tenant_id and r.released_at is null
     and t.lease_actor_id = r.actor_id and t.lease_expires_at > now()
     and case b.scope when 'workspace' then true
                      when 'agent' then r.actor_id = b.scope_id
                      when 'project' then r.project_id = b.scope_id
                      else false end
$$;

/** How a person names a budget: "project RN month budget ($0.50)". */
create or replace function bullpen.budget_label(b public.budgets) returns text
language sql stable
as $$
  select case b.scope
      when 'workspace' then 'workspace'
      when 'project' then 'project ' || coalesce((select pr.key from public.projects pr where pr.tenant_id = b.tenant_id and pr.id = b.scope_id), b.scope_id::text)
      when 'agent' then 'agent ' || coalesce((select a.display_name from public.actors a where a.tenant_id = b.tenant_id and a.id = b.scope_id), b.scope_id::text)
      else 'workflow ' || b.scope_id::text
    end || ' ' || b.period || ' budget ($' || trim(to_char(b.limit_usd, 'FM999999999990.00')) || ')'
$$;

create or replace function bullpen.budget_json(b public.budgets) returns jsonb
language plpgsql stable
as $$
declare
  v_spent numeric := bullpen.budget_spent(b);
  v_reserved numeric := bullpen.budget_reserved(b);
begin
  return jsonb_build_object('id', b.id, 'scope', b.scope, 'scope_id', b.scope_id, 'label', bullpen.budget_label(b),
    'period', b.period, 'period_start', case when b.period = 'total' then null else bullpen.period_start(b.period) end,
    'limit_usd', b.limit_usd, 'warn_at', b.warn_at, 'spent_usd', v_spent, 'reserved_usd', v_reserved,
    'remaining_usd', greatest(b.limit_usd - v_spent - v_reserved, 0),
    'state', case when v_spent >= b.limit_usd then 'exceeded' when v_spent >= b.limit_usd * b.warn_at then 'warning' else 'ok' end);
end
$$;

/**
 * The first budget that spending of p_extra more by an actor on a project would pass: at or over
 * its limit already (spent plus live reservations), or over it with p_extra. Null when none.
 * p_lock takes the budgets' rows FOR UPDATE (in id order), so concurrent claims against one budget
 * reserve one after another and each sees the reservations committed before it.
 */
create or replace function bullpen.budget_blocking(p_tenant uuid, p_actor uuid, p_project uuid, p_workflow uuid,
                                                   p_extra numeric, p_lock boolean) returns jsonb
language plpgsql
as $$
declare
  b public.budgets;
  v_used numeric;
begin
  if not exists (select 1 from public.budgets x where x.tenant_id = p_tenant) then
    return null;
  end if;
  if p_lock then
    perform 1 from public.budgets x where x.id in (select f.id from bullpen.budgets_for(p_tenant, p_actor, p_project, p_workflow) f)
       and x.tenant_id = p_tenant order by x.id for update;
  end if;
  for b in select * from bullpen.budgets_for(p_tenant, p_actor, p_project, p_workflow) loop
    v_used := bullpen.budget_spent(b) + bullpen.budget_reserved(b);
    if v_used >= b.limit_usd or v_used + coalesce(p_extra, 0) > b.limit_usd then
      return jsonb_build_object('budget_id', b.id, 'budget', bullpen.budget_label(b), 'scope', b.scope,
        'scope_id', b.scope_id, 'period', b.period, 'limit_usd', b.limit_usd, 'spent_usd', bullpen.budget_spent(b),
        'reserved_usd', bullpen.budget_reserved(b), 'requested_usd', coalesce(p_extra, 0));
    end if;
  end loop;
  return null;
end
$$;

/** Refuses with BUDGET_EXCEEDED naming the budget when spending is blocked (council_ask and the like). */
create or replace function bullpen.budget_guard(p_tenant uuid, p_actor uuid, p_project uuid, p_what text) returns void
language plpgsql
as $$
declare
  v jsonb := bullpen.budget_blocking(p_tenant, p_actor, p_project, null, 0, false);
begin
  if v is not null then
    perform bullpen.fail('BUDGET_EXCEEDED', format('%s: the %s is spent ($%s of $%s)', p_what, v ->> 'budget',
        round((v ->> 'spent_usd')::numeric + (v ->> 'reserved_usd')::numeric, 2), round((v ->> 'limit_usd')::numeric, 2)),
      'ask a workspace owner to raise it (budget_set), or wait for its next period (budget_status)', v);
  end if;
end
$$;

/**
 * After usage lands: each budget that applies and has crossed its warn_at this period warns the
 * owners and the agent, once per period.
 */
create or replace function bullpen.budget_warn(p_tenant uuid, p_actor uuid, p_project uuid) returns void
language plpgsql
as $$
declare
  b public.budgets;
  v_spent numeric;
  v_title text;
  v_to uuid;
begin
  for b in select * from bullpen.budgets_for(p_tenant, p_actor, p_project, null) loop
    continue when b.warned_period_start is not distinct from bullpen.period_start(b.period);
    v_spent := bullpen.budget_spent(b);
    continue when v_spent < b.limit_usd * b.warn_at;
    update public.budgets set warned_period_start = bullpen.period_start(b.period)
     where tenant_id = b.tenant_id and id = b.id;
    v_title := format('%s at %s%% ($%s of $%s)', bullpen.budget_label(b),
      round(100 * v_spent / nullif(b.limit_usd, 0)), round(v_spent, 2), round(b.limit_usd, 2));
    for v_to in select a.id from public.actors a where a.tenant_id = p_tenant and (a.is_owner or a.id = p_actor)
                  and a.status <> 'deactivated' loop
      insert into public.notifications (tenant_id, recipient_actor_id, kind, title, body, actor_id, project_id)
      values (p_tenant, v_to, 'budget.warning', left(v_title, 1000),
              'work stops at the limit: claims are refused and heartbeats answer stop; see budget_status', bullpen.actor_id(),
              case when b.scope = 'project' then b.scope_id end);
      perform bullpen.inbox_touch(p_tenant, v_to, 'budget.warning');
    end loop;
    perform bullpen.log('budget.warned', 'budget', b.id, case when b.scope = 'project' then b.scope_id end, v_title,
      jsonb_build_object('spent_usd', v_spent, 'limit_usd', b.limit_usd, 'warn_at', b.warn_at));
  end loop;
end
$$;

/**
 * The usage half of run_heartbeat and run_end: writes the report into the ledger, warns, and says
 * whether the run must stop ({stop, reason} when a budget that applies is spent).
 */
create or replace function bullpen.usage_after_report(r public.runs, p jsonb) returns jsonb
language plpgsql
as $$
declare
  v_project uuid;
  v jsonb;
begin
  v_project := bullpen.usage_record(r, p -> 'usage', p ->> 'task_id');
  if not exists (select 1 from public.budgets x where x.tenant_id = r.tenant_id) then
    return '{}'::jsonb;
  end if;
  perform bullpen.budget_warn(r.tenant_id, r.actor_id, v_project);
  v := bullpen.budget_blocking(r.tenant_id, r.actor_id, v_project, null, 0, false);
  if v is null then
    return '{}'::jsonb;
  end if;
  return jsonb_build_object('stop', true, 'reason', format('budget_exceeded: the %s is spent', v ->> 'budget'));
end
$$;

/** Releases the run's reservations (run_end). */
create or replace function bullpen.reservations_release(r public.runs) returns void
language sql
as $$
  update public.budget_reservations set released_at = now()
   where tenant_id = r.tenant_id and run_key = r.run_key and actor_id = r.actor_id and released_at is null
$$;

/**
 * task_claim's budget rule, once a task is chosen: null when the claim may go ahead (and then the
 * estimate, if any, is reserved), else the blocking budget. The task's previous reservation by the
 * same actor (a lease extension) is replaced, not added to.
 */
create or replace function bullpen.claim_budget(t public.tasks, p_me uuid, p jsonb) returns jsonb
language plpgsql
as $$
declare
  v_est numeric := nullif((p ->> 'estimated_cost_usd')::numeric, 0);
  v jsonb;
begin
  if not exists (select 1 from public.budgets x where x.tenant_id = t.tenant_id) and v_est is null then
    return null;
  end if;
  update public.budget_reservations set released_at = now()
   where tenant_id = t.tenant_id and task_id = t.id and actor_id = p_me and released_at is null;
  v := bullpen.budget_blocking(t.tenant_id, p_me, t.project_id, bullpen.task_workflow(t), v_est, true);
  if v is not null then
    return v;
  end if;
  if v_est is not null then
    insert into public.budget_reservations (tenant_id, task_id, actor_id, project_id, run_key, amount_usd)
    values (t.tenant_id, t.id, p_me, t.project_id, bullpen.run_id(), v_est);
  end if;
  return null;
end
$$;

-- ---------------------------------------------------------------------------------------------
-- Tools
-- ---------------------------------------------------------------------------------------------

/** The group a usage row falls in for cost_summary's group_by (null: no grouping, or none of that kind). */
create or replace function bullpen.usage_group_key(e public.usage_events, p_group text) returns text
language sql stable
as $$
  select case p_group when 'agent' then e.actor_id::text when 'model' then e.model when 'project' then e.project_id::text
                      when 'task' then e.task_id::text when 'workflow' then e.workflow_id::text
                      when 'day' then to_char(e.created_at at time zone 'UTC', 'YYYY-MM-DD') end
$$;

-- Custom plans: the optional filters (project, window, grouping) must fold away before planning,
-- or a generic plan that serves every combination reads the whole workspace's ledger.
create or replace function public.cost_summary(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
set plan_cache_mode = force_custom_plan
as $$
declare
  v_tenant uuid := bullpen.tenant_id();
  v_group text := p ->> 'group_by';
  v_period text := coalesce(p ->> 'period', case when p ? 'from' or p ? 'to' then 'all' else 'month' end);
  v_from timestamptz;
  v_to timestamptz;
  v_project uuid;
  v_total jsonb;
  v_groups jsonb;
  v_daily boolean := coalesce((p ->> 'daily')::boolean, false) and v_group is distinct from 'day' and v_group is not null;
begin
  perform bullpen.require_actor();
  if p ->> 'project_id' is not null then
    v_project := (bullpen.resolve_project(p ->> 'project_id')).id;
  end if;
  v_from := coalesce((p ->> 'from')::timestamptz, case when v_period = 'all' then '-infinity'::timestamptz else bullpen.period_start(v_period) end);
  v_to := coalesce((p ->> 'to')::timestamptz, 'infinity'::timestamptz);
  if v_from > v_to then
    perform bullpen.fail('VALIDATION_ERROR', 'from: must not be after to', 'swap them');
  end if;
  -- one pass over the ledger: the groups and, as the rollup's grand row, the total
  with agg as (
    select s.k, grouping(s.k) as is_total, coalesce(sum(s.tokens_in), 0) tin, coalesce(sum(s.tokens_out), 0) tout,
           coalesce(sum(s.tokens_cache_read), 0) tcr, coalesce(sum(s.tokens_cache_write), 0) tcw,
           coalesce(sum(s.cost_usd), 0) cost, count(*) calls
      from (select bullpen.usage_group_key(e, v_group) as k,
                   e.tokens_in, e.tokens_out, e.tokens_cache_read, e.tokens_cache_write, e.cost_usd
              from public.usage_events e
             where e.tenant_id = v_tenant and e.created_at >= v_from and e.created_at < v_to
               and (v_project is null or e.project_id = v_project)) s
     group by rollup (s.k)
  ), ranked as (
    select a.*, row_number() over (order by case when v_group = 'day' then null else a.cost end desc nulls last, a.k) rn
      from agg a where a.is_total = 0 and v_group is not null
  ), folded as (
    -- past 200 groups the rest is one "other" group, so the groups still add up to the total
    select case when rn <= 200 then k end as k, rn <= 200 as kept, min(rn) rn,
           sum(tin) tin, sum(tout) tout, sum(tcr) tcr, sum(tcw) tcw, sum(cost) cost, sum(calls) calls
      from ranked group by 1, 2
  )
  select (select jsonb_build_object('tokens_in', a.tin, 'tokens_out', a.tout, 'tokens_cache_read', a.tcr,
            'tokens_cache_write', a.tcw, 'cost_usd', a.cost, 'calls', a.calls) from agg a where a.is_total = 1),
         coalesce((select jsonb_agg(jsonb_build_object('key', f.k,
            'label', case when not f.kept then 'other'
                          when f.k is null then 'none'
                          when v_group = 'agent' then (select a.display_name from public.actors a where a.tenant_id = v_tenant and a.id = f.k::uuid)
                          when v_group = 'project' then (select pr.key || ' ' || pr.title from public.projects pr where pr.tenant_id = v_tenant and pr.id = f.k::uuid)
                          when v_group = 'task' then (select pr.key || '-' || t.seq || ' ' || left(t.title, 120) from public.tasks t
                                                        join public.projects pr on pr.tenant_id = t.tenant_id and pr.id = t.project_id
                                                       where t.tenant_id = v_tenant and t.id = f.k::uuid)
                          else f.k end,
            'tokens_in', f.tin, 'tokens_out', f.tout, 'tokens_cache_read', f.tcr, 'tokens_cache_write', f.tcw,
            'cost_usd', f.cost, 'calls', f.calls)
            || case when v_daily and f.kept then jsonb_build_object('daily', coalesce((
                 select jsonb_agg(jsonb_build_object('day', d.day, 'cost_usd', d.cost) order by d.day)
                   from (select to_char(e.created_at at time zone 'UTC', 'YYYY-MM-DD') as day, sum(e.cost_usd) as cost
                           from public.usage_events e
                          where e.tenant_id = v_tenant and e.created_at >= v_from and e.created_at < v_to
                            and (v_project is null or e.project_id = v_project)
                            and bullpen.usage_group_key(e, v_group) is not distinct from f.k
                          group by 1) d), '[]')) else '{}'::jsonb end
            order by f.kept desc, f.rn) from folded f), '[]')
    into v_total, v_groups;
  return jsonb_build_object('from', case when v_from = '-infinity' then null else v_from end,
    'to', case when v_to = 'infinity' then null else v_to end, 'group_by', v_group, 'total', v_total, 'groups', v_groups);
end
$$;
alter function public.cost_summary(jsonb) owner to bullpen_writer;

create or replace function public.budget_set(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_tenant uuid := bullpen.tenant_id();
  v_scope text := coalesce(p ->> 'scope', 'workspace');
  v_scope_id uuid;
  v_b public.budgets;
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('budget_set', p);
  if v_replay is not null then
    return v_replay;
  end if;
  if not bullpen.caller_is_owner() then
    perform bullpen.fail('FORBIDDEN', 'budget_set: only a workspace owner sets budgets',
      'ask a workspace owner; budget_status shows the budgets that apply to you');
  end if;
  if v_scope = 'workspace' then
    if p ->> 'scope_id' is not null then
      perform bullpen.fail('VALIDATION_ERROR', 'scope_id: a workspace budget takes no scope_id', 'leave scope_id out');
    end if;
  elsif p ->> 'scope_id' is null then
    perform bullpen.fail('VALIDATION_ERROR', format('scope_id is required for a %s budget', v_scope), 'name the project, agent or workflow');
  elsif v_scope = 'project' then
    v_scope_id := (bullpen.resolve_project(p ->> 'scope_id', 'scope_id')).id;
  elsif v_scope = 'agent' then
    v_scope_id := bullpen.require_actor_in_tenant(bullpen.uuid_arg(p, 'scope_id'), 'scope_id');
  else
    v_scope_id := bullpen.uuid_arg(p, 'scope_id');
  end if;
  insert into public.budgets as b (tenant_id, scope, scope_id, period, limit_usd, warn_at, created_by_actor_id)
  values (v_tenant, v_scope, v_scope_id, p ->> 'period', (p ->> 'limit_usd')::numeric,
          coalesce((p ->> 'warn_at')::numeric, 0.8), bullpen.actor_id())
  on conflict (tenant_id, scope, coalesce(scope_id, '00000000-0000-0000-0000-000000000000'::uuid), period) do update
    set limit_usd = excluded.limit_usd, warn_at = excluded.warn_at, updated_at = now(),
        -- a new limit or warning line may warn again this period
        warned_period_start = null
  returning * into v_b;
  perform bullpen.log('budget.set', 'budget', v_b.id, case when v_scope = 'project' then v_scope_id end,
    format('%s set', bullpen.budget_label(v_b)), jsonb_build_object('limit_usd', v_b.limit_usd, 'warn_at', v_b.warn_at));
  return bullpen.idem_finish(p, jsonb_build_object('budget', bullpen.budget_json(v_b)));
end
$$;
alter function public.budget_set(jsonb) owner to bullpen_writer;

create or replace function public.budget_status(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_tenant uuid := bullpen.tenant_id();
  v_scope text := p ->> 'scope';
  v_id uuid;
begin
  perform bullpen.require_actor();
  if v_scope is not null and v_scope <> 'workspace' and p ->> 'scope_id' is not null then
    v_id := case v_scope when 'project' then (bullpen.resolve_project(p ->> 'scope_id', 'scope_id')).id
                         when 'agent' then bullpen.require_actor_in_tenant(bullpen.uuid_arg(p, 'scope_id'), 'scope_id')
                         else bullpen.uuid_arg(p, 'scope_id') end;
  end if;
  return jsonb_build_object('budgets', coalesce((
    select jsonb_agg(bullpen.budget_json(b) order by case b.scope when 'workspace' then 0 when 'project' then 1 when 'agent' then 2 else 3 end, b.created_at, b.id)
      from public.budgets b
     where b.tenant_id = v_tenant
       and (v_scope is null or b.scope = 'workspace' or (b.scope = v_scope and (v_id is null or b.scope_id = v_id)))), '[]'));
end
$$;
alter function public.budget_status(jsonb) owner to bullpen_writer;

-- ---------------------------------------------------------------------------------------------
-- Grants: the RPCs to the API roles; helpers only to the writer and the server.
-- ---------------------------------------------------------------------------------------------

revoke all on function bullpen.period_start(text, timestamptz) from public, anon, authenticated;
grant execute on function bullpen.period_start(text, timestamptz) to bullpen_writer, service_role;
revoke all on function bullpen.usage_record(public.runs, jsonb, text) from public, anon, authenticated;
grant execute on function bullpen.usage_record(public.runs, jsonb, text) to bullpen_writer, service_role;
revoke all on function bullpen.budgets_for(uuid, uuid, uuid, uuid) from public, anon, authenticated;
grant execute on function bullpen.budgets_for(uuid, uuid, uuid, uuid) to bullpen_writer, service_role;
revoke all on function bullpen.budget_spent(public.budgets) from public, anon, authenticated;
grant execute on function bullpen.budget_spent(public.budgets) to bullpen_writer, service_role;
revoke all on function bullpen.budget_reserved(public.budgets) from public, anon, authenticated;
grant execute on function bullpen.budget_reserved(public.budgets) to bullpen_writer, service_role;
revoke all on function bullpen.budget_label(public.budgets) from public, anon, authenticated;
grant execute on function bullpen.budget_label(public.budgets) to bullpen_writer, service_role;
revoke all on function bullpen.budget_json(public.budgets) from public, anon, authenticated;
grant execute on function bullpen.budget_json(public.budgets) to bullpen_writer, service_role;
revoke all on function bullpen.budget_blocking(uuid, uuid, uuid, uuid, numeric, boolean) from public, anon, authenticated;
grant execute on function bullpen.budget_blocking(uuid, uuid, uuid, uuid, numeric, boolean) to bullpen_writer, service_role;
revoke all on function bullpen.budget_guard(uuid, uuid, uuid, text) from public, anon, authenticated;
grant execute on function bullpen.budget_guard(uuid, uuid, uuid, text) to bullpen_writer, service_role;
revoke all on function bullpen.budget_warn(uuid, uuid, uuid) from public, anon, authenticated;
grant execute on function bullpen.budget_warn(uuid, uuid, uuid) to bullpen_writer, service_role;
revoke all on function bullpen.usage_after_report(public.runs, jsonb) from public, anon, authenticated;
grant execute on function bullpen.usage_after_report(public.runs, jsonb) to bullpen_writer, service_role;
revoke all on function bullpen.reservations_release(public.runs) from public, anon, authenticated;
grant execute on function bullpen.reservations_release(public.runs) to bullpen_writer, service_role;
revoke all on function bullpen.claim_budget(public.tasks, uuid, jsonb) from public, anon, authenticated;
grant execute on function bullpen.claim_budget(public.tasks, uuid, jsonb) to bullpen_writer, service_role;
revoke all on function bullpen.usage_group_key(public.usage_events, text) from public, anon, authenticated;
grant execute on function bullpen.usage_group_key(public.usage_events, text) to bullpen_writer, service_role;
revoke all on function public.cost_summary(jsonb) from public, anon;
grant execute on function public.cost_summary(jsonb) to authenticated, service_role;
revoke all on function public.budget_set(jsonb) from public, anon;
grant execute on function public.budget_set(jsonb) to authenticated, service_role;
revoke all on function public.budget_status(jsonb) from public, anon;
grant execute on function public.budget_status(jsonb) to authenticated, service_role;
