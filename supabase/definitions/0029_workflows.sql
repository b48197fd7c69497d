-- Workflows: definitions validated here (the law; zod checks the shape first), instances whose
-- steps are tasks joined by task_dependencies, pause/resume/cancel, a status derived from the
-- tasks, and the two triggers: an activity verb (the row trigger below) and a cron slot (started
-- by the job runner through bullpen.workflow_start_scheduled, once per workflow and slot).
-- Re-applied on every upgrade that changes a definition file: every statement is create or replace.

-- ---------------------------------------------------------------------------------------------
-- The definition
-- ---------------------------------------------------------------------------------------------

/** The {{placeholders}} a text names, without braces, in order of first appearance. */
create or replace function bullpen.workflow_placeholders(p_text text) returns text[]
language sql immutable
as $$
  select coalesce(array_agg(n order by first), '{}') from (
    select m[1] as n, min(o) as first
      from regexp_matches(coalesce(p_text, ''), '\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}', 'g') with ordinality r(m, o)
     group by m[1]) x
$$;

/** A text with each {{name}} replaced by its input (inputs are strings, numbers or booleans). */
create or replace function bullpen.workflow_fill(p_text text, p_inputs jsonb) returns text
language plpgsql immutable
as $$
declare
  v text := coalesce(p_text, '');
  k text;
begin
  foreach k in array bullpen.workflow_placeholders(v) loop
    v := regexp_replace(v, '\{\{\s*' || k || '\s*\}\}', replace(coalesce(p_inputs ->> k, ''), '\', '\\'), 'g');
  end loop;
  return v;
end
$$;

/**
 * Validates a definition and returns its step keys in dependency order (a step after everything
 * it depends on). Refusals name the step: a duplicate key, a dependency on an unknown step, a
 * cycle, a {{placeholder}} that is not a declared input, a trigger that leaves a required input
 * (one without a default) empty. VALIDATION_ERROR, or CYCLE_DETECTED for a cycle.
 */
create or replace function bullpen.workflow_validate(d jsonb) returns text[]
language plpgsql immutable
as $$
declare
  v_steps jsonb := d -> 'steps';
  v_inputs text[] := '{}';
  v_required text[] := '{}';
  s jsonb;
  i int := 0;
  v_key text;
  v_keys text[] := '{}';
  v_dep text;
  v_ph text;
  v_order text[] := '{}';
  v_left text[];
  v_progress boolean;
  v_trigger jsonb := d -> 'trigger';
  v_cycle text;
begin
  if jsonb_typeof(v_steps) is distinct from 'array' or jsonb_array_length(v_steps) = 0 then
    perform bullpen.fail('VALIDATION_ERROR', 'definition.steps: a workflow needs at least one step', 'give steps: [{key, title}]');
  end if;
  if jsonb_array_length(v_steps) > 100 then
    perform bullpen.fail('VALIDATION_ERROR', 'definition.steps: at most 100 steps', 'split the workflow');
  end if;
  for s in select value from jsonb_array_elements(coalesce(d -> 'inputs', '[]')) loop
    v_key := s ->> 'name';
    if v_key is null or v_key !~ '^[A-Za-z_][A-Za-z0-9_]{0,63}$' then
      perform bullpen.fail('VALIDATION_ERROR', format('definition.inputs[%s].name: a name of letters, digits and _', i));
    end if;
    if v_key = any (v_inputs) then
      perform bullpen.fail('VALIDATION_ERROR', format('definition.inputs: input %s is declared twice', v_key));
    end if;
    v_inputs := v_inputs || v_key;
    if not s ? 'default' then
      v_required := v_required || v_key;
    end if;
    i := i + 1;
  end loop;
  i := 0;
  for s in select value from jsonb_array_elements(v_steps) loop
    v_key := s ->> 'key';
    if v_key is null or v_key !~ '^[A-Za-z0-9_-]{1,64}$' then
      perform bullpen.fail('VALIDATION_ERROR', format('definition.steps[%s].key: a key of letters, digits, _ and -', i));
    end if;
    if v_key = any (v_keys) then
      perform bullpen.fail('VALIDATION_ERROR', format('step %s: the key is used by two steps', v_key), 'give every step its own key');
    end if;
    if nullif(btrim(coalesce(s ->> 'title', '')), '') is null then
      perform bullpen.fail('VALIDATION_ERROR', format('step %s: a step needs a title', v_key));
    end if;
    foreach v_ph in array bullpen.workflow_placeholders(concat(s ->> 'title', ' ', s ->> 'body')) loop
      if not v_ph = any (v_inputs) then
        perform bullpen.fail('VALIDATION_ERROR', format('step %s: {{%s}} is not a declared input', v_key, v_ph),
          'declare it in definition.inputs, or drop the placeholder', jsonb_build_object('step', v_key, 'input', v_ph));
      end if;
    end loop;
    v_keys := v_keys || v_key;
    i := i + 1;
  end loop;
  for s in select value from jsonb_array_elements(v_steps) loop
    for v_dep in select jsonb_array_elements_text(coalesce(s -> 'depends_on', '[]')) loop
      if not v_dep = any (v_keys) then
        perform bullpen.fail('VALIDATION_ERROR', format('step %s: depends_on names unknown step %s', s ->> 'key', v_dep),
          'depend on keys of this definition''s steps', jsonb_build_object('step', s ->> 'key', 'unknown', v_dep));
      end if;
      if v_dep = s ->> 'key' then
        perform bullpen.fail('CYCLE_DETECTED', format('step %s: a step cannot depend on itself', v_dep),
          'drop the step from its own depends_on', jsonb_build_object('step', v_dep));
      end if;
    end loop;
  end loop;
  -- Kahn's order: take every step whose dependencies are all taken, until none is left or none moves
  v_left := v_keys;
  loop
    v_progress := false;
    for s in select value from jsonb_array_elements(v_steps) loop
      if (s ->> 'key') = any (v_left)
         and not exists (select 1 from jsonb_array_elements_text(coalesce(s -> 'depends_on', '[]')) x(k) where x.k = any (v_left)) then
        v_order := v_order || (s ->> 'key');
        v_left := array_remove(v_left, s ->> 'key');
        v_progress := true;
      end if;
    end loop;
    exit when cardinality(v_left) = 0 or not v_progress;
  end loop;
  if cardinality(v_left) > 0 then
    v_cycle := v_left[1];
    perform bullpen.fail('CYCLE_DETECTED', format('step %s: its dependencies form a cycle (through %s)', v_cycle, array_to_string(v_left, ', ')),
      'remove one depends_on of the steps named', jsonb_build_object('step', v_cycle, 'steps', to_jsonb(v_left)));
  end if;
  if v_trigger is not null and jsonb_typeof(v_trigger) <> 'null' then
    if v_trigger ->> 'on' = 'event' then
      if nullif(v_trigger ->> 'event_type', '') is null then
        perform bullpen.fail('VALIDATION_ERROR', 'definition.trigger.event_type: an event trigger names the verb it starts on');
      end if;
      if lower(split_part(v_trigger ->> 'event_type', '.', 1)) = 'workflow' then
        perform bullpen.fail('VALIDATION_ERROR', 'definition.trigger.event_type: workflow.* events start no workflow',
          'a workflow started by its own events would start forever; trigger on another verb');
      end if;
      if v_trigger -> 'filter' is not null and jsonb_typeof(v_trigger -> 'filter') <> 'object' then
        perform bullpen.fail('VALIDATION_ERROR', 'definition.trigger.filter: an object matched against the event''s payload');
      end if;
    elsif v_trigger ->> 'on' = 'schedule' then
      if coalesce(v_trigger ->> 'cron', '') !~ '^\s*\S+\s+\S+\s+\S+\s+\S+\s+\S+\s*$' then
        perform bullpen.fail('VALIDATION_ERROR', 'definition.trigger.cron: five fields, minute hour day-of-month month day-of-week');
      end if;
      if v_trigger ->> 'project_id' is null then
        perform bullpen.fail('VALIDATION_ERROR', 'definition.trigger.project_id: a scheduled workflow names the project it starts in');
      end if;
    else
      perform bullpen.fail('VALIDATION_ERROR', 'definition.trigger.on: event or schedule');
    end if;
    foreach v_ph in array v_required loop
      if coalesce(v_trigger -> 'inputs' ->> v_ph, '') = '' then
        perform bullpen.fail('VALIDATION_ERROR',
          format('step %s: input %s is required and the trigger gives it no value',
            (select st ->> 'key' from jsonb_array_elements(v_steps) st
              where v_ph = any (bullpen.workflow_placeholders(concat(st ->> 'title', ' ', st ->> 'body'))) limit 1), v_ph),
          'give definition.trigger.inputs a value for it, or give the input a default',
          jsonb_build_object('input', v_ph));
      end if;
    end loop;
  end if;
  return v_order;
end
$$;

/** Inputs for an instance: the given ones over the defaults; a required input left empty is refused, naming its step. */
create or replace function bullpen.workflow_inputs(d jsonb, p_given jsonb) returns jsonb
language plpgsql immutable
as $$
declare
  v jsonb := '{}';
  s jsonb;
  k text;
  v_step text;
begin
  if p_given is not null and jsonb_typeof(p_given) <> 'object' then
    perform bullpen.fail('VALIDATION_ERROR', 'inputs: an object of name → value');
  end if;
  for k in select jsonb_object_keys(coalesce(p_given, '{}')) loop
    if not exists (select 1 from jsonb_array_elements(coalesce(d -> 'inputs', '[]')) i where i ->> 'name' = k) then
      perform bullpen.fail('VALIDATION_ERROR', format('inputs.%s: the workflow declares no such input', k),
        'workflow_get lists its inputs');
    end if;
  end loop;
  for s in select value from jsonb_array_elements(coalesce(d -> 'inputs', '[]')) loop
    k := s ->> 'name';
    if coalesce(p_given ->> k, '') <> '' then
      v := v || jsonb_build_object(k, p_given -> k);
    elsif s ? 'default' then
      v := v || jsonb_build_object(k, s -> 'default');
    else
      select st ->> 'key' into v_step from jsonb_array_elements(d -> 'steps') st
       where k = any (bullpen.workflow_placeholders(concat(st ->> 'title', ' ', st ->> 'body'))) limit 1;
      perform bullpen.fail('VALIDATION_ERROR', format('step %s: input %s is required', coalesce(v_step, '(none)'), k),
        format('pass inputs: {"%s": …}', k), jsonb_build_object('input', k, 'step', v_step));
    end if;
  end loop;
  return v;
end
$$;

-- ---------------------------------------------------------------------------------------------
-- Instances: status, progress, cost
-- ---------------------------------------------------------------------------------------------

/**
 * What an instance has spent so far: the cost of the runs that worked on its tasks (a run that
 * claimed, updated or commented on one of them), each run counted once. The usage ledger records
 * cost per run; a run that also worked elsewhere is counted whole.
 */
/** The workflow a task is a step of (through its instance), or null. */
create or replace function bullpen.task_workflow(t public.tasks) returns uuid
language sql stable
as $$
  select i.workflow_id from public.workflow_instances i
   where t.workflow_instance_id is not null and i.tenant_id = t.tenant_id and i.id = t.workflow_instance_id
$$;

/** What an instance has cost so far: the usage ledger's rows on its tasks. */
create or replace function bullpen.workflow_instance_cost(p_tenant uuid, p_instance uuid) returns numeric
language sql stable
as $$
  select coalesce(sum(e.cost_usd), 0)::numeric
    from public.usage_events e
   where e.tenant_id = p_tenant
     and e.task_id in (select t.id from public.tasks t where t.tenant_id = p_tenant and t.workflow_instance_id = p_instance)
$$;

/** An instance as the tools show it: status derived from its tasks, progress, cost; with steps when full. */
create or replace function bullpen.workflow_instance_json(i public.workflow_instances, p_full boolean default false) returns jsonb
language plpgsql stable
as $$
declare
  v_total int;
  v_done int;
  v_active int;
  v_failed int;
  v_cancelled int;
  v_status text;
begin
  select count(*), count(*) filter (where t.status in ('done', 'skipped')),
         count(*) filter (where t.status in ('in_progress', 'in_review')),
         count(*) filter (where t.status = 'failed'), count(*) filter (where t.status = 'cancelled')
    into v_total, v_done, v_active, v_failed, v_cancelled
    from public.tasks t where t.tenant_id = i.tenant_id and t.workflow_instance_id = i.id;
  v_status := case
    when i.control = 'cancelled' then 'cancelled'
    when v_total > 0 and v_done = v_total then 'done'
    when v_failed + v_cancelled > 0 then 'failed'
    when i.control = 'paused' then 'paused'
    else 'running' end;
  return jsonb_build_object(
    'id', i.id, 'workflow_id', i.workflow_id,
    'workflow_name', (select w.name from public.workflows w where w.tenant_id = i.tenant_id and w.id = i.workflow_id),
    'project_id', i.project_id,
    'project_key', (select pr.key from public.projects pr where pr.tenant_id = i.tenant_id and pr.id = i.project_id),
    'status', v_status, 'control', i.control, 'inputs', i.inputs, 'started_by', i.started_by,
    'started_by_actor_id', i.started_by_actor_id, 'trigger_activity_id', i.trigger_activity_id, 'scheduled_for', i.scheduled_for,
    'progress', jsonb_build_object('total', v_total, 'done', v_done, 'active', v_active, 'failed', v_failed,
      'cancelled', v_cancelled, 'open', v_total - v_done - v_active - v_failed - v_cancelled,
      'percent', case when v_total = 0 then 0 else round(100.0 * v_done / v_total)::int end),
    'cost_usd', bullpen.workflow_instance_cost(i.tenant_id, i.id), 'estimated_cost_usd', i.estimated_cost_usd,
    'created_at', i.created_at, 'control_changed_at', i.control_changed_at)
  || case when p_full then jsonb_build_object('steps', (
       select coalesce(jsonb_agg(jsonb_build_object('step', t.workflow_step, 'task_id', t.id,
                'ref', (select pr.key from public.projects pr where pr.tenant_id = t.tenant_id and pr.id = t.project_id) || '-' || t.seq,
                'title', t.title, 'status', t.status, 'lease_actor_id', t.lease_actor_id) order by t.seq), '[]'::jsonb)
         from public.tasks t where t.tenant_id = i.tenant_id and t.workflow_instance_id = i.id))
     else '{}'::jsonb end;
end
$$;

create or replace function bullpen.workflow_json(w public.workflows) returns jsonb
language sql stable
as $$
  select jsonb_build_object('id', w.id, 'name', w.name, 'description', w.description, 'tags', to_jsonb(w.tags),
    'definition', w.definition, 'trigger_on', w.trigger_on, 'created_by_actor_id', w.created_by_actor_id,
    'created_at', w.created_at,
    'instance_count', (select count(*) from public.workflow_instances i where i.tenant_id = w.tenant_id and i.workflow_id = w.id))
$$;

/**
 * Creates one instance of a workflow in a project: each step becomes a task (title and body with
 * the inputs filled in, criteria, capabilities, priority), the step graph becomes
 * task_dependencies, and every task carries the instance (column) and {workflow_id,
 * workflow_instance_id, workflow_step} in its meta. Uses the caller's claims.
 */
create or replace function bullpen.workflow_instantiate(w public.workflows, p_project public.projects, p_inputs jsonb,
  p_started_by text, p_activity_id bigint, p_scheduled_for timestamptz) returns public.workflow_instances
language plpgsql
as $$
declare
  v_order text[] := bullpen.workflow_validate(w.definition);
  v_inputs jsonb := bullpen.workflow_inputs(w.definition, p_inputs);
  v_i public.workflow_instances;
  v_ids uuid[] := '{}';
  v_k text;
  s jsonb;
  v_task public.tasks;
  v_deps jsonb;
begin
  insert into public.workflow_instances (tenant_id, workflow_id, project_id, inputs, started_by, trigger_activity_id, scheduled_for,
                                         started_by_actor_id, estimated_cost_usd)
  values (w.tenant_id, w.id, p_project.id, v_inputs, p_started_by, p_activity_id, p_scheduled_for, bullpen.actor_id(),
          (select coalesce(sum((st ->> 'estimated_cost_usd')::numeric), 0) from jsonb_array_elements(w.definition -> 'steps') st))
  on conflict (tenant_id, workflow_id, scheduled_for) where scheduled_for is not null do nothing
  returning * into v_i;
  if v_i.id is null then
    return null; -- another server started this slot
  end if;
  foreach v_k in array v_order loop
    select st into s from jsonb_array_elements(w.definition -> 'steps') st where st ->> 'key' = v_k;
    -- dependencies by position in v_ids, which holds the tasks of the steps ordered before this one
    select coalesce(jsonb_agg(jsonb_build_object('batch_index', array_position(v_order, dk) - 1)), '[]') into v_deps
      from jsonb_array_elements_text(coalesce(s -> 'depends_on', '[]')) x(dk);
    v_task := bullpen.insert_task(p_project, jsonb_strip_nulls(jsonb_build_object(
        'title', left(bullpen.workflow_fill(s ->> 'title', v_inputs), 500),
        'body', bullpen.workflow_fill(s ->> 'body', v_inputs),
        'priority', s -> 'priority', 'labels', s -> 'labels',
        'acceptance_criteria', s -> 'acceptance_criteria',
        'requires_capabilities', s -> 'requires_capabilities',
        'depends_on', v_deps,
        'meta', jsonb_build_object('workflow_id', w.id, 'workflow_instance_id', v_i.id, 'workflow_step', v_k)
          || case when s ? 'estimated_cost_usd' then jsonb_build_object('estimated_cost_usd', s -> 'estimated_cost_usd') else '{}' end)),
      v_ids, format('step %s: ', v_k));
    update public.tasks set workflow_instance_id = v_i.id, workflow_step = v_k
     where tenant_id = v_task.tenant_id and id = v_task.id;
    v_ids := v_ids || v_task.id;
  end loop;
  perform bullpen.log('workflow.started', 'workflow_instance', v_i.id, v_i.project_id,
    left(format('started %s (%s steps)', w.name, cardinality(v_order)), 300),
    jsonb_build_object('workflow_id', w.id, 'started_by', p_started_by, 'trigger_activity_id', p_activity_id,
      'scheduled_for', p_scheduled_for, 'task_ids', to_jsonb(v_ids)));
  return v_i;
end
$$;

/** Instances of the workspace whose tasks are not claimable now (paused). Read once per claim. */
create or replace function bullpen.paused_instances(p_tenant uuid) returns uuid[]
language plpgsql stable
as $$
begin
  return array(select i.id from public.workflow_instances i where i.tenant_id = p_tenant and i.control = 'paused');
end
$$;

-- ---------------------------------------------------------------------------------------------
-- The tools
-- ---------------------------------------------------------------------------------------------

create or replace function bullpen.resolve_workflow(p_id text, p_field text default 'workflow_id') returns public.workflows
language plpgsql stable
as $$
declare
  v public.workflows;
begin
  if p_id is null then
    perform bullpen.fail('VALIDATION_ERROR', format('%s: required', p_field));
  end if;
  if p_id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    select * into v from public.workflows where tenant_id = (select bullpen.tenant_id()) and id = p_id::uuid;
  else
    select * into v from public.workflows where tenant_id = (select bullpen.tenant_id()) and name = p_id;
  end if;
  if v.id is null then
    perform bullpen.fail('NOT_FOUND', format('%s: no workflow %s in this workspace', p_field, p_id), 'list workflows with workflow_query');
  end if;
  return v;
end
$$;

create or replace function bullpen.resolve_workflow_instance(p_id text, p_lock boolean default false) returns public.workflow_instances
language plpgsql
as $$
declare
  v public.workflow_instances;
begin
  if p_id is null or p_id !~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    perform bullpen.fail('VALIDATION_ERROR', 'instance_id: an instance is named by its uuid');
  end if;
  if p_lock then
    select * into v from public.workflow_instances where tenant_id = (select bullpen.tenant_id()) and id = p_id::uuid for update;
  else
    select * into v from public.workflow_instances where tenant_id = (select bullpen.tenant_id()) and id = p_id::uuid;
  end if;
  if v.id is null then
    perform bullpen.fail('NOT_FOUND', format('instance_id: no workflow instance %s in this workspace', p_id),
      'list instances with workflow_query');
  end if;
  return v;
end
$$;

create or replace function public.workflow_create(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_me uuid := bullpen.require_actor();
  v_replay jsonb;
  v_def jsonb := p -> 'definition';
  v_order text[];
  v_w public.workflows;
begin
  v_replay := bullpen.idem_begin('workflow_create', p);
  if v_replay is not null then
    return v_replay;
  end if;
  if jsonb_typeof(v_def) is distinct from 'object' then
    perform bullpen.fail('VALIDATION_ERROR', 'definition: an object {inputs?, steps, trigger?}');
  end if;
  v_order := bullpen.workflow_validate(v_def);
  if v_def #>> '{trigger,project_id}' is not null then
    -- named by key or id when created; stored as the id, so a renamed key keeps the trigger working
    v_def := jsonb_set(v_def, '{trigger,project_id}', to_jsonb((bullpen.resolve_project(v_def #>> '{trigger,project_id}', 'definition.trigger.project_id')).id));
  end if;
  if exists (select 1 from public.workflows where tenant_id = (select bullpen.tenant_id()) and name = p ->> 'name') then
    perform bullpen.fail('ALREADY_EXISTS', format('name: a workflow named %s exists', p ->> 'name'), 'choose another name, or start the existing one');
  end if;
  insert into public.workflows (tenant_id, name, description, definition, tags, trigger_on, trigger_event, trigger_cron, created_by_actor_id)
  values (bullpen.tenant_id(), p ->> 'name', coalesce(p ->> 'description', ''), v_def, bullpen.text_array(p -> 'tags'),
          v_def #>> '{trigger,on}',
          case when v_def #>> '{trigger,on}' = 'event' then v_def #>> '{trigger,event_type}' end,
          case when v_def #>> '{trigger,on}' = 'schedule' then btrim(v_def #>> '{trigger,cron}') end, v_me)
  returning * into v_w;
  perform bullpen.log('workflow.created', 'workflow', v_w.id, null, left(format('workflow %s (%s steps)', v_w.name, cardinality(v_order)), 300),
    jsonb_build_object('trigger_on', v_w.trigger_on));
  return bullpen.idem_finish(p, jsonb_build_object('workflow_id', v_w.id, 'workflow', bullpen.workflow_json(v_w)));
end
$$;
alter function public.workflow_create(jsonb) owner to bullpen_writer;

create or replace function public.workflow_start(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_w public.workflows;
  v_i public.workflow_instances;
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('workflow_start', p);
  if v_replay is not null then
    return v_replay;
  end if;
  v_w := bullpen.resolve_workflow(p ->> 'workflow_id');
  v_i := bullpen.workflow_instantiate(v_w, bullpen.resolve_project(p ->> 'project_id'), p -> 'inputs', 'manual', null, null);
  return bullpen.idem_finish(p, jsonb_build_object('instance_id', v_i.id, 'instance', bullpen.workflow_instance_json(v_i, true)));
end
$$;
alter function public.workflow_start(jsonb) owner to bullpen_writer;

/** pause, resume or cancel one instance (p_action), with the refusals that name its state. */
create or replace function bullpen.workflow_control(p jsonb, p_action text) returns jsonb
language plpgsql
as $$
declare
  v_i public.workflow_instances;
  v_status text;
  v_t public.tasks;
  v_why text := coalesce(nullif(btrim(p ->> 'note'), ''), 'no reason given');
  v_cancelled uuid[] := '{}';
  v_released uuid[] := '{}';
  v_name text;
begin
  v_i := bullpen.resolve_workflow_instance(p ->> 'instance_id', true);
  v_status := bullpen.workflow_instance_json(v_i) ->> 'status';
  select w.name into v_name from public.workflows w where w.tenant_id = v_i.tenant_id and w.id = v_i.workflow_id;
  if v_status in ('done', 'cancelled') then
    perform bullpen.fail('INVALID_TRANSITION', format('instance_id: the instance is %s; a %s instance cannot be %s', v_status, v_status,
      case p_action when 'pause' then 'paused' when 'resume' then 'resumed' else 'cancelled' end),
      'start a new instance with workflow_start', jsonb_build_object('status', v_status));
  end if;
  if p_action = 'pause' and v_i.control = 'paused' or p_action = 'resume' and v_i.control = 'running' then
    perform bullpen.fail('INVALID_TRANSITION', format('instance_id: the instance is already %s', case v_i.control when 'paused' then 'paused' else 'running' end),
      case when p_action = 'pause' then 'resume it with workflow_resume' else 'pause it with workflow_pause' end, jsonb_build_object('control', v_i.control));
  end if;
  update public.workflow_instances
     set control = case p_action when 'pause' then 'paused' when 'resume' then 'running' else 'cancelled' end, control_changed_at = now()
   where tenant_id = v_i.tenant_id and id = v_i.id
  returning * into v_i;
  if p_action = 'cancel' then
    -- its open tasks are cancelled; a held lease goes with a note in the task's thread saying why
    for v_t in select * from public.tasks t
                where t.tenant_id = v_i.tenant_id and t.workflow_instance_id = v_i.id
                  and t.status not in ('done', 'skipped', 'failed', 'cancelled')
                order by t.seq for update loop
      if v_t.lease_actor_id is not null then
        v_released := v_released || v_t.id;
      end if;
      update public.tasks set status = 'cancelled', lease_actor_id = null, lease_expires_at = null, completed_at = now(), updated_at = now()
       where tenant_id = v_t.tenant_id and id = v_t.id
      returning * into v_t;
      perform bullpen.log_aside(v_t.tenant_id, 'task.status_changed', 'task', v_t.id, v_t.project_id,
        format('cancelled with workflow %s: %s', v_name, left(v_why, 200)),
        jsonb_build_object('to', 'cancelled', 'workflow_instance_id', v_i.id)
          || case when v_t.id = any (v_released) then bullpen.move_note(v_t, format('Lease released: workflow %s was cancelled (%s).', v_name, v_why))
                  else '{}'::jsonb end);
      v_cancelled := v_cancelled || v_t.id;
    end loop;
  end if;
  perform bullpen.log('workflow.' || case p_action when 'pause' then 'paused' when 'resume' then 'resumed' else 'cancelled' end,
    'workflow_instance', v_i.id, v_i.project_id, left(format('%s: %s', v_name, v_why), 300),
    jsonb_build_object('workflow_id', v_i.workflow_id, 'note', p ->> 'note', 'cancelled_task_ids', to_jsonb(v_cancelled),
      'released_task_ids', to_jsonb(v_released)));
  return jsonb_build_object('instance', bullpen.workflow_instance_json(v_i, true), 'cancelled_task_ids', to_jsonb(v_cancelled),
    'released_task_ids', to_jsonb(v_released));
end
$$;

create or replace function public.workflow_pause(p jsonb) returns jsonb
language plpgsql security definer set search_path = ''
as $$
declare
  v_replay jsonb;
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('workflow_pause', p);
  if v_replay is not null then
    return v_replay;
  end if;
  return bullpen.idem_finish(p, bullpen.workflow_control(p, 'pause'));
end
$$;
alter function public.workflow_pause(jsonb) owner to bullpen_writer;

create or replace function public.workflow_resume(p jsonb) returns jsonb
language plpgsql security definer set search_path = ''
as $$
declare
  v_replay jsonb;
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('workflow_resume', p);
  if v_replay is not null then
    return v_replay;
  end if;
  return bullpen.idem_finish(p, bullpen.workflow_control(p, 'resume'));
end
$$;
alter function public.workflow_resume(jsonb) owner to bullpen_writer;

create or replace function public.workflow_cancel(p jsonb) returns jsonb
language plpgsql security definer set search_path = ''
as $$
declare
  v_replay jsonb;
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('workflow_cancel', p);
  if v_replay is not null then
    return v_replay;
  end if;
  return bullpen.idem_finish(p, bullpen.workflow_control(p, 'cancel'));
end
$$;
alter function public.workflow_cancel(jsonb) owner to bullpen_writer;

create or replace function public.workflow_get(p jsonb) returns jsonb
language plpgsql stable security definer set search_path = ''
as $$
declare
  v_w public.workflows;
  v_i public.workflow_instances;
begin
  perform bullpen.require_actor();
  if (p ->> 'instance_id' is null) = (p ->> 'workflow_id' is null) then
    perform bullpen.fail('VALIDATION_ERROR', 'workflow_id, instance_id: name exactly one', 'an instance_id reads one instance; a workflow_id its definition');
  end if;
  if p ->> 'instance_id' is not null then
    v_i := bullpen.resolve_workflow_instance(p ->> 'instance_id');
    select * into v_w from public.workflows where tenant_id = v_i.tenant_id and id = v_i.workflow_id;
  else
    v_w := bullpen.resolve_workflow(p ->> 'workflow_id');
  end if;
  return jsonb_build_object('workflow', bullpen.workflow_json(v_w),
    'instance', case when v_i.id is not null then bullpen.workflow_instance_json(v_i, true) end,
    'instances', (select coalesce(jsonb_agg(bullpen.workflow_instance_json(i) order by i.created_at desc, i.id desc), '[]'::jsonb)
                    from (select * from public.workflow_instances i where i.tenant_id = v_w.tenant_id and i.workflow_id = v_w.id
                           order by i.created_at desc, i.id desc limit 20) i));
end
$$;
alter function public.workflow_get(jsonb) owner to bullpen_writer;

create or replace function public.workflow_query(p jsonb) returns jsonb
language plpgsql stable security definer set search_path = ''
as $$
declare
  v_tenant uuid := bullpen.tenant_id();
  v_project uuid;
  v_w uuid;
  v_limit int := greatest(1, least(coalesce((p ->> 'limit')::int, 50), 200));
  v_status text := p ->> 'status';
begin
  perform bullpen.require_actor();
  if p ->> 'project_id' is not null then
    v_project := (bullpen.resolve_project(p ->> 'project_id')).id;
  end if;
  if p ->> 'workflow_id' is not null then
    v_w := (bullpen.resolve_workflow(p ->> 'workflow_id')).id;
  end if;
  return jsonb_build_object(
    'workflows', (select coalesce(jsonb_agg(bullpen.workflow_json(w) order by w.created_at desc, w.id desc), '[]'::jsonb)
                    from (select * from public.workflows w where w.tenant_id = v_tenant and (v_w is null or w.id = v_w)
                           and (p ->> 'tag' is null or (p ->> 'tag') = any (w.tags))
                           order by w.created_at desc, w.id desc limit v_limit) w),
    'instances', (select coalesce(jsonb_agg(j order by c desc, id desc), '[]'::jsonb) from (
                    select bullpen.workflow_instance_json(i) as j, i.created_at as c, i.id
                      from public.workflow_instances i
                     where i.tenant_id = v_tenant and (v_w is null or i.workflow_id = v_w)
                       and (v_project is null or i.project_id = v_project)
                       -- done and failed are derived, so a status filter reads the instances' tasks
                       and (v_status is null or bullpen.workflow_instance_json(i) ->> 'status' = v_status)
                     order by i.created_at desc, i.id desc limit v_limit) x));
end
$$;
alter function public.workflow_query(jsonb) owner to bullpen_writer;

-- ---------------------------------------------------------------------------------------------
-- Triggers: events and schedules
-- ---------------------------------------------------------------------------------------------

/**
 * An activity row is an event (its verb the event_type): every workflow of the workspace whose
 * trigger names that verb, and whose filter the row's metadata contains, starts one instance in
 * the publishing transaction. The project is the trigger's, else the event's. A start that fails
 * (a required input, an archived project) never fails the publisher: it is logged as
 * workflow.trigger_failed instead. Rows written while a trigger starts an instance start nothing.
 */
create or replace function bullpen.workflow_on_event() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_w public.workflows;
  v_claims text := current_setting('request.jwt.claims', true);
  v_project public.projects;
  v_i public.workflow_instances;
  v_err text;
begin
  if coalesce(current_setting('bullpen.workflow_starting', true), '') = '1' then
    return null;
  end if;
  if bullpen.tenant_id() is distinct from new.tenant_id then
    perform set_config('request.jwt.claims', jsonb_build_object('tenant_id', new.tenant_id, 'actor_id', new.actor_id,
      'sub', new.actor_id, 'run_id', coalesce(new.run_id, ''), 'role', 'service_role')::text, true);
  end if;
  for v_w in select * from public.workflows w
              where w.tenant_id = new.tenant_id and w.trigger_on = 'event' and w.trigger_event = new.verb
                and (w.definition #> '{trigger,filter}' is null or new.metadata @> (w.definition #> '{trigger,filter}'))
              order by w.created_at, w.id loop
    perform set_config('bullpen.workflow_starting', '1', true);
    begin
      select * into v_project from public.projects pr
       where pr.tenant_id = new.tenant_id
         and pr.id = coalesce((v_w.definition #>> '{trigger,project_id}')::uuid, new.project_id);
      if v_project.id is null then
        perform bullpen.fail('VALIDATION_ERROR', 'the event names no project and the trigger gives none');
      end if;
      v_i := bullpen.workflow_instantiate(v_w, v_project, v_w.definition #> '{trigger,inputs}', 'event', new.id, null);
    exception when others then
      v_err := sqlerrm;
      perform bullpen.log_aside(new.tenant_id, 'workflow.trigger_failed', 'workflow', v_w.id, new.project_id,
        left(format('%s did not start on %s: %s', v_w.name, new.verb, v_err), 300),
        jsonb_build_object('event_id', new.id, 'event_type', new.verb, 'error', v_err));
    end;
    perform set_config('bullpen.workflow_starting', '', true);
  end loop;
  perform set_config('request.jwt.claims', coalesce(v_claims, ''), true);
  return null;
end
$$;
alter function bullpen.workflow_on_event() owner to bullpen_writer;

-- workflow.* rows never start a workflow (workflow_validate refuses such a trigger too)
create or replace trigger activity_start_workflows after insert on public.activity
  for each row when (new.verb not like 'workflow.%') execute function bullpen.workflow_on_event();

/** The scheduled workflows of every workspace, with the last slot each started (the scheduler's read). */
create or replace function bullpen.workflow_schedules() returns table (tenant_id uuid, workflow_id uuid, cron text, created_at timestamptz, last_slot timestamptz)
language sql stable
as $$
  select w.tenant_id, w.id, w.trigger_cron, w.created_at,
         (select max(i.scheduled_for) from public.workflow_instances i where i.tenant_id = w.tenant_id and i.workflow_id = w.id)
    from public.workflows w where w.trigger_on = 'schedule'
$$;

/**
 * Starts the instance of one cron slot, as the workflow's author. At most one instance per
 * workflow and slot exists however many servers call this at once (a unique index on the slot):
 * the loser gets null. A start that fails is logged as workflow.trigger_failed and returns null.
 */
create or replace function bullpen.workflow_start_scheduled(p_tenant uuid, p_workflow uuid, p_slot timestamptz) returns uuid
language plpgsql
set search_path = ''
as $$
declare
  v_w public.workflows;
  v_project public.projects;
  v_i public.workflow_instances;
  v_err text;
begin
  select * into v_w from public.workflows where tenant_id = p_tenant and id = p_workflow and trigger_on = 'schedule';
  if v_w.id is null then
    return null;
  end if;
  perform set_config('request.jwt.claims', jsonb_build_object('tenant_id', v_w.tenant_id, 'actor_id', v_w.created_by_actor_id,
    'sub', v_w.created_by_actor_id, 'run_id', '', 'role', 'service_role')::text, true);
  perform set_config('bullpen.workflow_starting', '1', true);
  begin
    select * into v_project from public.projects where tenant_id = p_tenant and id = (v_w.definition #>> '{trigger,project_id}')::uuid;
    if v_project.id is null then
      perform bullpen.fail('NOT_FOUND', 'the trigger''s project is gone');
    end if;
    v_i := bullpen.workflow_instantiate(v_w, v_project, v_w.definition #> '{trigger,inputs}', 'schedule', null, p_slot);
  exception when others then
    v_err := sqlerrm;
    perform bullpen.log_aside(p_tenant, 'workflow.trigger_failed', 'workflow', v_w.id, null,
      left(format('%s did not start for %s: %s', v_w.name, p_slot, v_err), 300),
      jsonb_build_object('scheduled_for', p_slot, 'error', v_err));
  end;
  perform set_config('bullpen.workflow_starting', '', true);
  return v_i.id;
end
$$;

-- ---------------------------------------------------------------------------------------------
-- Grants: the RPCs to the API roles; helpers only to the writer and the server.
-- ---------------------------------------------------------------------------------------------

revoke all on function bullpen.workflow_placeholders(text) from public, anon, authenticated;
grant execute on function bullpen.workflow_placeholders(text) to bullpen_writer, service_role;
revoke all on function bullpen.workflow_fill(text, jsonb) from public, anon, authenticated;
grant execute on function bullpen.workflow_fill(text, jsonb) to bullpen_writer, service_role;
revoke all on function bullpen.workflow_validate(jsonb) from public, anon, authenticated;
grant execute on function bullpen.workflow_validate(jsonb) to bullpen_writer, service_role;
revoke all on function bullpen.workflow_inputs(jsonb, jsonb) from public, anon, authenticated;
grant execute on function bullpen.workflow_inputs(jsonb, jsonb) to bullpen_writer, service_role;
revoke all on function bullpen.task_workflow(public.tasks) from public, anon, authenticated;
grant execute on function bullpen.task_workflow(public.tasks) to bullpen_writer, service_role;
revoke all on function bullpen.workflow_instance_cost(uuid, uuid) from public, anon, authenticated;
grant execute on function bullpen.workflow_instance_cost(uuid, uuid) to bullpen_writer, service_role;
revoke all on function bullpen.workflow_instance_json(public.workflow_instances, boolean) from public, anon, authenticated;
grant execute on function bullpen.workflow_instance_json(public.workflow_instances, boolean) to bullpen_writer, service_role;
revoke all on function bullpen.workflow_json(public.workflows) from public, anon, authenticated;
grant execute on function bullpen.workflow_json(public.workflows) to bullpen_writer, service_role;
revoke all on function bullpen.workflow_instantiate(public.workflows, public.projects, jsonb, text, bigint, timestamptz) from public, anon, authenticated;
grant execute on function bullpen.workflow_instantiate(public.workflows, public.projects, jsonb, text, bigint, timestamptz) to bullpen_writer, service_role;
revoke all on function bullpen.paused_instances(uuid) from public, anon, authenticated;
grant execute on function bullpen.paused_instances(uuid) to bullpen_writer, service_role;
revoke all on function bullpen.resolve_workflow(text, text) from public, anon, authenticated;
grant execute on function bullpen.resolve_workflow(text, text) to bullpen_writer, service_role;
revoke all on function bullpen.resolve_workflow_instance(text, boolean) from public, anon, authenticated;
grant execute on function bullpen.resolve_workflow_instance(text, boolean) to bullpen_writer, service_role;
revoke all on function bullpen.workflow_control(jsonb, text) from public, anon, authenticated;
grant execute on function bullpen.workflow_control(jsonb, text) to bullpen_writer, service_role;
revoke all on function public.workflow_create(jsonb) from public, anon;
grant execute on function public.workflow_create(jsonb) to authenticated, service_role;
revoke all on function public.workflow_start(jsonb) from public, anon;
grant execute on function public.workflow_start(jsonb) to authenticated, service_role;
revoke all on function public.workflow_pause(jsonb) from public, anon;
grant execute on function public.workflow_pause(jsonb) to authenticated, service_role;
revoke all on function public.workflow_resume(jsonb) from public, anon;
grant execute on function public.workflow_resume(jsonb) to authenticated, service_role;
revoke all on function public.workflow_cancel(jsonb) from public, anon;
grant execute on function public.workflow_cancel(jsonb) to authenticated, service_role;
revoke all on function public.workflow_get(jsonb) from public, anon;
grant execute on function public.workflow_get(jsonb) to authenticated, service_role;
revoke all on function public.workflow_query(jsonb) from public, anon;
grant execute on function public.workflow_query(jsonb) to authenticated, service_role;
revoke all on function bullpen.workflow_on_event() from public, anon, authenticated;
revoke all on function bullpen.workflow_schedules() from public, anon, authenticated, bullpen_writer;
grant execute on function bullpen.workflow_schedules() to service_role;
revoke all on function bullpen.workflow_start_scheduled(uuid, uuid, timestamptz) from public, anon, authenticated, bullpen_writer;
grant execute on function bullpen.workflow_start_scheduled(uuid, uuid, timestamptz) to service_role;
