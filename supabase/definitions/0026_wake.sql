-- Waking task_claim waiters (lib/core/wait.ts) and the lapsed-lease event.
--
-- A lapsed lease makes its task claimable at once (task_claim takes it, no sweeper needed), but it
-- wrote nothing, so a waiting task_claim was not woken and the log did not say the holder ran out
-- of time. bullpen.note_lapsed_leases writes one `task.lease_lapsed` activity row per lapse (the
-- recurring job sweep.lapsed_leases runs it); the row is the change event that wakes the waiters.
-- Its content_hash names the task and the lease's end, so a lapse is written once, however many
-- instances sweep at once, and a later lease that lapses again is a new row.

create or replace function bullpen.note_lapsed_leases(p_limit int default 1000) returns int
language sql
as $$
  with lapsed as (
    select t.tenant_id, t.id, t.project_id, t.seq, t.lease_actor_id, t.lease_expires_at, t.lease_run_key,
           'task.lease_lapsed:' || t.id || ':' || to_char(t.lease_expires_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') as hash
      from public.tasks t
     where t.status = 'in_progress' and t.lease_expires_at <= now()
  ), fresh as (
    select l.* from lapsed l
     where not exists (select 1 from public.activity a where a.tenant_id = l.tenant_id and a.content_hash = l.hash)
     order by l.lease_expires_at
     limit greatest(1, p_limit)
  ), written as (
    insert into public.activity (tenant_id, project_id, verb, object_type, object_id, summary, severity, metadata, content_hash)
    select f.tenant_id, f.project_id, 'task.lease_lapsed', 'task', f.id,
           format('lease lapsed at %s: the task is claimable again',
                  to_char(f.lease_expires_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS "UTC"')),
           'info',
           jsonb_build_object('previous_actor_id', f.lease_actor_id, 'lease_expires_at', f.lease_expires_at,
                              'run_key', f.lease_run_key),
           f.hash
      from fresh f
    on conflict (tenant_id, content_hash) where content_hash is not null do nothing
    returning 1
  )
  select count(*)::int from written
$$;

-- What task events made claimable, for the waiters of a workspace: of the tasks named and the
-- tasks that depend on them (a task done readies its dependents), those ready now (todo, or
-- in progress with a lapsed or no lease; no unfinished dependency), with what a claim filters on.
-- The server reads it on its own connection, once per burst of task events of a workspace that has
-- waiters; the waiters are matched in memory (lib/core/wait.ts).
create or replace function bullpen.ready_after(p_tenant uuid, p_task_ids uuid[]) returns jsonb
language sql stable
as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', t.id, 'ref', p.key || '-' || t.seq, 'project_id', t.project_id, 'project_key', p.key,
           'labels', to_jsonb(t.labels),
           -- who may claim it besides anyone: its assignee; a lapsed lease's holder does not keep it
           'assignee_actor_id', case when t.status = 'in_progress' and t.assignee_actor_id = t.lease_actor_id then null
                                     else t.assignee_actor_id end,
           'repository_ids', coalesce((select jsonb_agg(l.repository_id) from public.project_repositories l
                                        where l.tenant_id = t.tenant_id and l.project_id = t.project_id), '[]'::jsonb))
           order by t.priority, t.created_at, t.id), '[]'::jsonb)
    from public.tasks t
    join public.projects p on p.tenant_id = t.tenant_id and p.id = t.project_id
   where t.tenant_id = p_tenant
     and t.id in (select unnest(p_task_ids)
                  union
                  select d.task_id from public.task_dependencies d
                   where d.tenant_id = p_tenant and d.depends_on_task_id = any (p_task_ids))
     and (t.status = 'todo' or (t.status = 'in_progress' and (t.lease_expires_at is null or t.lease_expires_at <= now())))
     and not exists (select 1 from public.task_dependencies d
                       join public.tasks dt on dt.tenant_id = d.tenant_id and dt.id = d.depends_on_task_id
                      where d.tenant_id = t.tenant_id and d.task_id = t.id and dt.status <> 'done')
$$;

revoke all on function bullpen.note_lapsed_leases(int) from public, anon, authenticated;
grant execute on function bullpen.note_lapsed_leases(int) to service_role;
revoke all on function bullpen.ready_after(uuid, uuid[]) from public, anon, authenticated;
grant execute on function bullpen.ready_after(uuid, uuid[]) to service_role;
