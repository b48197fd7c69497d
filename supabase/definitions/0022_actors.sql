-- Routing work: who may take work now (status, load limit), what a task needs of its taker
-- (capabilities), what a deactivation undoes, and task_recover for work stuck behind a holder.
-- Re-applied on every upgrade that changes any definition file: every statement here must be
-- safe to run again (create or replace).

-- ---------------------------------------------------------------------------------------------
-- Claimability: the actor's side
-- ---------------------------------------------------------------------------------------------

/**
 * May this actor take new work now? Null when it may; else {reason, message, hint, …} where reason
 * is 'deactivated', 'paused' or 'at_capacity'. task_claim calls it once per call, before any
 * candidate search (the per-row rule, capabilities, is an inline `<@` in the claim's statements).
 *
 * It locks the caller's actor row (FOR NO KEY UPDATE, which foreign-key checks do not wait on) for
 * the rest of the claim's transaction, so:
 * - two claims by one actor count its live leases one after the other, never both under the limit;
 * - a deactivation (an update of that row) waits for a claim in flight to commit, and then its own
 *   release of the actor's leases sees what the claim took; a claim that starts after it reads
 *   the new status and is refused. No lease outlives a deactivation.
 */
create or replace function bullpen.claim_refusal(p_tenant uuid, p_me uuid) returns jsonb
language plpgsql
as $$
declare
  v_status text;
  v_max int;
  v_held int;
begin
  select a.status, a.max_concurrent_tasks into v_status, v_max
    from public.actors a where a.tenant_id = p_tenant and a.id = p_me
   for no key update;
  if v_status = 'deactivated' then
    return jsonb_build_object('reason', 'deactivated', 'message', 'status: your actor is deactivated and takes no work',
      'hint', 'a workspace owner reactivates it (bullpen agent activate NAME)', 'status', v_status);
  elsif v_status = 'paused' then
    return jsonb_build_object('reason', 'paused', 'message', 'status: your actor is paused and takes no new work',
      'hint', 'resume with register_actor {status: "active"} (or bullpen agent resume NAME)', 'status', v_status);
  end if;
  if v_max is not null then
    select count(*) into v_held from public.tasks t
     where t.tenant_id = p_tenant and t.lease_actor_id = p_me and t.status = 'in_progress' and t.lease_expires_at > now();
    if v_held >= v_max then
      return jsonb_build_object('reason', 'at_capacity',
        'message', format('max_concurrent_tasks: you hold %s live lease%s and your limit is %s', v_held,
                          case when v_held = 1 then '' else 's' end, v_max),
        'hint', 'finish or release a task first (task_update to done, task_release), or raise max_concurrent_tasks with register_actor',
        'held', v_held, 'max_concurrent_tasks', v_max);
    end if;
  end if;
  return null;
end
$$;

/** The capabilities a task requires that the actor lacks (empty when it may take the task). */
create or replace function bullpen.missing_capabilities(t public.tasks, p_me uuid) returns text[]
language sql stable
as $$
  select coalesce(array(select c from unnest(t.requires_capabilities) c
                         except
                        select unnest(a.capabilities) from public.actors a where a.tenant_id = t.tenant_id and a.id = p_me
                        order by 1), '{}')
$$;

/** Sets a task's requires_capabilities from an input object (task_create, task_update's patch). */
create or replace function bullpen.task_set_requirements(t public.tasks, p jsonb) returns public.tasks
language plpgsql
as $$
declare
  v public.tasks := t;
begin
  if p ? 'requires_capabilities' then
    update public.tasks set requires_capabilities = bullpen.text_array(p -> 'requires_capabilities')
     where tenant_id = t.tenant_id and id = t.id
    returning * into v;
  end if;
  return v;
end
$$;

-- ---------------------------------------------------------------------------------------------
-- Status changes
-- ---------------------------------------------------------------------------------------------

/**
 * What a deactivation undoes, in the deactivating transaction: the actor's leases go back to the
 * pool (each task's thread gets a comment saying why, and the log a task.released row), and its
 * waiting handoffs are marked on its recipient row, with a notification to each sender.
 * Returns {released: [task ids], handoffs: [handoff ids]}.
 */
create or replace function bullpen.actor_deactivated(v public.actors) returns jsonb
language plpgsql
as $$
declare
  v_by text := bullpen.coord_actor_name(v.tenant_id, bullpen.actor_id());
  v_note text;
  v_released jsonb := '[]';
  v_handoffs jsonb := '[]';
  t public.tasks;
  h public.handoffs;
begin
  v_note := format('Lease released: %s was deactivated by %s; the task is back in the pool.', v.display_name, v_by);
  for t in
    update public.tasks k
       set status = case when k.status = 'in_progress' then 'todo' else k.status end,
           assignee_actor_id = case when k.assignee_actor_id = k.lease_actor_id then null else k.assignee_actor_id end,
           lease_actor_id = null, lease_expires_at = null
     where k.tenant_id = v.tenant_id and k.lease_actor_id = v.id and k.status = 'in_progress'
    returning k.*
  loop
    perform bullpen.comment_write(bullpen.comment_target('task', t.id::text), v_note, null, '{}', true);
    perform bullpen.log_aside(t.tenant_id, 'task.released', 'task', t.id, t.project_id, v_note,
      jsonb_build_object('reason', 'actor_deactivated', 'holder_actor_id', v.id));
    v_released := v_released || to_jsonb(t.id);
  end loop;
  for h in
    select hh.* from public.handoff_recipients r
      join public.handoffs hh on hh.tenant_id = r.tenant_id and hh.id = r.handoff_id
     where r.tenant_id = v.tenant_id and r.actor_id = v.id and r.deactivated_at is null
       and (hh.status = 'open' or (hh.status = 'claimed' and hh.claimed_by_actor_id = v.id))
  loop
    update public.handoff_recipients set deactivated_at = now()
     where tenant_id = h.tenant_id and handoff_id = h.id and actor_id = v.id;
    perform bullpen.notify(h.tenant_id, h.from_actor_id, 'handoff.recipient_deactivated',
      format('%s was deactivated: your %s "%s" waits on it', v.display_name, h.kind, left(h.title, 300)),
      format('Deactivated by %s. Send it to someone else (handoff_create) or cancel it (handoff_resolve).', v_by),
      h.related_project_id, h.related_task_id, h.id);
    v_handoffs := v_handoffs || to_jsonb(h.id);
  end loop;
  perform bullpen.log_aside(v.tenant_id, 'actor.deactivated', 'actor', v.id, null,
    format('%s deactivated by %s: %s lease%s released, %s handoff%s marked', v.display_name, v_by,
           jsonb_array_length(v_released), case when jsonb_array_length(v_released) = 1 then '' else 's' end,
           jsonb_array_length(v_handoffs), case when jsonb_array_length(v_handoffs) = 1 then '' else 's' end),
    jsonb_build_object('released', v_released, 'handoffs', v_handoffs));
  return jsonb_build_object('released', v_released, 'handoffs', v_handoffs);
end
$$;

/**
 * register_actor's status rule: an agent or service pauses and resumes itself; only a workspace
 * owner deactivates or reactivates, and changes another actor's status. People have no status
 * here. Fails naming the rule, or returns the new status (null when it does not change).
 */
create or replace function bullpen.actor_status_check(v public.actors, p jsonb) returns text
language plpgsql stable
as $$
declare
  v_to text := p ->> 'status';
begin
  if v_to is null or v_to = v.status then
    return null;
  end if;
  if v.kind = 'human' then
    perform bullpen.fail('VALIDATION_ERROR', 'status: people are not paused or deactivated here',
      'a workspace owner manages people in the console (Agents & keys)', jsonb_build_object('fields', jsonb_build_array('status')));
  end if;
  if (v_to = 'deactivated' or v.status = 'deactivated' or v.id <> bullpen.actor_id()) and not bullpen.caller_is_owner() then
    perform bullpen.fail('FORBIDDEN',
      format('status: only a workspace owner %s', case when v.id <> bullpen.actor_id() then 'changes another actor''s status'
                                                     else 'deactivates or reactivates an actor' end),
      'an agent pauses or resumes itself (status "paused" / "active"); ask a workspace owner for the rest',
      jsonb_build_object('actor_id', v.id, 'fields', jsonb_build_array('status')));
  end if;
  return v_to;
end
$$;

-- ---------------------------------------------------------------------------------------------
-- task_recover
-- ---------------------------------------------------------------------------------------------

/**
 * Forces a stuck task to todo, failed or in_review past the transition guards, ends any lease and
 * records who and why (a comment with the note, a task.recovered row, a notification to the
 * previous holder). An agent may recover work whose lease lapsed or whose holder is paused or
 * deactivated; a live lease of a working agent yields only to a person or a workspace owner.
 */
create or replace function public.task_recover(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_me uuid := bullpen.require_actor();
  v_caller public.actors;
  v_task public.tasks;
  v_before public.tasks;
  v_holder public.actors;
  v_to text := p ->> 'to_status';
  v_live boolean;
  v_ref text;
begin
  v_replay := bullpen.idem_begin('task_recover', p);
  if v_replay is not null then
    return v_replay;
  end if;
  if v_to is null or v_to not in ('todo', 'failed', 'in_review') then
    perform bullpen.fail('VALIDATION_ERROR', 'to_status: one of todo, failed, in_review', null,
      jsonb_build_object('fields', jsonb_build_array('to_status')));
  end if;
  if coalesce(btrim(p ->> 'note'), '') = '' then
    perform bullpen.fail('VALIDATION_ERROR', 'note: say why the task is recovered', null,
      jsonb_build_object('fields', jsonb_build_array('note')));
  end if;
  v_task := bullpen.resolve_task(p ->> 'task_id');
  select * into v_before from public.tasks where tenant_id = v_task.tenant_id and id = v_task.id for update;
  v_ref := bullpen.coord_task_ref(v_before);
  if v_before.status in ('done', 'cancelled') then
    perform bullpen.fail('INVALID_TRANSITION', format('task_recover: %s is %s, which is finished, not stuck', v_ref, v_before.status),
      'reopen it with task_update (allow_reopen) instead', jsonb_build_object('status', v_before.status));
  end if;
  select * into v_caller from public.actors where tenant_id = v_before.tenant_id and id = v_me;
  select * into v_holder from public.actors where tenant_id = v_before.tenant_id and id = v_before.lease_actor_id;
  v_live := v_before.lease_actor_id is not null and v_before.lease_expires_at > now();
  if v_caller.kind <> 'human' and not v_caller.is_owner and v_before.lease_actor_id is distinct from v_me then
    if v_live and v_holder.status = 'active' then
      perform bullpen.fail('LEASE_HELD',
        format('task_recover: %s holds a live lease on %s until %s and is active; an agent recovers only a task whose lease lapsed or whose holder is paused or deactivated',
               v_holder.display_name, v_ref, v_before.lease_expires_at),
        'ask the holder (handoff_create), or a person or workspace owner, who may recover it',
        jsonb_build_object('lease_actor_id', v_holder.id, 'lease_expires_at', v_before.lease_expires_at));
    elsif v_before.lease_actor_id is null and v_before.status <> 'in_progress' then
      perform bullpen.fail('FORBIDDEN',
        format('task_recover: %s is %s with no lease to recover from; an agent recovers only a task whose lease lapsed or whose holder is paused or deactivated',
               v_ref, v_before.status),
        'move it with task_update, or ask a person or workspace owner', jsonb_build_object('status', v_before.status));
    end if;
  end if;
  -- past the transition guards (bullpen.tasks_guard reads this setting), for this one update
  perform set_config('bullpen.recovering', 'on', true);
  update public.tasks
     set status = v_to,
         assignee_actor_id = case when v_to = 'todo' then null else assignee_actor_id end,
         lease_actor_id = null, lease_expires_at = null
   where tenant_id = v_before.tenant_id and id = v_before.id
  returning * into v_task;
  perform set_config('bullpen.recovering', 'off', true);
  perform bullpen.comment_write(bullpen.comment_target('task', v_task.id::text),
    format('Recovered %s → %s by %s: %s', v_before.status, v_to, v_caller.display_name, p ->> 'note'), null, '{}', true);
  if v_before.lease_actor_id is not null and v_before.lease_actor_id <> v_me then
    perform bullpen.notify(v_task.tenant_id, v_before.lease_actor_id, 'task.recovered',
      format('%s recovered %s (%s → %s)', v_caller.display_name, v_ref, v_before.status, v_to),
      left(p ->> 'note', 2000), v_task.project_id, v_task.id);
  end if;
  perform bullpen.log('task.recovered', 'task', v_task.id, v_task.project_id,
    format('%s → %s: %s', v_before.status, v_to, left(p ->> 'note', 300)),
    jsonb_build_object('from', v_before.status, 'to', v_to, 'note', p ->> 'note',
      'previous_holder_actor_id', v_before.lease_actor_id, 'lease_was_live', v_live,
      'by_kind', v_caller.kind, 'by_owner', v_caller.is_owner));
  return bullpen.idem_finish(p, jsonb_build_object('task', bullpen.task_json(v_task), 'previous_status', v_before.status,
    'previous_holder_actor_id', v_before.lease_actor_id, 'lease_was_live', v_live));
end
$$;
alter function public.task_recover(jsonb) owner to bullpen_writer;

-- Execute rights, one function at a time.
revoke all on function bullpen.claim_refusal(uuid, uuid) from public, anon, authenticated;
grant execute on function bullpen.claim_refusal(uuid, uuid) to bullpen_writer, service_role;
revoke all on function bullpen.missing_capabilities(public.tasks, uuid) from public, anon, authenticated;
grant execute on function bullpen.missing_capabilities(public.tasks, uuid) to bullpen_writer, service_role;
revoke all on function bullpen.task_set_requirements(public.tasks, jsonb) from public, anon, authenticated;
grant execute on function bullpen.task_set_requirements(public.tasks, jsonb) to bullpen_writer, service_role;
revoke all on function bullpen.actor_deactivated(public.actors) from public, anon, authenticated;
grant execute on function bullpen.actor_deactivated(public.actors) to bullpen_writer, service_role;
revoke all on function bullpen.actor_status_check(public.actors, jsonb) from public, anon, authenticated;
grant execute on function bullpen.actor_status_check(public.actors, jsonb) to bullpen_writer, service_role;
revoke all on function public.task_recover(jsonb) from public, anon;
grant execute on function public.task_recover(jsonb) to authenticated, service_role;
