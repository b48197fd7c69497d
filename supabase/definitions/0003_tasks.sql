-- Tasks: the state machine, readiness, claims, queries, project reads and whoami.
-- Re-applied on every upgrade that changes any definition file: every statement here must be
-- safe to run again (create or replace).

create or replace function bullpen.task_transitions(p_from text) returns text[]
language sql immutable
as $$
  select case p_from
    when 'backlog' then array['todo', 'in_progress', 'cancelled', 'skipped']
    when 'todo' then array['in_progress', 'blocked', 'backlog', 'cancelled', 'skipped']
    when 'in_progress' then array['in_review', 'done', 'todo', 'failed', 'blocked', 'cancelled']
    when 'in_review' then array['done', 'todo', 'in_review', 'failed', 'cancelled']
    when 'done' then array['todo']
    when 'failed' then array['todo', 'backlog', 'cancelled']
    when 'blocked' then array['todo', 'backlog', 'cancelled']
    when 'cancelled' then array['backlog', 'todo']
    -- skipped: work deliberately not done; terminal, and dependents treat it as resolved, as done
    when 'skipped' then array['backlog', 'todo']
    else array[]::text[]
  end
$$;

-- ---------------------------------------------------------------------------------------------
-- The done gate, composed. Each room registers a check in bullpen.done_gates: a function
-- (t public.tasks) returns jsonb that answers null when it does not apply to the task, else
-- {met, summary, message, hint, …}. The gate runs them in position order and stops at the first
-- unmet one; a refusal names that condition and the tool that satisfies it.
-- ---------------------------------------------------------------------------------------------

/** Acceptance criteria: every criterion must be met. Does not apply to a task without criteria. */
create or replace function bullpen.done_gate_criteria(t public.tasks) returns jsonb
language plpgsql stable
as $$
declare
  v_unmet text;
  v_total int := jsonb_array_length(t.acceptance_criteria);
  v_open int;
begin
  if v_total = 0 then
    return null;
  end if;
  select count(*) filter (where not coalesce((c ->> 'met')::boolean, false)) into v_open
    from jsonb_array_elements(t.acceptance_criteria) c;
  if v_open = 0 then
    return jsonb_build_object('met', true, 'summary', format('criteria %s/%s', v_total, v_total));
  end if;
  select c ->> 'text' into v_unmet
    from jsonb_array_elements(t.acceptance_criteria) with ordinality as e(c, i)
   where coalesce((c ->> 'met')::boolean, false) = false
   order by i limit 1;
  return jsonb_build_object('met', false, 'summary', format('criteria %s/%s', v_total - v_open, v_total),
    'message', format('acceptance criterion not met: "%s" (%s of %s unmet)', v_unmet, v_open, v_total),
    'hint', 'mark each criterion met in patch.acceptance_criteria (the same call may also set status done)',
    'criterion', v_unmet);
end
$$;

insert into bullpen.done_gates (name, position, check_fn, satisfied_by, description)
values ('acceptance_criteria', 10, 'bullpen.done_gate_criteria', 'task_update',
        'every acceptance criterion is met')
on conflict (name) do update
  set position = excluded.position, check_fn = excluded.check_fn, satisfied_by = excluded.satisfied_by,
      description = excluded.description;

/**
 * The gate in front of done: {met: true, summary, checks} when the task may close, else
 * {met: false, gate, message, hint, satisfied_by, summary, checks} for the first unmet check.
 * summary reads like "criteria 3/3 · evidence linked · reviewer answered".
 */
create or replace function bullpen.task_done_gate(t public.tasks) returns jsonb
language plpgsql stable
as $$
declare
  v_gate record;
  v_r jsonb;
  v_checks jsonb := '[]';
  v_parts text[] := '{}';
begin
  for v_gate in select g.name, g.check_fn, g.satisfied_by from bullpen.done_gates g order by g.position, g.name loop
    execute format('select %s($1)', v_gate.check_fn) into v_r using t;
    continue when v_r is null;
    v_checks := v_checks || jsonb_build_array(jsonb_build_object('gate', v_gate.name, 'met', (v_r ->> 'met')::boolean,
      'summary', v_r ->> 'summary'));
    v_parts := v_parts || (v_r ->> 'summary');
    if not coalesce((v_r ->> 'met')::boolean, false) then
      return v_r || jsonb_build_object('met', false, 'gate', v_gate.name, 'satisfied_by', v_gate.satisfied_by,
        'summary', array_to_string(v_parts, ' · '), 'checks', v_checks);
    end if;
  end loop;
  return jsonb_build_object('met', true,
    'summary', coalesce(nullif(array_to_string(v_parts, ' · '), ''), 'no checks apply'), 'checks', v_checks);
end
$$;

/**
 * How new criteria differ from old ones other than by ticks, as words for a refusal
 * ('[1] rewords "a" as "b"', 'adds "c"', 'drops "d"'); null when only met changed.
 */
create or replace function bullpen.criteria_edit(p_old jsonb, p_new jsonb) returns text
language plpgsql immutable
as $$
declare
  v_old int := jsonb_array_length(p_old);
  v_new int := jsonb_array_length(p_new);
begin
  for i in 0 .. least(v_old, v_new) - 1 loop
    if (p_old -> i ->> 'text') is distinct from (p_new -> i ->> 'text') then
      return format('[%s] rewords "%s" as "%s"', i, left(p_old -> i ->> 'text', 200), left(p_new -> i ->> 'text', 200));
    end if;
  end loop;
  if v_new > v_old then
    return format('[%s] adds "%s"', v_old, left(p_new -> v_old ->> 'text', 200));
  elsif v_old > v_new then
    return format('drops [%s] "%s"', v_new, left(p_old -> v_new ->> 'text', 200));
  end if;
  return null;
end
$$;

/**
 * The unmet criteria a criteria edit drops or rewords, for the activity log:
 * {dropped: [text], reworded: [{from, to}]}, or null when it drops or rewords none. A criterion
 * whose text is still in the new list is kept (moved or not); one whose position now holds a text
 * that is new is reworded; any other is dropped.
 */
create or replace function bullpen.criteria_lost(p_old jsonb, p_new jsonb) returns jsonb
language plpgsql immutable
as $$
declare
  v_dropped jsonb := '[]';
  v_reworded jsonb := '[]';
  v_texts text[] := array(select c ->> 'text' from jsonb_array_elements(p_new) c);
  v_old_texts text[] := array(select c ->> 'text' from jsonb_array_elements(p_old) c);
  v_text text;
  v_to text;
begin
  for i in 0 .. jsonb_array_length(p_old) - 1 loop
    continue when coalesce((p_old -> i ->> 'met')::boolean, false);
    v_text := p_old -> i ->> 'text';
    continue when v_text = any (v_texts);
    v_to := p_new -> i ->> 'text';
    if v_to is not null and not (v_to = any (v_old_texts)) then
      v_reworded := v_reworded || jsonb_build_object('from', v_text, 'to', v_to);
    else
      v_dropped := v_dropped || to_jsonb(v_text);
    end if;
  end loop;
  if jsonb_array_length(v_dropped) + jsonb_array_length(v_reworded) = 0 then
    return null;
  end if;
  return jsonb_build_object('dropped', v_dropped, 'reworded', v_reworded);
end
$$;

create or replace function bullpen.tasks_guard() returns trigger
language plpgsql
as $$
declare
  v_gate jsonb;
  v_edit text;
begin
  if new.status is distinct from old.status then
    if not (new.status = any (bullpen.task_transitions(old.status)))
       and coalesce(current_setting('bullpen.recovering', true), '') <> 'on' then -- task_recover (0022) forces it
      perform bullpen.fail('INVALID_TRANSITION', format('cannot move a task from %s to %s', old.status, new.status),
        format('from %s a task may move to: %s', old.status, array_to_string(bullpen.task_transitions(old.status), ', ')),
        jsonb_build_object('from', old.status, 'to', new.status, 'allowed', to_jsonb(bullpen.task_transitions(old.status))));
    end if;
    if old.status in ('done', 'cancelled') and coalesce(current_setting('bullpen.allow_reopen', true), '') <> 'on' then
      perform bullpen.fail('INVALID_TRANSITION', format('task is %s; reopening needs allow_reopen', old.status),
        'pass patch.allow_reopen: true to reopen a done or cancelled task',
        jsonb_build_object('from', old.status, 'to', new.status));
    end if;
    if new.status <> 'in_progress' then
      new.lease_actor_id := null;
      new.lease_expires_at := null;
    else
      new.started_at := coalesce(new.started_at, now());
    end if;
    new.completed_at := case when new.status in ('done', 'cancelled', 'failed', 'skipped') then now() end;
  end if;
  -- The gate cannot be edited away in the same breath: the update that moves a task to done may
  -- tick its criteria, never add, drop or reword one.
  if new.status = 'done' and old.status is distinct from 'done'
     and new.acceptance_criteria is distinct from old.acceptance_criteria then
    v_edit := bullpen.criteria_edit(old.acceptance_criteria, new.acceptance_criteria);
    if v_edit is not null then
      perform bullpen.fail('GATE_UNMET',
        format('a move to done may only tick existing acceptance criteria: patch.acceptance_criteria %s', v_edit),
        'send the same criteria in the same order with only met changed (or leave acceptance_criteria out); '
        'change the criteria in an earlier task_update',
        jsonb_build_object('gate', 'acceptance_criteria', 'rule', 'done_only_ticks', 'change', v_edit));
    end if;
  end if;
  if new.status = 'done' and (old.status is distinct from 'done' or new.acceptance_criteria is distinct from old.acceptance_criteria) then
    v_gate := bullpen.task_done_gate(new);
    if not (v_gate ->> 'met')::boolean then
      perform bullpen.fail('GATE_UNMET', v_gate ->> 'message',
        coalesce(v_gate ->> 'hint', format('satisfy it with %s', v_gate ->> 'satisfied_by')), v_gate);
    end if;
  end if;
  new.updated_at := now();
  return new;
end
$$;

create or replace trigger tasks_guard before update on public.tasks
  for each row execute function bullpen.tasks_guard();

/** A task by uuid or by reference (KEY-12, KEY#12), inside the caller's tenant; NOT_FOUND otherwise. */
create or replace function bullpen.resolve_task(p_ref text, p_field text default 'task_id') returns public.tasks
language plpgsql stable
as $$
declare
  v public.tasks;
  m text[];
begin
  if p_ref is null then
    perform bullpen.fail('VALIDATION_ERROR', format('%s is required', p_field));
  end if;
  if p_ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    select * into v from public.tasks where tenant_id = (select bullpen.tenant_id()) and id = p_ref::uuid;
  else
    m := regexp_match(p_ref, '^([A-Za-z][A-Za-z0-9_]*)[-#]+([0-9]{1,9})$');
    if m is not null then
      select t.* into v from public.tasks t
        join public.projects pr on pr.tenant_id = t.tenant_id and pr.id = t.project_id
       where t.tenant_id = (select bullpen.tenant_id()) and lower(pr.key) = lower(m[1]) and t.seq = m[2]::int;
    end if;
  end if;
  if v.id is null then
    perform bullpen.fail('NOT_FOUND', format('%s: no task %s in this workspace', p_field, p_ref),
      'find tasks with task_query; a task is named by uuid or KEY-N');
  end if;
  return v;
end
$$;

/**
 * A live lease protects the work it leases. Call it with the task row locked, before task_update,
 * task_assign or task_release writes. The holder writes freely, and an expired lease protects
 * nothing. Another agent is refused LEASE_HELD, naming the holder and lease_expires_at. A person
 * (kind human) or a workspace owner may still move the card (p_moves: the call changes the
 * status or the assignee, or releases): the lease is broken, so the holder gets a lease.broken
 * notification and the log a task.lease_broken row, both saying who and why. Returns true when
 * the call breaks the lease; the caller's write then ends it.
 */
create or replace function bullpen.lease_guard(t public.tasks, p_tool text, p_why text, p_moves boolean) returns boolean
language plpgsql
as $$
declare
  v_me public.actors;
  v_holder text;
  v_ref text;
  v_until text := to_char(t.lease_expires_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"');
begin
  if t.lease_actor_id is null or t.lease_expires_at is null or t.lease_expires_at <= now()
     or t.lease_actor_id = bullpen.actor_id() then
    return false;
  end if;
  select a.* into v_me from public.actors a where a.tenant_id = t.tenant_id and a.id = bullpen.actor_id();
  select a.display_name into v_holder from public.actors a where a.tenant_id = t.tenant_id and a.id = t.lease_actor_id;
  select pr.key || '-' || t.seq into v_ref from public.projects pr where pr.tenant_id = t.tenant_id and pr.id = t.project_id;
  if v_me.kind is distinct from 'human' and not coalesce(v_me.is_owner, false) then
    perform bullpen.fail('LEASE_HELD',
      format('%s: %s holds a live lease on %s until %s; a live lease protects its task from other agents',
             p_tool, coalesce(v_holder, 'another actor'), v_ref, v_until),
      'comment (comment_add) or ask the holder (handoff_create); a person or a workspace owner can break the lease',
      jsonb_build_object('lease_actor_id', t.lease_actor_id, 'lease_holder', v_holder, 'lease_expires_at', t.lease_expires_at));
  end if;
  if not p_moves then
    return false;
  end if;
  perform bullpen.notify(t.tenant_id, t.lease_actor_id, 'lease.broken',
    format('%s broke your lease on %s: %s', v_me.display_name, v_ref, p_why),
    format('%s (%s%s) %s; your lease until %s ended. %s', v_me.display_name, v_me.kind,
           case when v_me.is_owner then ', workspace owner' else '' end, p_why, v_until, t.title),
    t.project_id, t.id);
  perform bullpen.log_aside(t.tenant_id, 'task.lease_broken', 'task', t.id, t.project_id,
    format('%s''s lease (until %s) broken: %s', coalesce(v_holder, 'someone'), v_until, p_why),
    jsonb_build_object('holder_actor_id', t.lease_actor_id, 'lease_expires_at', t.lease_expires_at,
                       'by_actor_id', v_me.id, 'by_kind', v_me.kind, 'by_owner', v_me.is_owner, 'tool', p_tool, 'reason', p_why));
  return true;
end
$$;

create or replace function bullpen.normalize_criteria(p jsonb) returns jsonb
language sql immutable
as $$
  select coalesce(jsonb_agg(case jsonb_typeof(c)
      when 'string' then jsonb_build_object('text', c #>> '{}', 'met', false)
      else jsonb_build_object('text', c ->> 'text', 'met', coalesce((c ->> 'met')::boolean, false))
    end order by i), '[]'::jsonb)
  from jsonb_array_elements(case when jsonb_typeof(p) = 'array' then p else '[]'::jsonb end) with ordinality as e(c, i)
$$;

/** A priority given as a number (0–4) or a name: urgent 0, high 1, medium 2, low 3, none 4. Null when absent. */
create or replace function bullpen.priority_arg(p jsonb, p_key text, p_field text) returns smallint
language plpgsql immutable
as $$
declare
  v jsonb := p -> p_key;
begin
  if v is null or jsonb_typeof(v) = 'null' then
    return null;
  end if;
  if jsonb_typeof(v) = 'number' and (v #>> '{}')::numeric in (0, 1, 2, 3, 4) then
    return (v #>> '{}')::smallint;
  end if;
  case lower(v #>> '{}')
    when 'urgent' then return 0;
    when 'high' then return 1;
    when 'medium' then return 2;
    when 'low' then return 3;
    when 'none' then return 4;
    else
      perform bullpen.fail('VALIDATION_ERROR', format('%s: %s is not a priority', p_field, left(v::text, 40)),
        'use 0–4 (0 most urgent) or urgent, high, medium, low, none');
  end case;
end
$$;

/** Task or comment metadata: a JSON object of at most 16 KB serialised; refusals name the field. */
create or replace function bullpen.meta_arg(v jsonb, p_field text) returns jsonb
language plpgsql immutable
as $$
begin
  if v is null or jsonb_typeof(v) = 'null' then
    return '{}'::jsonb;
  end if;
  if jsonb_typeof(v) <> 'object' then
    perform bullpen.fail('VALIDATION_ERROR', format('%s: must be a JSON object, not %s', p_field, jsonb_typeof(v)),
      'send an object such as {"team": "infra"}');
  end if;
  if octet_length(v::text) > 16384 then
    perform bullpen.fail('VALIDATION_ERROR',
      format('%s: %s bytes serialised; metadata holds at most 16384', p_field, octet_length(v::text)),
      'keep metadata small (ids, tags, links); put long text in the body or a comment');
  end if;
  return v;
end
$$;

/** A shallow merge of metadata: keys of p_new replace those of p_old, and a null value removes its key. */
create or replace function bullpen.meta_merge(p_old jsonb, p_new jsonb) returns jsonb
language sql immutable
as $$
  select (coalesce(p_old, '{}'::jsonb) || coalesce(p_new, '{}'::jsonb))
         - coalesce(array(select e.key from jsonb_each(coalesce(p_new, '{}'::jsonb)) e where jsonb_typeof(e.value) = 'null'), '{}')
$$;

/**
 * Projects that offer no work: paused or archived. Claim-next reads this list once per call and
 * tests candidates against it with "<> all", so no per-row lookup of the project is needed.
 */
-- plpgsql rather than SQL: the statement keeps its plan for the session (a SQL function that is not
-- inlined is planned again on every call, and claim-next calls this once per claim)
create or replace function bullpen.stopped_projects(p_tenant uuid) returns uuid[]
language plpgsql stable
as $$
begin
  return array(select pr.id from public.projects pr
                where pr.tenant_id = p_tenant and pr.status in ('paused', 'archived'));
end
$$;

/** True while any dependency of the task is not done. Inlined by the planner into the caller's query. */
create or replace function bullpen.task_waiting(p_tenant_id uuid, p_task_id uuid) returns boolean
language sql stable
as $$
  select exists (
    select 1 from public.task_dependencies d
      join public.tasks dt on dt.tenant_id = d.tenant_id and dt.id = d.depends_on_task_id
     where d.tenant_id = p_tenant_id and d.task_id = p_task_id and dt.status not in ('done', 'skipped'))
$$;

create or replace function bullpen.task_open_blockers(p_task_id uuid) returns integer
language sql stable
as $$
  select count(*)::int from public.task_dependencies d
    join public.tasks dt on dt.tenant_id = d.tenant_id and dt.id = d.depends_on_task_id
   where d.tenant_id = (select bullpen.tenant_id()) and d.task_id = p_task_id and dt.status not in ('done', 'skipped')
$$;

/** How many acceptance criteria are met (a loop, so task_row_json holds no sub-select). */
create or replace function bullpen.criteria_met(p jsonb) returns bigint
language plpgsql immutable
as $$
declare
  v_n bigint := 0;
begin
  for i in 0 .. coalesce(jsonb_array_length(p), 0) - 1 loop
    if (p -> i ->> 'met')::boolean then
      v_n := v_n + 1;
    end if;
  end loop;
  return v_n;
end
$$;

/**
 * The compact row every listing returns: the task without its body, plus derived state. A single
 * expression without a sub-select, so the planner inlines it into the listing that calls it (pass
 * p_open_blockers as a column, e.g. from a lateral count, not as a function call).
 */
create or replace function bullpen.task_row_json(t public.tasks, p_project_key text, p_open_blockers integer) returns jsonb
language sql stable
as $$
  select (to_jsonb(t) - 'tenant_id' - 'body' - 'lease_actor_id' - 'lease_expires_at') || jsonb_build_object(
    'ref', p_project_key || '-' || t.seq,
    'project_key', p_project_key,
    'open_blockers', p_open_blockers,
    'ready', t.status in ('todo', 'in_progress') and p_open_blockers = 0
             and (t.lease_expires_at is null or t.lease_expires_at <= now()),
    'criteria_met', bullpen.criteria_met(t.acceptance_criteria),
    'criteria_total', jsonb_array_length(t.acceptance_criteria),
    'lease', case when t.lease_actor_id is not null then jsonb_build_object(
      'actor_id', t.lease_actor_id, 'expires_at', t.lease_expires_at, 'live', t.lease_expires_at > now()) end)
$$;

-- plpgsql rather than SQL: its statements keep their plans for the session, where a SQL function
-- that is not inlined is planned again on every call
create or replace function bullpen.task_json(t public.tasks) returns jsonb
language plpgsql stable
as $$
declare
  v_key text;
  v_blockers int;
begin
  select pr.key into v_key from public.projects pr where pr.tenant_id = t.tenant_id and pr.id = t.project_id;
  if not found then
    return null;
  end if;
  select count(*)::int into v_blockers from public.task_dependencies d
    join public.tasks dt on dt.tenant_id = d.tenant_id and dt.id = d.depends_on_task_id
   where d.tenant_id = (select bullpen.tenant_id()) and d.task_id = t.id and dt.status not in ('done', 'skipped');
  return bullpen.task_row_json(t, v_key, v_blockers) || jsonb_build_object('body', t.body);
end
$$;

create or replace function bullpen.project_context(p_project_id uuid) returns jsonb
language plpgsql stable
as $$
begin
  return (select jsonb_build_object('id', pr.id, 'key', pr.key, 'title', pr.title, 'summary', pr.summary,
                                    'status', pr.status, 'description', pr.description)
            from public.projects pr where pr.tenant_id = (select bullpen.tenant_id()) and pr.id = p_project_id);
end
$$;

/**
 * Inserts one task of a create call. p_batch holds the ids created earlier in the same batch so
 * depends_on may name them as {batch_index: N}; p_field prefixes error messages (tasks[3].…).
 */
create or replace function bullpen.insert_task(p_project public.projects, p jsonb, p_batch uuid[], p_field text)
returns public.tasks
language plpgsql
as $$
declare
  v_seq int;
  v_task public.tasks;
  v_dep jsonb;
  v_dep_id uuid;
  v_parent uuid;
  v_idx int;
  i int := 0;
begin
  if p_project.status = 'archived' then
    perform bullpen.fail('CONFLICT', format('project_id: project %s is archived; an archived project takes no new tasks', p_project.key),
      'reactivate it with project_update (status active), or create the task in another project',
      jsonb_build_object('project_status', p_project.status));
  end if;
  if p ->> 'parent_task_id' is not null then
    v_parent := (bullpen.resolve_task(p ->> 'parent_task_id', p_field || 'parent_task_id')).id;
  end if;
  if p ->> 'reviewer_actor_id' is not null then
    perform bullpen.review_guard(null, bullpen.uuid_arg(p, 'assignee_actor_id'), bullpen.uuid_arg(p, 'reviewer_actor_id'),
      p_field || 'reviewer_actor_id');
  end if;
  update public.projects set task_seq = task_seq + 1
   where tenant_id = p_project.tenant_id and id = p_project.id
  returning task_seq into v_seq;
  insert into public.tasks (id, tenant_id, project_id, seq, title, body, status, priority, assignee_actor_id, due_on,
                            parent_task_id, labels, acceptance_criteria, requires_evidence, reviewer_actor_id,
                            created_by_actor_id, meta, order_index)
  values (coalesce(bullpen.uuid_arg(p, 'task_id'), gen_random_uuid()),
          p_project.tenant_id, p_project.id, v_seq, p ->> 'title', coalesce(p ->> 'body', ''),
          coalesce(p ->> 'status', 'todo'), coalesce(bullpen.priority_arg(p, 'priority', p_field || 'priority'), 2),
          bullpen.require_actor_in_tenant(bullpen.uuid_arg(p, 'assignee_actor_id'), p_field || 'assignee_actor_id'),
          (p ->> 'due_on')::date, v_parent, bullpen.text_array(p -> 'labels'),
          bullpen.normalize_criteria(p -> 'acceptance_criteria'), coalesce((p ->> 'requires_evidence')::boolean, false),
          bullpen.require_actor_in_tenant(bullpen.uuid_arg(p, 'reviewer_actor_id'), p_field || 'reviewer_actor_id'),
          bullpen.actor_id(), bullpen.meta_arg(p -> 'meta', p_field || 'meta'),
          coalesce((p ->> 'order_index')::double precision, extract(epoch from clock_timestamp())))
  returning * into v_task;
  v_task := bullpen.task_set_requirements(v_task, p); -- routing (0022)
  for v_dep in select * from jsonb_array_elements(coalesce(p -> 'depends_on', '[]')) loop
    if jsonb_typeof(v_dep) = 'object' then
      v_idx := (v_dep ->> 'batch_index')::int;
      if p_batch is null or v_idx is null or v_idx < 0 or v_idx >= coalesce(array_length(p_batch, 1), 0) then
        perform bullpen.fail('VALIDATION_ERROR',
          format('%sdepends_on[%s]: batch_index %s must name an earlier item of this batch', p_field, i, coalesce(v_idx::text, 'null')),
          'items may depend on earlier items only, which also keeps the batch free of cycles');
      end if;
      v_dep_id := p_batch[v_idx + 1];
    else
      v_dep_id := (bullpen.resolve_task(v_dep #>> '{}', format('%sdepends_on[%s]', p_field, i))).id;
    end if;
    insert into public.task_dependencies (tenant_id, task_id, depends_on_task_id)
    values (v_task.tenant_id, v_task.id, v_dep_id) on conflict do nothing;
    i := i + 1;
  end loop;
  perform bullpen.log('task.created', 'task', v_task.id, v_task.project_id,
    format('%s-%s %s', p_project.key, v_task.seq, v_task.title));
  return v_task;
end
$$;

/**
 * A note given with a move (task_update, task_claim, task_release): it joins the task's thread as a
 * comment of kind note, in order with the rest of the history, and returns {note, note_comment_id}
 * for the move's activity row to carry. Written aside: the call's own row (which a derived
 * idempotency key watches) comes after it. No note: {}.
 */
create or replace function bullpen.move_note(t public.tasks, p_note text) returns jsonb
language plpgsql
as $$
declare
  v_comment public.comments;
begin
  if p_note is null or btrim(p_note) = '' then
    return '{}'::jsonb;
  end if;
  v_comment := bullpen.comment_write(bullpen.comment_target('task', t.id::text), p_note, null, '{}', true, 'note');
  return jsonb_build_object('note', p_note, 'note_comment_id', v_comment.id);
end
$$;

/**
 * The first content field of a create input that differs from an existing task, or null when the
 * input describes it: project, title, body, priority, due date, labels, metadata, parent. The
 * fields that move with the work (status, assignee, lease, criteria ticks) are not compared.
 */
create or replace function bullpen.task_create_diff(t public.tasks, p_project public.projects, p jsonb) returns text
language plpgsql stable
as $$
begin
  return case
    when t.project_id <> p_project.id then 'project_id'
    when t.title <> p ->> 'title' then 'title'
    when t.body <> coalesce(p ->> 'body', '') then 'body'
    when t.priority <> coalesce(bullpen.priority_arg(p, 'priority', 'priority'), 2) then 'priority'
    when t.due_on is distinct from (p ->> 'due_on')::date then 'due_on'
    when t.labels <> bullpen.text_array(p -> 'labels') then 'labels'
    when t.meta <> bullpen.meta_arg(p -> 'meta', 'meta') then 'meta'
    when p ? 'parent_task_id' and t.parent_task_id is distinct from (bullpen.resolve_task(p ->> 'parent_task_id', 'parent_task_id')).id
      then 'parent_task_id'
  end;
end
$$;

create or replace function public.task_create(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_project public.projects;
  v_task public.tasks;
  v_diff text;
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('task_create', p);
  if v_replay is not null then
    return v_replay;
  end if;
  v_project := bullpen.resolve_project(p ->> 'project_id');
  -- a caller-chosen task_id makes the create repeatable: the same content again returns the task
  -- (created: false); other content under that id is ALREADY_EXISTS. The primary key is
  -- (tenant_id, id), so another workspace's task with the same uuid is neither seen nor touched.
  if p ->> 'task_id' is not null then
    select * into v_task from public.tasks
     where tenant_id = v_project.tenant_id and id = bullpen.uuid_arg(p, 'task_id') for update;
    if v_task.id is not null then
      v_diff := bullpen.task_create_diff(v_task, v_project, p);
      if v_diff is not null then
        perform bullpen.fail('ALREADY_EXISTS',
          format('task_id: task %s already exists with another %s', v_task.id, v_diff),
          'reuse task_id only to repeat the same create; choose a new uuid for new work, or change it with task_update',
          jsonb_build_object('task_id', v_task.id, 'field', v_diff));
      end if;
      select pr.* into v_project from public.projects pr where pr.tenant_id = v_task.tenant_id and pr.id = v_task.project_id;
      return bullpen.idem_finish(p, jsonb_build_object('task', bullpen.task_json(v_task), 'created', false,
        'task_id', v_task.id, 'seq', v_task.seq, 'ref', v_project.key || '-' || v_task.seq));
    end if;
  end if;
  v_task := bullpen.insert_task(v_project, p, null, '');
  return bullpen.idem_finish(p, jsonb_build_object('task', bullpen.task_json(v_task), 'created', true,
    'task_id', v_task.id, 'seq', v_task.seq, 'ref', v_project.key || '-' || v_task.seq));
end
$$;
alter function public.task_create(jsonb) owner to bullpen_writer;

create or replace function public.task_create_many(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_project public.projects;
  v_task public.tasks;
  v_ids uuid[] := '{}';
  v_out jsonb := '[]';
  v_item jsonb;
  i int := 0;
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('task_create_many', p);
  if v_replay is not null then
    return v_replay;
  end if;
  v_project := bullpen.resolve_project(p ->> 'project_id');
  for v_item in select * from jsonb_array_elements(coalesce(p -> 'tasks', '[]')) loop
    v_task := bullpen.insert_task(v_project, v_item, v_ids, format('tasks[%s].', i));
    v_ids := v_ids || v_task.id;
    v_out := v_out || jsonb_build_object('task_id', v_task.id, 'seq', v_task.seq, 'ref', v_project.key || '-' || v_task.seq);
    i := i + 1;
  end loop;
  return bullpen.idem_finish(p, jsonb_build_object('count', i, 'task_ids', to_jsonb(v_ids), 'tasks', v_out,
    'project_id', v_project.id));
end
$$;
alter function public.task_create_many(jsonb) owner to bullpen_writer;

create or replace function public.task_update(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_task public.tasks;
  v_before public.tasks;
  v_patch jsonb := coalesce(p -> 'patch', '{}');
  v_fields text[];
  v_broke boolean;
  v_lost jsonb;
  v_assignee uuid;
  v_tally jsonb;
  v_meta jsonb;
  v_note jsonb := '{}';
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('task_update', p);
  if v_replay is not null then
    return v_replay;
  end if;
  v_task := bullpen.resolve_task(p ->> 'task_id');
  select * into v_before from public.tasks where tenant_id = v_task.tenant_id and id = v_task.id for update;
  if v_patch ? 'expected_status' and v_before.status <> v_patch ->> 'expected_status' then
    perform bullpen.fail('CONFLICT',
      format('task status is %s, not the expected %s', v_before.status, v_patch ->> 'expected_status'),
      'someone moved it since you read it: re-read with task_get and decide again',
      jsonb_build_object('current_status', v_before.status));
  end if;
  if v_patch ? 'assignee_actor_id' then
    perform bullpen.require_actor_in_tenant(bullpen.uuid_arg(v_patch, 'assignee_actor_id'), 'patch.assignee_actor_id');
  end if;
  if v_patch ? 'reviewer_actor_id' then
    perform bullpen.require_actor_in_tenant(bullpen.uuid_arg(v_patch, 'reviewer_actor_id'), 'patch.reviewer_actor_id');
  end if;
  if v_patch ? 'meta' then
    -- merge_meta (default true): a shallow merge where null removes a key; false replaces the object
    -- meta: null clears it, as null clears any field of a patch
    v_meta := bullpen.meta_arg(case when jsonb_typeof(v_patch -> 'meta') = 'null' then '{}'::jsonb
                                    when coalesce((p ->> 'merge_meta')::boolean, true)
                                    then bullpen.meta_merge(v_before.meta, bullpen.meta_arg(v_patch -> 'meta', 'patch.meta'))
                                    else v_patch -> 'meta' end, 'patch.meta');
  end if;
  select array_agg(k order by k) into v_fields from jsonb_object_keys(v_patch - 'expected_status' - 'allow_reopen') k;
  v_assignee := case when v_patch ? 'assignee_actor_id' then (v_patch ->> 'assignee_actor_id')::uuid else v_before.assignee_actor_id end;
  v_broke := bullpen.lease_guard(v_before, 'task_update',
    case when v_patch ? 'status' and v_patch ->> 'status' is distinct from v_before.status
         then format('task_update moved it %s → %s', v_before.status, v_patch ->> 'status')
         else format('task_update changed %s', array_to_string(v_fields, ', ')) end,
    (v_patch ? 'status' and v_patch ->> 'status' is distinct from v_before.status)
      or v_assignee is distinct from v_before.assignee_actor_id);
  if v_patch ? 'reviewer_actor_id' then
    perform bullpen.review_guard(v_before, v_assignee, (v_patch ->> 'reviewer_actor_id')::uuid, 'patch.reviewer_actor_id');
  end if;
  perform set_config('bullpen.allow_reopen', case when (v_patch ->> 'allow_reopen')::boolean then 'on' else 'off' end, true);
  update public.tasks set
    status = case when v_patch ? 'status' then v_patch ->> 'status' else status end,
    title = case when v_patch ? 'title' then v_patch ->> 'title' else title end,
    body = case when v_patch ? 'body' then coalesce(v_patch ->> 'body', '') else body end,
    priority = case when v_patch ? 'priority' then coalesce(bullpen.priority_arg(v_patch, 'priority', 'patch.priority'), priority) else priority end,
    meta = case when v_patch ? 'meta' then v_meta else meta end,
    order_index = case when v_patch ? 'order_index' then coalesce((v_patch ->> 'order_index')::double precision, order_index) else order_index end,
    assignee_actor_id = case when v_patch ? 'assignee_actor_id' then (v_patch ->> 'assignee_actor_id')::uuid else assignee_actor_id end,
    requires_capabilities = case when v_patch ? 'requires_capabilities' then bullpen.text_array(v_patch -> 'requires_capabilities') else requires_capabilities end,
    due_on = case when v_patch ? 'due_on' then (v_patch ->> 'due_on')::date else due_on end,
    labels = case when v_patch ? 'labels' then bullpen.text_array(v_patch -> 'labels') else labels end,
    acceptance_criteria = case when v_patch ? 'acceptance_criteria'
      then bullpen.normalize_criteria(v_patch -> 'acceptance_criteria') else acceptance_criteria end,
    requires_evidence = case when v_patch ? 'requires_evidence'
      then coalesce((v_patch ->> 'requires_evidence')::boolean, false) else requires_evidence end,
    reviewer_actor_id = case when v_patch ? 'reviewer_actor_id' then (v_patch ->> 'reviewer_actor_id')::uuid else reviewer_actor_id end
  where tenant_id = v_before.tenant_id and id = v_before.id
  returning * into v_task;
  -- a lease belongs to whoever holds the work; handing the task to someone else ends it, and so
  -- does a person or owner moving the card
  if v_task.lease_actor_id is not null and (v_broke or v_task.assignee_actor_id is distinct from v_task.lease_actor_id) then
    update public.tasks set lease_actor_id = null, lease_expires_at = null
     where tenant_id = v_task.tenant_id and id = v_task.id returning * into v_task;
  end if;
  perform set_config('bullpen.allow_reopen', 'off', true);
  -- an unmet criterion dropped or reworded is a weaker gate: the log keeps its old text (written
  -- before the call's own row, which a derived idempotency key watches)
  v_lost := bullpen.criteria_lost(v_before.acceptance_criteria, v_task.acceptance_criteria);
  if v_lost is not null then
    perform bullpen.log_aside(v_task.tenant_id, 'task.criteria_changed', 'task', v_task.id, v_task.project_id,
      array_to_string(
        array(select format('dropped unmet criterion "%s"', left(x, 300)) from jsonb_array_elements_text(v_lost -> 'dropped') x)
        || array(select format('reworded unmet criterion "%s" as "%s"', left(r ->> 'from', 300), left(r ->> 'to', 300))
                   from jsonb_array_elements(v_lost -> 'reworded') r), '; '),
      v_lost || jsonb_build_object('before', v_before.acceptance_criteria));
  end if;
  -- a changed checklist carries its new tally, so a timeline can say "criteria 2/3 met" in words
  v_tally := case when 'acceptance_criteria' = any (coalesce(v_fields, '{}')) then jsonb_build_object(
    'criteria_met', (select count(*) from jsonb_array_elements(v_task.acceptance_criteria) c where coalesce((c ->> 'met')::boolean, false)),
    'criteria_total', jsonb_array_length(v_task.acceptance_criteria)) else '{}'::jsonb end;
  v_note := bullpen.move_note(v_task, p ->> 'note');
  if v_task.status is distinct from v_before.status then
    perform bullpen.log('task.status_changed', 'task', v_task.id, v_task.project_id,
      format('%s → %s', v_before.status, v_task.status),
      jsonb_build_object('from', v_before.status, 'to', v_task.status, 'fields', to_jsonb(v_fields)) || v_tally || v_note);
  else
    perform bullpen.log('task.updated', 'task', v_task.id, v_task.project_id,
      array_to_string(v_fields, ', '), jsonb_build_object('fields', to_jsonb(coalesce(v_fields, '{}'))) || v_tally || v_note);
  end if;
  return bullpen.idem_finish(p, jsonb_build_object('task', bullpen.task_json(v_task),
    'previous_status', v_before.status, 'changed', to_jsonb(coalesce(v_fields, '{}')))
    || case when v_task.status = 'done' and v_before.status <> 'done'
         then jsonb_build_object('gate', bullpen.task_done_gate(v_task) - 'met') else '{}'::jsonb end);
end
$$;
alter function public.task_update(jsonb) owner to bullpen_writer;

create or replace function public.task_assign(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_task public.tasks;
  v_to uuid;
  v_from uuid;
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('task_assign', p);
  if v_replay is not null then
    return v_replay;
  end if;
  v_task := bullpen.resolve_task(p ->> 'task_id');
  v_to := bullpen.require_actor_in_tenant(bullpen.uuid_arg(p, 'actor_id'), 'actor_id');
  select * into v_task from public.tasks where tenant_id = v_task.tenant_id and id = v_task.id for update;
  v_from := v_task.assignee_actor_id;
  perform bullpen.lease_guard(v_task, 'task_assign',
    format('task_assign gave it to %s', coalesce((select display_name from public.actors where tenant_id = v_task.tenant_id and id = v_to), 'nobody')),
    v_to is distinct from v_task.lease_actor_id);
  update public.tasks set assignee_actor_id = v_to,
         lease_actor_id = case when lease_actor_id = v_to then lease_actor_id end,
         lease_expires_at = case when lease_actor_id = v_to then lease_expires_at end
   where tenant_id = v_task.tenant_id and id = v_task.id
  returning * into v_task;
  perform bullpen.log('task.assigned', 'task', v_task.id, v_task.project_id,
    coalesce((select display_name from public.actors where tenant_id = v_task.tenant_id and id = v_to), 'unassigned'),
    jsonb_build_object('from', v_from, 'to', v_to));
  return bullpen.idem_finish(p, jsonb_build_object('task', bullpen.task_json(v_task), 'previous_assignee_actor_id', v_from));
end
$$;
alter function public.task_assign(jsonb) owner to bullpen_writer;

-- The claim's candidate searches with filters (project, repositories, label) or behind a lapsed
-- lease. Custom plans here: the optional filters must fold away before planning, or a generic plan
-- that serves every combination degrades to a scan of the whole workspace. The common call (no
-- filter, no lapsed lease) never comes here: task_claim runs one static query with a cached plan.
-- The dependency test is written out (not bullpen.task_waiting): Postgres does not inline a SQL
-- function whose body holds a sub-select, and a call per candidate row costs more than the claim.
create or replace function bullpen.claim_lapsed(v_tenant uuid, v_me uuid, p jsonb, v_project uuid, v_in_repos uuid[])
returns public.tasks
language plpgsql
set plan_cache_mode = force_custom_plan
as $$
declare
  v_task public.tasks;
  v_stopped uuid[] := bullpen.stopped_projects(v_tenant);
  v_paused uuid[] := bullpen.paused_instances(v_tenant);
begin
    -- two bounds, not one or: an or of them is a filter after the tenant policy, not an index condition
    with lapsed as materialized (
      (select l.id from public.tasks l
        where l.tenant_id = v_tenant and l.status = 'in_progress' and l.lease_expires_at <= now()
        limit 256)
      union all
      (select l.id from public.tasks l
        where l.tenant_id = v_tenant and l.status = 'in_progress' and l.lease_expires_at is null
        limit 256)
    )
    select t.* into v_task from public.tasks t join lapsed on lapsed.id = t.id
     where t.tenant_id = v_tenant and t.status = 'in_progress'
       and (t.lease_expires_at is null or t.lease_expires_at <= now())
       and (t.assignee_actor_id is null or t.assignee_actor_id = v_me or t.assignee_actor_id = t.lease_actor_id)
       and (v_project is null or t.project_id = v_project)
       and (v_in_repos is null or t.project_id = any (v_in_repos))
       and (p ->> 'label' is null or (p ->> 'label') = any (t.labels))
       -- max_priority: only work at least this urgent
       and (p ->> 'max_priority' is null or t.priority <= bullpen.priority_arg(p, 'max_priority', 'max_priority'))
       -- paused and archived projects offer no work (the list is read once, not per row)
       and t.project_id <> all (v_stopped)
       -- workflows (0029): a paused instance's tasks are not claimable (the list is read once, not per row)
       and (t.workflow_instance_id is null or t.workflow_instance_id <> all (v_paused))
       and t.requires_capabilities <@ (select a.capabilities from public.actors a where a.tenant_id = v_tenant and a.id = v_me) -- routing (0022)
       and not exists (
             select 1 from public.task_dependencies d
               join public.tasks dt on dt.tenant_id = d.tenant_id and dt.id = d.depends_on_task_id
              where d.tenant_id = t.tenant_id and d.task_id = t.id and dt.status not in ('done', 'skipped'))
     order by t.priority, t.order_index, t.created_at, t.id
     limit 1
     for update of t skip locked;
  return v_task;
end
$$;

create or replace function bullpen.claim_todo(v_tenant uuid, v_me uuid, p jsonb, v_project uuid, v_in_repos uuid[], p_before public.tasks)
returns public.tasks
language plpgsql
set plan_cache_mode = force_custom_plan
as $$
declare
  v_task public.tasks;
  v_stopped uuid[] := bullpen.stopped_projects(v_tenant);
  v_paused uuid[] := bullpen.paused_instances(v_tenant);
begin
    select t.* into v_task from public.tasks t
     where t.tenant_id = v_tenant and t.status = 'todo'
       and (t.assignee_actor_id is null or t.assignee_actor_id = v_me)
       and (v_project is null or t.project_id = v_project)
       and (v_in_repos is null or t.project_id = any (v_in_repos))
       and (p ->> 'label' is null or (p ->> 'label') = any (t.labels))
       and (p_before.id is null or (t.priority, t.order_index, t.created_at, t.id)
                                   < (p_before.priority, p_before.order_index, p_before.created_at, p_before.id))
       -- a start:false claim locks a todo task without moving it: its live lease protects it
       and (t.lease_expires_at is null or t.lease_expires_at <= now())
       -- max_priority: only work at least this urgent
       and (p ->> 'max_priority' is null or t.priority <= bullpen.priority_arg(p, 'max_priority', 'max_priority'))
       -- paused and archived projects offer no work (the list is read once, not per row)
       and t.project_id <> all (v_stopped)
       -- workflows (0029): a paused instance's tasks are not claimable (the list is read once, not per row)
       and (t.workflow_instance_id is null or t.workflow_instance_id <> all (v_paused))
       and t.requires_capabilities <@ (select a.capabilities from public.actors a where a.tenant_id = v_tenant and a.id = v_me) -- routing (0022)
       and not exists (
             select 1 from public.task_dependencies d
               join public.tasks dt on dt.tenant_id = d.tenant_id and dt.id = d.depends_on_task_id
              where d.tenant_id = t.tenant_id and d.task_id = t.id and dt.status not in ('done', 'skipped'))
     order by t.priority, t.order_index, t.created_at, t.id
     limit 1
     for update of t skip locked;
  return v_task;
end
$$;

create or replace function public.task_claim(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_me uuid := bullpen.require_actor();
  v_tenant uuid := bullpen.tenant_id();
  v_lease interval := make_interval(secs => coalesce((p ->> 'lease_seconds')::int, 3600));
  v_task public.tasks;
  v_project uuid;
  v_blockers int;
  v_extended boolean := false;
  v_exp public.tasks;
  v_in_repos uuid[];
  -- start:false takes the lease without moving the task (an advisory lock)
  v_start boolean := coalesce((p ->> 'start')::boolean, true);
  v_stopped uuid[];
  v_paused uuid[];
  v_pstatus text;
  v_note jsonb;
  v_refusal jsonb;
  v_budget jsonb;
begin
  v_replay := bullpen.idem_begin('task_claim', p);
  if v_replay is not null then
    return v_replay;
  end if;
  if p ->> 'task_id' is not null then
    v_task := bullpen.resolve_task(p ->> 'task_id');
    select * into v_task from public.tasks where tenant_id = v_tenant and id = v_task.id for update;
    -- a paused or archived project offers no work
    select pr.status into v_pstatus from public.projects pr where pr.tenant_id = v_tenant and pr.id = v_task.project_id;
    if v_pstatus in ('paused', 'archived') then
      perform bullpen.fail('NOT_CLAIMABLE', format('project status is %s: a paused or archived project offers no work', v_pstatus),
        'resume the project with project_update (status active), or claim work elsewhere',
        jsonb_build_object('project_status', v_pstatus));
    end if;
    if v_task.lease_actor_id = v_me and (v_task.status = 'in_progress' or v_task.lease_expires_at > now()) then
      v_extended := true;
    elsif v_task.workflow_instance_id = any (bullpen.paused_instances(v_tenant)) then -- workflows (0029)
      perform bullpen.fail('NOT_CLAIMABLE', 'workflow instance is paused: a paused instance''s tasks are not claimable',
        'resume it with workflow_resume, or claim other work',
        jsonb_build_object('workflow_instance_id', v_task.workflow_instance_id));
    elsif cardinality(bullpen.missing_capabilities(v_task, v_me)) > 0 then -- routing (0022): what the task needs of its taker
      perform bullpen.fail('NOT_CLAIMABLE', format('requires_capabilities: the task needs %s, which you lack',
        array_to_string(bullpen.missing_capabilities(v_task, v_me), ', ')),
        'claim work you can do, or add the capability with register_actor',
        jsonb_build_object('missing_capabilities', to_jsonb(bullpen.missing_capabilities(v_task, v_me))));
    elsif v_task.status not in ('backlog', 'todo', 'in_progress') then
      perform bullpen.fail('NOT_CLAIMABLE', format('task is %s', v_task.status),
        case when v_task.status in ('done', 'cancelled') then 'reopen it with task_update (allow_reopen) first'
             else 'move it to todo with task_update first' end,
        jsonb_build_object('status', v_task.status));
    elsif v_task.lease_actor_id is not null and v_task.lease_expires_at > now() then
      perform bullpen.fail('LEASE_HELD', format('task is claimed by another actor until %s', v_task.lease_expires_at),
        'claim another task, or ask the holder with a handoff',
        jsonb_build_object('lease_actor_id', v_task.lease_actor_id, 'lease_expires_at', v_task.lease_expires_at));
    elsif v_task.assignee_actor_id is not null and v_task.assignee_actor_id <> v_me
          and v_task.assignee_actor_id is distinct from v_task.lease_actor_id then
      perform bullpen.fail('NOT_CLAIMABLE', 'task is assigned to another actor',
        'reassign it with task_assign first, or claim unassigned work',
        jsonb_build_object('assignee_actor_id', v_task.assignee_actor_id));
    end if;
    -- routing (0022): the actor's status and load limit (bullpen.claim_refusal), except when extending its own lease
    v_refusal := case when not v_extended then bullpen.claim_refusal(v_tenant, v_me) end;
    if v_refusal is not null then
      perform bullpen.fail('NOT_CLAIMABLE', v_refusal ->> 'message', v_refusal ->> 'hint', v_refusal - 'message' - 'hint');
    end if;
    v_blockers := bullpen.task_open_blockers(v_task.id);
    if v_blockers > 0 then
      perform bullpen.fail('NOT_CLAIMABLE', format('task waits on %s unfinished dependenc%s', v_blockers,
        case when v_blockers = 1 then 'y' else 'ies' end),
        'finish its blockers first (task_get lists them), or claim ready work',
        jsonb_build_object('open_blockers', v_blockers));
    end if;
    -- costs (0027): a spent budget, or an estimate that would pass one, refuses the claim
    v_budget := bullpen.claim_budget(v_task, v_me, p);
    if v_budget is not null then
      perform bullpen.fail('BUDGET_EXCEEDED', format('the %s would be passed: $%s spent, $%s reserved, $%s asked',
          v_budget ->> 'budget', round((v_budget ->> 'spent_usd')::numeric, 2), round((v_budget ->> 'reserved_usd')::numeric, 2),
          round((v_budget ->> 'requested_usd')::numeric, 2)),
        'claim nothing more under this budget: a workspace owner raises it (budget_set), or its next period frees it (budget_status)',
        v_budget);
    end if;
  else
    -- routing (0022): a paused, deactivated or full actor takes no new work (bullpen.claim_refusal)
    v_refusal := bullpen.claim_refusal(v_tenant, v_me);
    if v_refusal is not null then
      return bullpen.idem_finish(p, jsonb_build_object('claimed', false, 'reason', v_refusal ->> 'reason',
        'hint', (v_refusal ->> 'message') || '; ' || (v_refusal ->> 'hint')));
    end if;
    if p ->> 'project_id' is not null then
      v_project := (bullpen.resolve_project(p ->> 'project_id')).id;
    end if;
    if jsonb_array_length(coalesce(p -> 'repository_ids', '[]')) > 0 then
      v_in_repos := bullpen.projects_in_repositories(
        array(select bullpen.uuid_arg(jsonb_build_object('repository_ids', r), 'repository_ids')
                from jsonb_array_elements_text(p -> 'repository_ids') r));
      if cardinality(v_in_repos) = 0 then
        return bullpen.idem_finish(p, jsonb_build_object('claimed', false, 'reason', 'no_match',
          'hint', 'no project is linked to those repositories (repo_link links one)'));
      end if;
    end if;
    -- Two sources of claimable work, each read in priority order with SKIP LOCKED so concurrent
    -- claimers pass each other instead of queueing: in-progress work whose lease lapsed (rare,
    -- found through tasks_lapsed_idx), then todo work that ranks strictly before it (tasks_ready_idx;
    -- claimed rows leave that index, so the scan never steps over work others hold).
    -- The lapsed leases are gathered through tasks_lapsed_idx first (materialized, so the planner
    -- cannot trade it for a walk of the whole workspace in priority order hoping to meet one).
    v_stopped := bullpen.stopped_projects(v_tenant);
    v_paused := bullpen.paused_instances(v_tenant); -- workflows (0029): any paused instance takes the filtered path
    -- a paused or archived project in the workspace sends the claim down the filtered path, whose
    -- custom plans see the list; as a parameter of the static query's generic plan, "<> all ($n)" was
    -- priced as matching almost nothing and the plan sorted every todo task of the workspace
    if v_project is null and v_in_repos is null and p ->> 'label' is null and p ->> 'max_priority' is null
       and cardinality(v_stopped) = 0 and cardinality(v_paused) = 0 then
      -- the common call: lapsed leases are rare, so one probe of tasks_lapsed_idx decides whether
      -- the slower search behind them runs at all
      if exists (select 1 from public.tasks l
                  where l.tenant_id = v_tenant and l.status = 'in_progress' and l.lease_expires_at <= now())
         or exists (select 1 from public.tasks l
                     where l.tenant_id = v_tenant and l.status = 'in_progress' and l.lease_expires_at is null) then
        v_exp := bullpen.claim_lapsed(v_tenant, v_me, p, null, null);
      end if;
      if v_exp.id is null then
        select t.* into v_task from public.tasks t
         where t.tenant_id = v_tenant and t.status = 'todo'
           and (t.assignee_actor_id is null or t.assignee_actor_id = v_me)
           -- a start:false claim locks a todo task without moving it: its live lease protects it
           and (t.lease_expires_at is null or t.lease_expires_at <= now())
           and t.requires_capabilities <@ (select a.capabilities from public.actors a where a.tenant_id = v_tenant and a.id = v_me) -- routing (0022)
           and not exists (
                 select 1 from public.task_dependencies d
                   join public.tasks dt on dt.tenant_id = d.tenant_id and dt.id = d.depends_on_task_id
                  where d.tenant_id = t.tenant_id and d.task_id = t.id and dt.status not in ('done', 'skipped'))
         order by t.priority, t.order_index, t.created_at, t.id
         limit 1
         for update of t skip locked;
      else
        v_task := bullpen.claim_todo(v_tenant, v_me, p, null, null, v_exp);
      end if;
    else
      v_exp := bullpen.claim_lapsed(v_tenant, v_me, p, v_project, v_in_repos);
      v_task := bullpen.claim_todo(v_tenant, v_me, p, v_project, v_in_repos, v_exp);
    end if;
    if v_task.id is null then
      v_task := v_exp;
    end if;
    if v_task.id is null then
      return bullpen.idem_finish(p, jsonb_build_object('claimed', false, 'reason', 'pool_empty',
        'hint', 'no ready task matches; create work with task_create or check blocked tasks with task_query state:"blocked"'));
    end if;
    -- costs (0027): a spent budget, or an estimate that would pass one, takes nothing
    v_budget := bullpen.claim_budget(v_task, v_me, p);
    if v_budget is not null then
      return bullpen.idem_finish(p, jsonb_build_object('claimed', false, 'reason', 'budget_exceeded',
        'hint', format('the %s would be passed ($%s spent, $%s reserved); a workspace owner raises it with budget_set',
          v_budget ->> 'budget', round((v_budget ->> 'spent_usd')::numeric, 2), round((v_budget ->> 'reserved_usd')::numeric, 2))));
    end if;
  end if;
  update public.tasks
     set status = case when v_start then 'in_progress' else status end,
         assignee_actor_id = v_me, lease_actor_id = v_me, lease_expires_at = now() + v_lease
   where tenant_id = v_tenant and id = v_task.id
  returning * into v_task;
  v_note := bullpen.move_note(v_task, p ->> 'note');
  perform bullpen.log(case when v_extended then 'task.lease_extended' else 'task.claimed' end, 'task', v_task.id,
    v_task.project_id, format('lease until %s', v_task.lease_expires_at),
    case when v_start then '{}'::jsonb else jsonb_build_object('start', false) end || v_note);
  return bullpen.idem_finish(p, jsonb_build_object('claimed', true, 'extended', v_extended,
    'task', bullpen.task_json(v_task), 'lease_expires_at', v_task.lease_expires_at,
    'project_context', bullpen.project_context(v_task.project_id)) || bullpen.task_collisions(v_task));
end
$$;
alter function public.task_claim(jsonb) owner to bullpen_writer;

create or replace function public.task_release(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_me uuid := bullpen.require_actor();
  v_task public.tasks;
  v_broke boolean;
  v_note jsonb;
begin
  v_replay := bullpen.idem_begin('task_release', p);
  if v_replay is not null then
    return v_replay;
  end if;
  v_task := bullpen.resolve_task(p ->> 'task_id');
  select * into v_task from public.tasks where tenant_id = v_task.tenant_id and id = v_task.id for update;
  v_broke := bullpen.lease_guard(v_task, 'task_release',
    'task_release gave it back to the pool' || coalesce(': ' || left(p ->> 'note', 300), ''), true);
  if v_task.lease_actor_id is distinct from v_me and v_task.assignee_actor_id is distinct from v_me and not v_broke then
    perform bullpen.fail('CONFLICT', 'you do not hold this task',
      'only the lease holder or assignee releases a task; use task_assign to hand it over',
      jsonb_build_object('lease_actor_id', v_task.lease_actor_id, 'assignee_actor_id', v_task.assignee_actor_id));
  end if;
  update public.tasks
     -- keep_status: give the lease back without moving the task
     set status = case when status = 'in_progress' and not coalesce((p ->> 'keep_status')::boolean, false) then 'todo' else status end,
         assignee_actor_id = null, lease_actor_id = null, lease_expires_at = null
   where tenant_id = v_task.tenant_id and id = v_task.id
  returning * into v_task;
  -- the note joins the task's thread as a note (mentions, comment.added, live), and the move's row carries it
  v_note := bullpen.move_note(v_task, p ->> 'note');
  perform bullpen.log('task.released', 'task', v_task.id, v_task.project_id, coalesce(p ->> 'note', ''),
    case when coalesce((p ->> 'keep_status')::boolean, false) then jsonb_build_object('keep_status', true) else '{}'::jsonb end || v_note);
  return bullpen.idem_finish(p, jsonb_build_object('released', true, 'task', bullpen.task_json(v_task)));
end
$$;
alter function public.task_release(jsonb) owner to bullpen_writer;

create or replace function public.task_link(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_task public.tasks;
  v_dep public.tasks;
  v_ref text;
  v_added jsonb := '[]';
  v_removed jsonb := '[]';
  v_rejected jsonb := '[]';
  v_parent uuid;
  i int;
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('task_link', p);
  if v_replay is not null then
    return v_replay;
  end if;
  v_task := bullpen.resolve_task(p ->> 'task_id');
  -- one graph writer per workspace at a time, so two links cannot close a cycle between them
  perform pg_advisory_xact_lock(hashtextextended('bullpen.task_graph:' || v_task.tenant_id::text, 0));
  i := 0;
  for v_ref in select jsonb_array_elements_text(coalesce(p -> 'add_depends_on', '[]')) loop
    v_dep := bullpen.resolve_task(v_ref, format('add_depends_on[%s]', i));
    if v_dep.id = v_task.id or exists (
      with recursive reach as (
        select d.depends_on_task_id as id from public.task_dependencies d
         where d.tenant_id = v_task.tenant_id and d.task_id = v_dep.id
        union
        select d.depends_on_task_id from public.task_dependencies d join reach r on d.task_id = r.id
         where d.tenant_id = v_task.tenant_id
      )
      select 1 from reach where id = v_task.id
    ) then
      v_rejected := v_rejected || jsonb_build_object('depends_on_task_id', v_dep.id, 'reason',
        case when v_dep.id = v_task.id then 'a task cannot depend on itself'
             else 'it already depends, directly or through others, on this task' end);
    else
      insert into public.task_dependencies (tenant_id, task_id, depends_on_task_id)
      values (v_task.tenant_id, v_task.id, v_dep.id) on conflict do nothing;
      if found then
        v_added := v_added || to_jsonb(v_dep.id);
      end if;
    end if;
    i := i + 1;
  end loop;
  i := 0;
  for v_ref in select jsonb_array_elements_text(coalesce(p -> 'remove_depends_on', '[]')) loop
    v_dep := bullpen.resolve_task(v_ref, format('remove_depends_on[%s]', i));
    delete from public.task_dependencies
     where tenant_id = v_task.tenant_id and task_id = v_task.id and depends_on_task_id = v_dep.id;
    if found then
      v_removed := v_removed || to_jsonb(v_dep.id);
    end if;
    i := i + 1;
  end loop;
  if coalesce((p ->> 'clear_parent')::boolean, false) then
    update public.tasks set parent_task_id = null where tenant_id = v_task.tenant_id and id = v_task.id;
  elsif p ->> 'set_parent_task_id' is not null then
    v_parent := (bullpen.resolve_task(p ->> 'set_parent_task_id', 'set_parent_task_id')).id;
    if v_parent = v_task.id or exists (
      with recursive up as (
        select parent_task_id as id, 1 as depth from public.tasks where tenant_id = v_task.tenant_id and id = v_parent
        union all
        select t.parent_task_id, up.depth + 1 from public.tasks t join up on t.tenant_id = v_task.tenant_id and t.id = up.id
         where up.depth < 1000
      )
      select 1 from up where id = v_task.id
    ) then
      perform bullpen.fail('CYCLE_DETECTED', 'set_parent_task_id would make the task its own ancestor',
        'choose a parent outside this task''s subtasks');
    end if;
    update public.tasks set parent_task_id = v_parent where tenant_id = v_task.tenant_id and id = v_task.id;
  end if;
  select * into v_task from public.tasks where tenant_id = v_task.tenant_id and id = v_task.id;
  perform bullpen.log('task.linked', 'task', v_task.id, v_task.project_id,
    format('+%s −%s deps', jsonb_array_length(v_added), jsonb_array_length(v_removed)),
    jsonb_build_object('added', v_added, 'removed', v_removed, 'cycle_rejected', v_rejected));
  return bullpen.idem_finish(p, jsonb_build_object('task_id', v_task.id, 'added', v_added, 'removed', v_removed,
    'cycle_rejected', v_rejected, 'parent_task_id', v_task.parent_task_id,
    'depends_on', (select coalesce(jsonb_agg(depends_on_task_id), '[]') from public.task_dependencies
                    where tenant_id = v_task.tenant_id and task_id = v_task.id)));
end
$$;
alter function public.task_link(jsonb) owner to bullpen_writer;

-- Listings paginate by keyset: the cursor carries the last row's sort values, so a page never
-- repeats or skips a row when earlier rows change.
-- force_generic_plan: the static page statements below take the page size as a parameter, which
-- prices a generic plan above a custom one, so the default cache replanned them on every call.
-- The filtered shapes go through execute, which plans every call whatever this says.
create or replace function public.task_query(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
set plan_cache_mode = force_generic_plan
as $$
declare
  v_limit int := greatest(1, least(coalesce((p ->> 'limit')::int, 50), 500));
  v_order text := coalesce(p ->> 'order', p ->> 'order_by', 'priority');
  v_prios smallint[];
  v_sort text;
  v_cmp text;
  v_cursor jsonb := bullpen.cursor_json(p);
  v_project uuid;
  v_sql text;
  v_where text[];
  v_rows jsonb;
  v_keys jsonb;
  v_ids uuid[];
  v_tenant uuid := bullpen.tenant_id();
begin
  perform bullpen.require_actor();
  if p ->> 'project_id' is not null then
    v_project := (bullpen.resolve_project(p ->> 'project_id')).id;
  end if;
  case v_order
    when 'priority' then
      v_sort := 't.priority, t.created_at, t.id';
      v_cmp := '(t.priority, t.created_at, t.id) > (($2->>0)::smallint, ($2->>1)::timestamptz, ($2->>2)::uuid)';
    when 'created_at' then
      v_sort := 't.created_at desc, t.id desc';
      v_cmp := '(t.created_at, t.id) < (($2->>0)::timestamptz, ($2->>1)::uuid)';
    when 'updated_at' then
      v_sort := 't.updated_at desc, t.id desc';
      v_cmp := '(t.updated_at, t.id) < (($2->>0)::timestamptz, ($2->>1)::uuid)';
    when 'manual' then
      -- the board's order within a column: order_index, then priority, then age
      v_sort := 't.order_index, t.priority, t.created_at, t.id';
      v_cmp := '(t.order_index, t.priority, t.created_at, t.id) > (($2->>0)::double precision, ($2->>1)::smallint, ($2->>2)::timestamptz, ($2->>3)::uuid)';
    when 'due_on' then
      v_sort := 'coalesce(t.due_on, ''infinity''::date), t.priority, t.id';
      v_cmp := '(coalesce(t.due_on, ''infinity''::date), t.priority, t.id) > (($2->>0)::date, ($2->>1)::smallint, ($2->>2)::uuid)';
    else
      perform bullpen.fail('VALIDATION_ERROR', format('order_by: unknown order %s', v_order),
        'use priority, manual, created_at, updated_at or due_on');
  end case;
  -- Only the filters given become predicates, so the planner sees the simplest query; the page is
  -- sorted and cut on bare rows, and derived fields are computed for the page only.
  v_where := array['t.tenant_id = $5'];
  if v_project is not null then
    v_where := array_append(v_where, 't.project_id = $4'::text);
  end if;
  if p ->> 'assignee_actor_id' = 'unassigned' then
    v_where := array_append(v_where, 't.assignee_actor_id is null'::text);
  elsif p ->> 'assignee_actor_id' is not null then
    v_where := array_append(v_where, '(t.assignee_actor_id = ($1->>''assignee_actor_id'')::uuid)'::text);
  end if;
  if p -> 'status' is not null then
    v_where := array_append(v_where, 't.status = any (bullpen.text_array($1->''status''))'::text);
  end if;
  if p ->> 'label' is not null then
    v_where := array_append(v_where, '($1->>''label'') = any (t.labels)'::text);
  end if;
  if jsonb_typeof(p -> 'priority') = 'array' then
    -- numbers or names (urgent, high, medium, low, none); rows still carry the number
    v_prios := array(select bullpen.priority_arg(jsonb_build_object('v', e.v), 'v', format('priority[%s]', e.i - 1))
                       from jsonb_array_elements(p -> 'priority') with ordinality e(v, i));
    v_where := array_append(v_where, 't.priority = any ($6)'::text);
  end if;
  if p -> 'meta' is not null then
    -- containment, served by tasks_meta_idx (GIN, jsonb_path_ops)
    v_where := array_append(v_where, 't.meta @> ($1->''meta'')'::text);
  end if;
  if p ->> 'due_before' is not null then
    v_where := array_append(v_where, 't.due_on < ($1->>''due_before'')::date'::text);
  end if;
  if p ->> 'q' is not null then
    v_where := array_append(v_where, $w$(t.title ilike '%' || bullpen.like_escape($1->>'q') || '%' or t.body ilike '%' || bullpen.like_escape($1->>'q') || '%'
                              or (pr.key || '-' || t.seq) ilike bullpen.like_escape($1->>'q'))$w$);
  end if;
  if p ->> 'state' = 'ready' then
    v_where := array_append(v_where, $w$t.status in ('todo', 'in_progress') and (t.lease_expires_at is null or t.lease_expires_at <= now())
      and not exists (select 1 from public.task_dependencies d
                         join public.tasks dt on dt.tenant_id = d.tenant_id and dt.id = d.depends_on_task_id
                        where d.tenant_id = t.tenant_id and d.task_id = t.id and dt.status not in ('done', 'skipped'))$w$);
  elsif p ->> 'state' = 'blocked' then
    v_where := array_append(v_where, $w$t.status not in ('done', 'cancelled', 'failed', 'skipped')
      and (t.status = 'blocked' or exists (select 1 from public.task_dependencies d
                         join public.tasks dt on dt.tenant_id = d.tenant_id and dt.id = d.depends_on_task_id
                        where d.tenant_id = t.tenant_id and d.task_id = t.id and dt.status not in ('done', 'skipped')))$w$);
  end if;
  if v_cursor is not null then
    v_where := array_append(v_where, v_cmp);
  end if;
  -- The dynamic statement (planned on every call) finds the page's ids only; its rows' JSON is built
  -- by the static statement below, whose plan the session keeps.
  v_sql := format($q$
    select array(select t.id from public.tasks t%s where %s order by %s limit %s)
  $q$,
    -- only the text search reads the project (its key is part of a ref); every task has one
    case when p ->> 'q' is not null then ' join public.projects pr on pr.tenant_id = t.tenant_id and pr.id = t.project_id' else '' end,
    array_to_string(v_where, ' and '), v_sort, v_limit + 1);
  if v_cursor is null and v_order = 'priority' and coalesce(p ->> 'state', 'ready') = 'ready'
     and not (p ?| array['assignee_actor_id', 'status', 'label', 'due_before', 'q', 'priority', 'meta']) then
    -- The agent loop's shapes (the ready pool or a project's tasks, first page, by priority) as static
    -- statements, whose plans the session keeps; an execute is planned on every call.
    -- Ready is todo (off tasks_ready_idx, in page order) or a lapsed lease (off tasks_lapsed_idx):
    -- as one predicate, the scan in page order walked every live claim at the top priorities.
    if p ->> 'state' = 'ready' and v_project is not null then
      v_ids := array(select u.id from (
          (select t.id, t.priority, t.created_at from public.tasks t
            where t.tenant_id = v_tenant and t.status = 'todo' and t.project_id = v_project
              and (t.lease_expires_at is null or t.lease_expires_at <= now())
              and not exists (select 1 from public.task_dependencies d
                                join public.tasks dt on dt.tenant_id = d.tenant_id and dt.id = d.depends_on_task_id
                               where d.tenant_id = t.tenant_id and d.task_id = t.id and dt.status not in ('done', 'skipped'))
            order by t.priority, t.created_at, t.id limit v_limit + 1)
          union all
          (select t.id, t.priority, t.created_at from (
              -- offset 0 keeps the project test outside: the lapsed leases are few, the project's live claims many
              (select t.* from public.tasks t
                where t.tenant_id = v_tenant and t.status = 'in_progress' and t.lease_expires_at <= now() offset 0)
              union all
              (select t.* from public.tasks t
                where t.tenant_id = v_tenant and t.status = 'in_progress' and t.lease_expires_at is null offset 0)) t
            where t.project_id = v_project
              and not exists (select 1 from public.task_dependencies d
                                join public.tasks dt on dt.tenant_id = d.tenant_id and dt.id = d.depends_on_task_id
                               where d.tenant_id = t.tenant_id and d.task_id = t.id and dt.status not in ('done', 'skipped')))) u
        order by u.priority, u.created_at, u.id limit v_limit + 1);
    elsif p ->> 'state' = 'ready' then
      v_ids := array(select u.id from (
          (select t.id, t.priority, t.created_at from public.tasks t
            where t.tenant_id = v_tenant and t.status = 'todo'
              and (t.lease_expires_at is null or t.lease_expires_at <= now())
              and not exists (select 1 from public.task_dependencies d
                                join public.tasks dt on dt.tenant_id = d.tenant_id and dt.id = d.depends_on_task_id
                               where d.tenant_id = t.tenant_id and d.task_id = t.id and dt.status not in ('done', 'skipped'))
            order by t.priority, t.created_at, t.id limit v_limit + 1)
          union all
          (select t.id, t.priority, t.created_at from (
              (select t.* from public.tasks t
                where t.tenant_id = v_tenant and t.status = 'in_progress' and t.lease_expires_at <= now() offset 0)
              union all
              (select t.* from public.tasks t
                where t.tenant_id = v_tenant and t.status = 'in_progress' and t.lease_expires_at is null offset 0)) t
            where not exists (select 1 from public.task_dependencies d
                                join public.tasks dt on dt.tenant_id = d.tenant_id and dt.id = d.depends_on_task_id
                               where d.tenant_id = t.tenant_id and d.task_id = t.id and dt.status not in ('done', 'skipped')))) u
        order by u.priority, u.created_at, u.id limit v_limit + 1);
    elsif v_project is not null then
      v_ids := array(select t.id from public.tasks t where t.tenant_id = v_tenant and t.project_id = v_project
                      order by t.priority, t.created_at, t.id limit v_limit + 1);
    else
      v_ids := array(select t.id from public.tasks t where t.tenant_id = v_tenant
                      order by t.priority, t.created_at, t.id limit v_limit + 1);
    end if;
  elsif v_cursor is null then
    execute v_sql into v_ids using p, v_cursor, v_order, v_project, v_tenant, v_prios;
  else
    begin
      execute v_sql into v_ids using p, v_cursor, v_order, v_project, v_tenant, v_prios;
    exception when data_exception then
      -- the other inputs are validated before they get here: sort keys that do not cast came from
      -- a cursor this listing did not write (or wrote for another order_by)
      perform bullpen.fail('VALIDATION_ERROR', 'cursor: not a next_cursor from this listing (with this order_by)',
        'pass next_cursor back verbatim with the same order_by, or omit cursor for the first page');
    end;
  end if;
  select coalesce(jsonb_agg(bullpen.task_row_json(t, pr.key, ob.n) order by u.ord), '[]')
    into v_rows
    from unnest(v_ids) with ordinality u(id, ord)
    join public.tasks t on t.tenant_id = v_tenant and t.id = u.id
    join public.projects pr on pr.tenant_id = t.tenant_id and pr.id = t.project_id
    cross join lateral (
      select count(*)::int as n from public.task_dependencies d
        join public.tasks dt on dt.tenant_id = d.tenant_id and dt.id = d.depends_on_task_id
       where d.tenant_id = t.tenant_id and d.task_id = t.id and dt.status not in ('done', 'skipped')) ob;
  if jsonb_array_length(v_rows) > v_limit then
    v_rows := v_rows - v_limit;
    -- the cursor is the sort key of the last row kept, which the query above cannot know; read it back
    v_keys := case v_order
      when 'priority' then jsonb_build_array(v_rows -> (v_limit - 1) -> 'priority', v_rows -> (v_limit - 1) -> 'created_at', v_rows -> (v_limit - 1) -> 'id')
      when 'due_on' then jsonb_build_array(coalesce(v_rows -> (v_limit - 1) ->> 'due_on', 'infinity'), v_rows -> (v_limit - 1) -> 'priority', v_rows -> (v_limit - 1) -> 'id')
      when 'manual' then jsonb_build_array(v_rows -> (v_limit - 1) -> 'order_index', v_rows -> (v_limit - 1) -> 'priority', v_rows -> (v_limit - 1) -> 'created_at', v_rows -> (v_limit - 1) -> 'id')
      when 'created_at' then jsonb_build_array(v_rows -> (v_limit - 1) -> 'created_at', v_rows -> (v_limit - 1) -> 'id')
      else jsonb_build_array(v_rows -> (v_limit - 1) -> 'updated_at', v_rows -> (v_limit - 1) -> 'id') end;
    return jsonb_build_object('tasks', v_rows, 'next_cursor', encode(convert_to(v_keys::text, 'utf8'), 'base64'));
  end if;
  return jsonb_build_object('tasks', v_rows, 'next_cursor', null);
end
$$;
alter function public.task_query(jsonb) owner to bullpen_writer;

create or replace function public.task_get(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_task public.tasks;
  v_out jsonb;
begin
  perform bullpen.require_actor();
  v_task := bullpen.resolve_task(p ->> 'task_id');
  v_out := jsonb_build_object(
    'task', bullpen.task_json(v_task),
    'project', bullpen.project_context(v_task.project_id),
    'blockers', (select coalesce(jsonb_agg(bullpen.task_row_json(dt, pr.key, bullpen.task_open_blockers(dt.id)) order by dt.priority, dt.seq), '[]')
                   from public.task_dependencies d
                   join public.tasks dt on dt.tenant_id = d.tenant_id and dt.id = d.depends_on_task_id
                   join public.projects pr on pr.tenant_id = dt.tenant_id and pr.id = dt.project_id
                  where d.tenant_id = v_task.tenant_id and d.task_id = v_task.id),
    'dependents', (select coalesce(jsonb_agg(bullpen.task_row_json(dt, pr.key, bullpen.task_open_blockers(dt.id)) order by dt.priority, dt.seq), '[]')
                   from public.task_dependencies d
                   join public.tasks dt on dt.tenant_id = d.tenant_id and dt.id = d.task_id
                   join public.projects pr on pr.tenant_id = dt.tenant_id and pr.id = dt.project_id
                  where d.tenant_id = v_task.tenant_id and d.depends_on_task_id = v_task.id),
    'subtasks', (select coalesce(jsonb_agg(bullpen.task_row_json(st, pr.key, bullpen.task_open_blockers(st.id)) order by st.seq), '[]')
                   from public.tasks st
                   join public.projects pr on pr.tenant_id = st.tenant_id and pr.id = st.project_id
                  where st.tenant_id = v_task.tenant_id and st.parent_task_id = v_task.id),
    'parent', (select bullpen.task_row_json(pt, pr.key, bullpen.task_open_blockers(pt.id))
                 from public.tasks pt join public.projects pr on pr.tenant_id = pt.tenant_id and pr.id = pt.project_id
                where pt.tenant_id = v_task.tenant_id and pt.id = v_task.parent_task_id),
    'comments', (select coalesce(jsonb_agg(jsonb_build_object('id', c.id, 'author_actor_id', c.author_actor_id,
                    'author', a.display_name, 'author_kind', a.kind, 'body', c.body, 'parent_comment_id', c.parent_comment_id,
                    'mentions', to_jsonb(c.mentions), 'kind', c.kind, 'tags', to_jsonb(c.tags), 'meta', c.meta,
                    'created_at', c.created_at) order by c.created_at, c.id), '[]')
                   from public.comments c join public.actors a on a.tenant_id = c.tenant_id and a.id = c.author_actor_id
                  where c.tenant_id = v_task.tenant_id and c.object_type = 'task' and c.object_id = v_task.id),
    'activity', (select coalesce(jsonb_agg(x.j order by x.id desc), '[]') from (
                   select ac.id, jsonb_build_object('seq', ac.id, 'verb', ac.verb, 'summary', ac.summary,
                     'actor_id', ac.actor_id, 'actor', a.display_name, 'at', ac.at, 'metadata', ac.metadata) as j
                     from public.activity ac left join public.actors a on a.tenant_id = ac.tenant_id and a.id = ac.actor_id
                    where ac.tenant_id = v_task.tenant_id and ac.object_id = v_task.id
                    order by ac.id desc limit 100) x)
  ) || bullpen.task_related_coordination(v_task) || bullpen.task_related_memory(v_task)
    || bullpen.task_related_provenance(v_task) || bullpen.task_collisions(v_task);
  if bullpen.text_array(p -> 'include') @> array['brief'] then
    v_out := v_out || jsonb_build_object('brief', public.project_brief(jsonb_build_object('project', v_task.project_id)));
  end if;
  return v_out;
end
$$;
alter function public.task_get(jsonb) owner to bullpen_writer;

-- ready = todo, less the todo work that waits on an unfinished dependency, plus in-progress work
-- whose lease lapsed (or never had one) and waits on nothing. Dependencies and lapsed leases are
-- few, so both corrections read their own indexes; the counts by status come from
-- tasks_project_status_idx alone. Testing each candidate with task_waiting() cost one function call
-- per task of the project.
create or replace function bullpen.project_task_counts(p_project_id uuid) returns jsonb
language plpgsql stable
as $$
declare
  v_tenant uuid := bullpen.tenant_id();
  v_by jsonb;
  v_total bigint;
  v_todo bigint;
  v_ready bigint;
begin
  select coalesce(jsonb_object_agg(s.status, s.n), '{}'), coalesce(sum(s.n), 0)::bigint,
         coalesce(sum(s.n) filter (where s.status = 'todo'), 0)::bigint
    into v_by, v_total, v_todo
    from (select t.status, count(*) as n from public.tasks t
           where t.tenant_id = v_tenant and t.project_id = p_project_id group by t.status) s;
  v_ready := v_todo
    - (select count(distinct d.task_id) from public.task_dependencies d
         join public.tasks t on t.tenant_id = d.tenant_id and t.id = d.task_id
         join public.tasks dt on dt.tenant_id = d.tenant_id and dt.id = d.depends_on_task_id
        where d.tenant_id = v_tenant and t.project_id = p_project_id and t.status = 'todo' and dt.status not in ('done', 'skipped'))
    -- todo work under a start:false lock (a live lease) waiting on nothing is not ready either
    - (select count(*) from public.tasks t
        where t.tenant_id = v_tenant and t.project_id = p_project_id and t.status = 'todo' and t.lease_expires_at > now()
          and not exists (select 1 from public.task_dependencies d
                            join public.tasks dt on dt.tenant_id = d.tenant_id and dt.id = d.depends_on_task_id
                           where d.tenant_id = t.tenant_id and d.task_id = t.id and dt.status not in ('done', 'skipped')))
    -- lapsed leases first, then their project (offset 0): the project's live claims are many
    + (select count(*) from (
           (select t.* from public.tasks t
             where t.tenant_id = v_tenant and t.status = 'in_progress' and t.lease_expires_at <= now() offset 0)
           union all
           (select t.* from public.tasks t
             where t.tenant_id = v_tenant and t.status = 'in_progress' and t.lease_expires_at is null offset 0)) t
        where t.project_id = p_project_id
          and not exists (select 1 from public.task_dependencies d
                            join public.tasks dt on dt.tenant_id = d.tenant_id and dt.id = d.depends_on_task_id
                           where d.tenant_id = t.tenant_id and d.task_id = t.id and dt.status not in ('done', 'skipped')));
  return jsonb_build_object('by_status', v_by, 'total', v_total, 'ready', v_ready);
end
$$;

create or replace function public.project_query(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_limit int := greatest(1, least(coalesce((p ->> 'limit')::int, 50), 200));
  v_after text := bullpen.cursor_arg(p);
  v_full boolean := coalesce(p ->> 'detail', 'summary') = 'full';
  v_rows jsonb;
  v_last text;
  v_more boolean;
  v_statuses text[] := case jsonb_typeof(p -> 'status') when 'array' then bullpen.text_array(p -> 'status')
                                                        when 'string' then array[p ->> 'status'] end;
begin
  perform bullpen.require_actor();
  with page as (
    select pr, lower(pr.key) as sort_key
      from public.projects pr
     where pr.tenant_id = (select bullpen.tenant_id())
       -- by uuid or key, like every other project_id; a list filters, so a project that is not
       -- in this workspace gives an empty page rather than NOT_FOUND
       and (p ->> 'project_id' is null
            or (case when p ->> 'project_id' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                     then pr.id = (p ->> 'project_id')::uuid
                     else lower(pr.key) = lower(p ->> 'project_id') end))
       and (v_statuses is null or pr.status = any (v_statuses))
       and (p ->> 'owner_actor_id' is null or pr.owner_actor_id = bullpen.uuid_arg(p, 'owner_actor_id'))
       and (p ->> 'repository_id' is null
            or pr.id = any (bullpen.projects_in_repositories(array[bullpen.uuid_arg(p, 'repository_id')])))
       and (p ->> 'q' is null or pr.title ilike '%' || bullpen.like_escape(p ->> 'q') || '%' or pr.key ilike bullpen.like_escape(p ->> 'q') || '%'
            or coalesce(pr.summary, '') ilike '%' || bullpen.like_escape(p ->> 'q') || '%')
       and (v_after is null or lower(pr.key) > v_after)
     order by sort_key
     limit v_limit + 1
  ), numbered as (
    select page.*, row_number() over (order by sort_key) as rn from page
  )
  select coalesce(jsonb_agg(bullpen.project_json(pr) || case when v_full
            then jsonb_build_object('tasks', bullpen.project_task_counts((pr).id)) else '{}'::jsonb end
           order by sort_key) filter (where rn <= v_limit), '[]'::jsonb),
         max(sort_key) filter (where rn = v_limit),
         count(*) > v_limit
    into v_rows, v_last, v_more
    from numbered;
  return jsonb_build_object('projects', v_rows,
    'next_cursor', case when v_more then encode(convert_to(v_last, 'utf8'), 'base64') end);
end
$$;
alter function public.project_query(jsonb) owner to bullpen_writer;

-- Generic plans: the page sizes (max_tasks, max_activity) are parameters, and with them unknown the
-- planner priced a generic plan above a custom one and so planned the whole brief on every call.
-- Every ordered read here has an index in its order (tasks_project_open_idx, activity_project_idx),
-- so the generic plan does not depend on the page size.
create or replace function public.project_brief(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
set plan_cache_mode = force_generic_plan
as $$
declare
  v_project public.projects;
begin
  perform bullpen.require_actor();
  v_project := bullpen.resolve_project(p ->> 'project', 'project');
  return jsonb_build_object(
    'project', bullpen.project_json(v_project) || jsonb_build_object(
      'owner', (select display_name from public.actors where tenant_id = v_project.tenant_id and id = v_project.owner_actor_id),
      'parent', (select jsonb_build_object('id', pp.id, 'key', pp.key, 'title', pp.title) from public.projects pp
                  where pp.tenant_id = v_project.tenant_id and pp.id = v_project.parent_project_id)),
    'tasks', bullpen.project_task_counts(v_project.id),
    'top_open_tasks', (select coalesce(jsonb_agg(x.j order by x.priority, x.seq), '[]') from (
        select bullpen.task_row_json(o.t, v_project.key, ob.n) as j, (o.t).priority, (o.t).seq
          from (select t from public.tasks t
                 where t.tenant_id = v_project.tenant_id and t.project_id = v_project.id
                   and t.status not in ('done', 'cancelled', 'failed', 'skipped')
                 order by t.priority, t.seq limit greatest(0, least(coalesce((p ->> 'max_tasks')::int, 10), 50))) o
          cross join lateral (
            select count(*)::int as n from public.task_dependencies d
              join public.tasks dt on dt.tenant_id = d.tenant_id and dt.id = d.depends_on_task_id
             where d.tenant_id = (o.t).tenant_id and d.task_id = (o.t).id and dt.status not in ('done', 'skipped')) ob) x),
    'recent_activity', (select coalesce(jsonb_agg(x.j order by x.id desc), '[]') from (
        select ac.id, jsonb_build_object('seq', ac.id, 'verb', ac.verb, 'summary', ac.summary, 'object_type', ac.object_type,
                 'object_id', ac.object_id, 'actor', a.display_name, 'at', ac.at) as j
          from public.activity ac left join public.actors a on a.tenant_id = ac.tenant_id and a.id = ac.actor_id
         where ac.tenant_id = v_project.tenant_id and ac.project_id = v_project.id
         order by ac.id desc limit greatest(0, least(coalesce((p ->> 'max_activity')::int, 15), 100))) x),
    'subprojects', (select coalesce(jsonb_agg(jsonb_build_object('id', c.id, 'key', c.key, 'title', c.title, 'status', c.status)
                      order by c.key), '[]') from public.projects c
                     where c.tenant_id = v_project.tenant_id and c.parent_project_id = v_project.id))
    || bullpen.brief_coordination(v_project, p) || bullpen.brief_memory(v_project, p) || bullpen.brief_provenance(v_project, p);
end
$$;
alter function public.project_brief(jsonb) owner to bullpen_writer;

/**
 * whoami's ready count, capped at 101: what claim-next would offer the caller. A function of its
 * own so it can keep one generic plan: written in whoami, the plan cache priced its generic plan
 * above the custom ones and planned it again on every call (0.64 ms of planning for 0.15 ms of
 * execution in the profile); its inputs are the same few parameters every call.
 */
create or replace function bullpen.whoami_ready_count(p_tenant uuid, p_me uuid, p_capabilities text[], p_stopped uuid[], p_paused uuid[])
returns int
language plpgsql stable
set plan_cache_mode = force_generic_plan
as $$
declare
  v_n int;
begin
  select count(*) into v_n from (
    select 1 from public.tasks t
     where t.tenant_id = p_tenant
       and (t.status = 'todo' or (t.status = 'in_progress' and (t.lease_expires_at is null or t.lease_expires_at <= now())))
       and (t.assignee_actor_id is null or t.assignee_actor_id = p_me or t.assignee_actor_id = t.lease_actor_id)
       -- what claim-next would offer this caller: a todo task locked by a start:false claim is held,
       -- a paused or archived project offers nothing, and a task needs the caller's capabilities
       and (t.status <> 'todo' or t.lease_expires_at is null or t.lease_expires_at <= now())
       and t.project_id <> all (p_stopped)
       and (t.workflow_instance_id is null or t.workflow_instance_id <> all (p_paused))
       and t.requires_capabilities <@ p_capabilities
       and not exists (select 1 from public.task_dependencies d
                         join public.tasks dt on dt.tenant_id = d.tenant_id and dt.id = d.depends_on_task_id
                        where d.tenant_id = t.tenant_id and d.task_id = t.id and dt.status not in ('done', 'skipped'))
     limit 101) capped;
  return v_n;
end
$$;

-- The default plan cache: statements keyed by tenant and actor settle on generic plans. The delta
-- (since last seen) is still planned per call, but as one small scan; force_generic_plan on the
-- whole function was measured and lost: the inbox's generic plan ran twice as long as it planned.
-- force_custom_plan here replanned every statement, nested helpers included, on every call.
create or replace function public.whoami(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_me uuid := bullpen.require_actor();
  -- read once: each v_tenant written in a statement parses the claims again, per row
  -- where it ends up in a filter
  v_tenant uuid := bullpen.tenant_id();
  v_actor public.actors;
  v_include text[] := coalesce(nullif(bullpen.text_array(p -> 'include'), '{}'),
                               array['tasks', 'inbox', 'delta', 'projects']);
  v_out jsonb;
  v_open jsonb := '[]';
  v_pool int;
  v_stopped uuid[] := bullpen.stopped_projects(v_tenant);
  v_paused uuid[] := bullpen.paused_instances(v_tenant);
  v_resume jsonb;
  v_delta jsonb;
  v_next jsonb;
  v_inbox jsonb;
  v_since timestamptz;
  v_recent_n int;
begin
  select * into v_actor from public.actors where tenant_id = v_tenant and id = v_me;
  -- where the delta starts: last seen, or where this run's series left off (provenance hook)
  v_since := bullpen.run_delta_since(v_actor.last_seen_at);
  -- counted up to a cap: "100+ ready" orients an agent as well as an exact figure, at a fixed cost
  v_pool := bullpen.whoami_ready_count(v_tenant, v_me, v_actor.capabilities, v_stopped, v_paused);
  select coalesce(jsonb_agg(x.j order by x.o, x.priority, x.seq), '[]') into v_open from (
    -- the page first, then its JSON (task_row_json inlines; the blocker count is a lateral join)
    select bullpen.task_row_json(o.t, pr.key, ob.n) as j, o.o, (o.t).priority, (o.t).seq
      from (select t, case t.status when 'in_progress' then 0 when 'in_review' then 1 else 2 end as o
              from public.tasks t
             where t.tenant_id = v_tenant and t.assignee_actor_id = v_me
               and t.status not in ('done', 'cancelled', 'failed', 'skipped')
             order by 2, t.priority, t.seq limit 25) o
      join public.projects pr on pr.tenant_id = (o.t).tenant_id and pr.id = (o.t).project_id
      cross join lateral (
        select count(*)::int as n from public.task_dependencies d
          join public.tasks dt on dt.tenant_id = d.tenant_id and dt.id = d.depends_on_task_id
         where d.tenant_id = (o.t).tenant_id and d.task_id = (o.t).id and dt.status not in ('done', 'skipped')) ob) x;
  select j into v_resume from jsonb_array_elements(v_open) j where j ->> 'status' = 'in_progress' limit 1;
  v_next := case
    when v_resume is not null then jsonb_build_object('tool', 'task_get', 'arguments', jsonb_build_object('task_id', v_resume ->> 'id'),
      'why', format('you are working on %s "%s"; re-read it and carry on (task_claim with its task_id extends the lease)',
                    v_resume ->> 'ref', v_resume ->> 'title'))
    when v_pool > 0 then jsonb_build_object('tool', 'task_claim', 'arguments', '{}'::jsonb,
      'why', format('%s ready task%s in the pool; claim the highest-priority one',
                    case when v_pool > 100 then '100+' else v_pool::text end, case when v_pool = 1 then '' else 's' end))
    when exists (select 1 from public.projects where tenant_id = v_tenant) then
      jsonb_build_object('tool', 'task_query', 'arguments', jsonb_build_object('state', 'blocked'),
        'why', 'nothing is ready; see what is blocked, or plan new work with task_create_many')
    else jsonb_build_object('tool', 'project_create', 'arguments', jsonb_build_object('title', 'My first project'),
        'why', 'the workspace is empty; create a project, then tasks')
  end;
  v_out := jsonb_build_object(
    'actor', bullpen.actor_json(v_actor),
    'tenant', (select jsonb_build_object('id', t.id, 'slug', t.slug, 'name', t.name) from public.tenants t where t.id = v_tenant),
    'run_id', bullpen.run_id(),
    'pool', jsonb_build_object('ready', least(v_pool, 100), 'more', v_pool > 100),
    'hints', jsonb_build_object('next', v_next));
  if 'tasks' = any (v_include) then
    v_out := v_out || jsonb_build_object('open_tasks', v_open);
  end if;
  if 'inbox' = any (v_include) then
    v_inbox := bullpen.whoami_inbox(v_me);
    v_out := v_out || (v_inbox - 'next');
    -- work waiting on me outranks the pool, but not a task I am in the middle of
    if v_resume is null and v_inbox -> 'next' is not null and jsonb_typeof(v_inbox -> 'next') = 'object' then
      v_out := jsonb_set(v_out, '{hints,next}', v_inbox -> 'next');
    end if;
  end if;
  if 'projects' = any (v_include) then
    v_out := v_out || jsonb_build_object('projects', (select coalesce(jsonb_agg(jsonb_build_object('id', pr.id, 'key', pr.key,
        'title', pr.title, 'status', pr.status) order by pr.key), '[]') from (
        select * from public.projects where tenant_id = v_tenant and status in ('planned', 'active')
         order by key limit 20) pr));
  end if;
  if 'delta' = any (v_include) then
    -- the newest 500 changes by others since last seen; older ones are summarised by count only.
    -- The common visit first: the 16 newest changes by others, whatever the bound, then the bound
    -- applied to them. Holding no bound, that statement's plan is the same for every call and the
    -- session keeps it; when fewer than 16 pass the bound, they are every change since it (read
    -- newest first, the first one at or before the bound ends the run).
    with w as materialized (
      select r.* from (
        select ac.id, ac.verb, ac.summary, ac.object_type, ac.object_id, ac.actor_id, ac.at, ac.tenant_id
          from public.activity ac
         where ac.tenant_id = v_tenant and ac.actor_id is distinct from v_me and ac.verb <> 'inbox.changed'
         order by ac.at desc, ac.id desc limit 16) r
       where r.at > coalesce(v_since, '-infinity'))
    select c.n, jsonb_build_object(
      'since', v_since,
      'first_visit', v_since is null,
      'count', c.n,
      'truncated', false,
      'by_verb', coalesce((select jsonb_object_agg(v.verb, v.n) from (select w.verb, count(*) n from w group by w.verb) v), '{}'),
      'recent', coalesce((select jsonb_agg(jsonb_build_object('seq', x.id, 'verb', x.verb, 'summary', x.summary,
          'object_type', x.object_type, 'object_id', x.object_id, 'actor', a.display_name, 'at', x.at) order by x.id desc)
          from (select * from w order by w.id desc limit 15) x
          left join public.actors a on a.tenant_id = x.tenant_id and a.id = x.actor_id), '[]'))
      into v_recent_n, v_delta
      from (select count(*)::int n from w) c;
    if v_recent_n >= 16 then
      -- More changes than that: read newest-first off activity_tenant_at_idx down to the bound or
      -- 500 rows. Its plan depends on the bound, so it is planned per call.
      with w as materialized (
        select ac.id, ac.verb, ac.summary, ac.object_type, ac.object_id, ac.actor_id, ac.at, ac.tenant_id
          from public.activity ac
         where ac.tenant_id = v_tenant and ac.at > coalesce(v_since, '-infinity')
           and ac.actor_id is distinct from v_me and ac.verb <> 'inbox.changed'
         order by ac.at desc, ac.id desc limit 500)
      select jsonb_build_object(
        'since', v_since,
        'first_visit', v_since is null,
        'count', c.n,
        'truncated', c.n >= 500,
        'by_verb', coalesce((select jsonb_object_agg(v.verb, v.n) from (select w.verb, count(*) n from w group by w.verb) v), '{}'),
        'recent', coalesce((select jsonb_agg(jsonb_build_object('seq', x.id, 'verb', x.verb, 'summary', x.summary,
            'object_type', x.object_type, 'object_id', x.object_id, 'actor', a.display_name, 'at', x.at) order by x.id desc)
            from (select * from w order by w.id desc limit 15) x
            left join public.actors a on a.tenant_id = x.tenant_id and a.id = x.actor_id), '[]'))
        into v_delta
        from (select count(*) n from w) c;
    end if;
    v_out := v_out || jsonb_build_object('delta', v_delta);
  end if;
  update public.actors set last_seen_at = now() where tenant_id = v_tenant and id = v_me;
  return v_out;
end
$$;
alter function public.whoami(jsonb) owner to bullpen_writer;


-- Room hooks: task_get, project_brief, whoami, task_claim and project_query call functions that
-- each room's definition file owns (bullpen.task_related_coordination and brief_coordination and
-- whoami_inbox in 0009, task_related_memory and brief_memory in 0010, task_related_provenance,
-- brief_provenance, projects_in_repositories and run_delta_since in 0011), so no room edits another's
-- function. The definition files are applied together, in one transaction, before any call runs.

-- Execute rights, one function at a time: the API roles call RPCs, never helpers.
revoke all on function bullpen.task_transitions(text) from public, anon, authenticated;
grant execute on function bullpen.task_transitions(text) to bullpen_writer, service_role;
revoke all on function bullpen.task_done_gate(public.tasks) from public, anon, authenticated;
grant execute on function bullpen.task_done_gate(public.tasks) to bullpen_writer, service_role;
revoke all on function bullpen.tasks_guard() from public, anon, authenticated;
grant execute on function bullpen.tasks_guard() to bullpen_writer, service_role;
revoke all on function bullpen.resolve_task(text, text) from public, anon, authenticated;
grant execute on function bullpen.resolve_task(text, text) to bullpen_writer, service_role;
revoke all on function bullpen.normalize_criteria(jsonb) from public, anon, authenticated;
grant execute on function bullpen.normalize_criteria(jsonb) to bullpen_writer, service_role;
revoke all on function bullpen.criteria_met(jsonb) from public, anon, authenticated;
grant execute on function bullpen.criteria_met(jsonb) to bullpen_writer, service_role;
revoke all on function bullpen.claim_lapsed(uuid, uuid, jsonb, uuid, uuid[]) from public, anon, authenticated;
grant execute on function bullpen.claim_lapsed(uuid, uuid, jsonb, uuid, uuid[]) to bullpen_writer, service_role;
revoke all on function bullpen.claim_todo(uuid, uuid, jsonb, uuid, uuid[], public.tasks) from public, anon, authenticated;
grant execute on function bullpen.claim_todo(uuid, uuid, jsonb, uuid, uuid[], public.tasks) to bullpen_writer, service_role;
revoke all on function bullpen.task_waiting(uuid, uuid) from public, anon, authenticated;
grant execute on function bullpen.task_waiting(uuid, uuid) to bullpen_writer, service_role;
revoke all on function bullpen.task_open_blockers(uuid) from public, anon, authenticated;
grant execute on function bullpen.task_open_blockers(uuid) to bullpen_writer, service_role;
revoke all on function bullpen.task_row_json(public.tasks, text, integer) from public, anon, authenticated;
grant execute on function bullpen.task_row_json(public.tasks, text, integer) to bullpen_writer, service_role;
revoke all on function bullpen.task_json(public.tasks) from public, anon, authenticated;
grant execute on function bullpen.task_json(public.tasks) to bullpen_writer, service_role;
revoke all on function bullpen.project_context(uuid) from public, anon, authenticated;
grant execute on function bullpen.project_context(uuid) to bullpen_writer, service_role;
revoke all on function bullpen.insert_task(public.projects, jsonb, uuid[], text) from public, anon, authenticated;
grant execute on function bullpen.insert_task(public.projects, jsonb, uuid[], text) to bullpen_writer, service_role;
revoke all on function public.task_create(jsonb) from public, anon;
grant execute on function public.task_create(jsonb) to authenticated, service_role;
revoke all on function public.task_create_many(jsonb) from public, anon;
grant execute on function public.task_create_many(jsonb) to authenticated, service_role;
revoke all on function public.task_update(jsonb) from public, anon;
grant execute on function public.task_update(jsonb) to authenticated, service_role;
revoke all on function public.task_assign(jsonb) from public, anon;
grant execute on function public.task_assign(jsonb) to authenticated, service_role;
revoke all on function public.task_claim(jsonb) from public, anon;
grant execute on function public.task_claim(jsonb) to authenticated, service_role;
revoke all on function public.task_release(jsonb) from public, anon;
grant execute on function public.task_release(jsonb) to authenticated, service_role;
revoke all on function public.task_link(jsonb) from public, anon;
grant execute on function public.task_link(jsonb) to authenticated, service_role;
revoke all on function public.task_query(jsonb) from public, anon;
grant execute on function public.task_query(jsonb) to authenticated, service_role;
revoke all on function public.task_get(jsonb) from public, anon;
grant execute on function public.task_get(jsonb) to authenticated, service_role;
revoke all on function bullpen.project_task_counts(uuid) from public, anon, authenticated;
grant execute on function bullpen.project_task_counts(uuid) to bullpen_writer, service_role;
revoke all on function public.project_query(jsonb) from public, anon;
grant execute on function public.project_query(jsonb) to authenticated, service_role;
revoke all on function public.project_brief(jsonb) from public, anon;
grant execute on function public.project_brief(jsonb) to authenticated, service_role;
revoke all on function public.whoami(jsonb) from public, anon;
grant execute on function public.whoami(jsonb) to authenticated, service_role;

revoke all on function bullpen.lease_guard(public.tasks, text, text, boolean) from public, anon, authenticated;
grant execute on function bullpen.lease_guard(public.tasks, text, text, boolean) to bullpen_writer, service_role;
revoke all on function bullpen.criteria_edit(jsonb, jsonb) from public, anon, authenticated;
grant execute on function bullpen.criteria_edit(jsonb, jsonb) to bullpen_writer, service_role;
revoke all on function bullpen.criteria_lost(jsonb, jsonb) from public, anon, authenticated;
grant execute on function bullpen.criteria_lost(jsonb, jsonb) to bullpen_writer, service_role;
revoke all on function bullpen.done_gate_criteria(public.tasks) from public, anon, authenticated;
grant execute on function bullpen.done_gate_criteria(public.tasks) to bullpen_writer, service_role;
revoke all on function bullpen.priority_arg(jsonb, text, text) from public, anon, authenticated;
grant execute on function bullpen.priority_arg(jsonb, text, text) to bullpen_writer, service_role;
revoke all on function bullpen.meta_arg(jsonb, text) from public, anon, authenticated;
grant execute on function bullpen.meta_arg(jsonb, text) to bullpen_writer, service_role;
revoke all on function bullpen.meta_merge(jsonb, jsonb) from public, anon, authenticated;
grant execute on function bullpen.meta_merge(jsonb, jsonb) to bullpen_writer, service_role;
revoke all on function bullpen.whoami_ready_count(uuid, uuid, text[], uuid[], uuid[]) from public, anon, authenticated;
grant execute on function bullpen.whoami_ready_count(uuid, uuid, text[], uuid[], uuid[]) to bullpen_writer, service_role;
revoke all on function bullpen.stopped_projects(uuid) from public, anon, authenticated;
grant execute on function bullpen.stopped_projects(uuid) to bullpen_writer, service_role;
revoke all on function bullpen.move_note(public.tasks, text) from public, anon, authenticated;
grant execute on function bullpen.move_note(public.tasks, text) to bullpen_writer, service_role;
revoke all on function bullpen.task_create_diff(public.tasks, public.projects, jsonb) from public, anon, authenticated;
grant execute on function bullpen.task_create_diff(public.tasks, public.projects, jsonb) to bullpen_writer, service_role;
