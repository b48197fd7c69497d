-- Deliberation: debates (decision_log with participants, debate_reply, closing in
-- decision_set_status) and the council (council_ask, council_get, council_query, and the
-- council.run job's bullpen.council_finish). Tables in migrations/0024_deliberation.sql.
-- Re-applied on every upgrade that changes a definition file: create or replace only.

-- ---------------------------------------------------------------------------------------------
-- Debates
-- ---------------------------------------------------------------------------------------------

/**
 * Opens a debate on a just-logged decision: one participant row and one collab handoff per
 * participant, asking for its position with the decision's options as the answers.
 */
create or replace function bullpen.debate_open(d public.decisions, p_participants jsonb) returns void
language plpgsql
as $$
declare
  v_ref text;
  v_actor uuid;
  v_seen uuid[] := '{}';
  v_res jsonb;
  i int := 0;
  v_labels text[] := array(select o ->> 'label' from jsonb_array_elements(d.options) o);
  v_body text;
begin
  if p_participants is null or jsonb_array_length(p_participants) = 0 then
    return;
  end if;
  if (select count(distinct x) from unnest(v_labels) x) <> cardinality(v_labels) then
    perform bullpen.fail('VALIDATION_ERROR', 'options: each option of a debate needs its own label', 'rename the repeated label');
  end if;
  v_body := format(E'%s\n\nOptions: %s\n\nAnswer with debate_reply {decision_id: "%s", position, argument}.',
    d.choice, array_to_string(v_labels, ', '), d.id);
  for v_ref in select jsonb_array_elements_text(p_participants) loop
    v_actor := bullpen.require_actor_in_tenant(
      bullpen.uuid_arg(jsonb_build_object(format('participants[%s]', i), v_ref), format('participants[%s]', i)),
      format('participants[%s]', i));
    i := i + 1;
    if v_actor = any (v_seen) then
      continue;
    end if;
    v_seen := v_seen || v_actor;
    v_res := bullpen.handoff_open(d.tenant_id, bullpen.actor_id(), 'collab', left('Debate: ' || d.title, 500), v_body,
      v_labels, true, null, null, d.project_id, array[v_actor], 'debate:' || d.id || ':' || v_actor, true);
    insert into public.decision_participants (tenant_id, decision_id, actor_id, handoff_id)
    values (d.tenant_id, d.id, v_actor, (v_res ->> 'handoff_id')::uuid);
  end loop;
end
$$;

/**
 * The option a debate closes on. Accepting names one: the caller's winning_option, else the
 * option with the most supporters (a tie needs winning_option). A debate closes with a rationale
 * (note). A decision without participants takes winning_option only when it names an option.
 */
create or replace function bullpen.debate_winner(d public.decisions, p_status text, p_note text, p_winner text) returns text
language plpgsql stable
as $$
declare
  v_debate boolean := exists (select 1 from public.decision_participants x where x.tenant_id = d.tenant_id and x.decision_id = d.id);
  v_labels text[] := array(select o ->> 'label' from jsonb_array_elements(d.options) o);
  v_top text[];
begin
  if p_winner is not null and not (p_winner = any (v_labels)) then
    perform bullpen.fail('VALIDATION_ERROR',
      format('winning_option: "%s" is not one of %s', p_winner, coalesce(nullif(array_to_string(v_labels, ', '), ''), 'the decision''s options (it has none)')),
      'name one of the decision''s option labels', jsonb_build_object('options', to_jsonb(v_labels)));
  end if;
  if p_status <> 'accepted' then
    if p_winner is not null then
      perform bullpen.fail('VALIDATION_ERROR', format('winning_option: only an accepted decision has a winning option, not a %s one', p_status),
        'drop winning_option, or accept the decision');
    end if;
    if v_debate and p_status = 'rejected' and p_note is null then
      perform bullpen.fail('VALIDATION_ERROR', 'note: closing a debate needs a rationale', 'say in note why the debate ends this way');
    end if;
    return null;
  end if;
  if not v_debate then
    return p_winner;
  end if;
  if p_note is null then
    perform bullpen.fail('VALIDATION_ERROR', 'note: closing a debate needs a rationale', 'say in note why the winning option won');
  end if;
  if p_winner is not null then
    return p_winner;
  end if;
  select array_agg(position order by position) into v_top from (
    select x.position, count(*) as n, max(count(*)) over () as top
      from public.decision_participants x
     where x.tenant_id = d.tenant_id and x.decision_id = d.id and x.position is not null
     group by x.position) t
   where n = top;
  if coalesce(cardinality(v_top), 0) <> 1 then
    perform bullpen.fail('VALIDATION_ERROR',
      case when coalesce(cardinality(v_top), 0) = 0 then 'winning_option: nobody took a position, so name the winning option'
           else format('winning_option: the tally is tied between %s; name the winning option', array_to_string(v_top, ', ')) end,
      'pass winning_option, one of ' || array_to_string(v_labels, ', '), jsonb_build_object('tied', to_jsonb(v_top)));
  end if;
  return v_top[1];
end
$$;

/** Closes a settled debate's handoffs that are still open: answered ones processed, the rest cancelled. */
create or replace function bullpen.debate_close(d public.decisions, p_note text) returns int
language plpgsql
as $$
declare
  h public.handoffs;
  n int := 0;
begin
  if d.status not in ('accepted', 'rejected') then
    return 0;
  end if;
  for h in select hh.* from public.decision_participants x
             join public.handoffs hh on hh.tenant_id = x.tenant_id and hh.id = x.handoff_id
            where x.tenant_id = d.tenant_id and x.decision_id = d.id and hh.status <> 'resolved'
            order by hh.created_at, hh.id
            for update of hh loop
    perform bullpen.handoff_close_side(h, case when h.status = 'responded' then 'processed' else 'cancelled' end,
      left(format('debate closed: %s%s%s', d.status, coalesce(' on ' || d.winning_option, ''), coalesce(' — ' || p_note, '')), 20000));
    n := n + 1;
  end loop;
  return n;
end
$$;

create or replace function public.debate_reply(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_me uuid := bullpen.require_actor();
  v_replay jsonb;
  v_d public.decisions;
  v_part public.decision_participants;
  v_position text := nullif(btrim(p ->> 'position'), '');
  v_argument text := nullif(btrim(p ->> 'argument'), '');
  v_labels text[];
  v_comment public.comments;
  v_h public.handoffs;
  v_me_name text;
begin
  v_replay := bullpen.idem_begin('debate_reply', p);
  if v_replay is not null then
    return v_replay;
  end if;
  v_d := bullpen.resolve_decision(p ->> 'decision_id');
  select * into v_d from public.decisions where tenant_id = v_d.tenant_id and id = v_d.id for update;
  select * into v_part from public.decision_participants
   where tenant_id = v_d.tenant_id and decision_id = v_d.id and actor_id = v_me for update;
  if v_part.actor_id is null then
    perform bullpen.fail('FORBIDDEN',
      format('only a participant replies to a debate: decision %s %s', v_d.id,
        coalesce('has participants ' || (select string_agg(a.display_name, ', ' order by a.display_name)
                                          from public.decision_participants x join public.actors a on a.tenant_id = x.tenant_id and a.id = x.actor_id
                                         where x.tenant_id = v_d.tenant_id and x.decision_id = v_d.id), 'is not a debate')),
      'comment on the decision with comment_add, or ask its author to log a debate with you among the participants');
  end if;
  if v_d.status <> 'proposed' then
    perform bullpen.fail('INVALID_TRANSITION', format('the debate is closed: decision %s is %s%s', v_d.id, v_d.status,
      coalesce(' on ' || v_d.winning_option, '')),
      'comment on the decision with comment_add; to reopen it, decision_set_status proposed', jsonb_build_object('status', v_d.status));
  end if;
  if v_argument is null then
    perform bullpen.fail('VALIDATION_ERROR', 'argument: say why, in a sentence or more');
  end if;
  v_labels := array(select o ->> 'label' from jsonb_array_elements(v_d.options) o);
  if v_position is not null and not (v_position = any (v_labels)) then
    perform bullpen.fail('VALIDATION_ERROR', format('position: "%s" is not one of %s', v_position, array_to_string(v_labels, ', ')),
      'take one of the decision''s options as position', jsonb_build_object('options', to_jsonb(v_labels)));
  end if;
  v_me_name := bullpen.coord_actor_name(v_d.tenant_id, v_me);
  -- the call's own row first, so its idempotency record watches the decision
  perform bullpen.log('decision.argued', 'decision', v_d.id, v_d.project_id,
    format('%s argued%s on "%s"', v_me_name, coalesce(' for ' || v_position, ''), v_d.title),
    jsonb_build_object('position', v_position, 'previous_position', v_part.position));
  insert into public.comments (tenant_id, object_type, object_id, author_actor_id, body, mentions, kind, position)
  values (v_d.tenant_id, 'decision', v_d.id, v_me, left(v_argument, 20000),
          bullpen.comment_mentions(v_d.tenant_id, v_argument, '{}'), 'argument', v_position)
  returning * into v_comment;
  perform bullpen.log_aside(v_d.tenant_id, 'comment.added', 'decision', v_d.id, v_d.project_id,
    format('on decision "%s": %s', left(v_d.title, 80), left(regexp_replace(v_argument, '\s+', ' ', 'g'), 140)),
    jsonb_build_object('comment_id', v_comment.id, 'mentions', to_jsonb(v_comment.mentions), 'kind', 'argument'));
  update public.decision_participants
     set position = coalesce(v_position, position), argument_comment_id = v_comment.id, replies = replies + 1,
         answered_at = now()
   where tenant_id = v_part.tenant_id and decision_id = v_part.decision_id and actor_id = v_part.actor_id
  returning * into v_part;
  -- the participant's handoff carries its latest answer
  select * into v_h from public.handoffs where tenant_id = v_d.tenant_id and id = v_part.handoff_id for update;
  if v_h.id is not null and v_h.status <> 'resolved' then
    update public.handoffs
       set status = 'responded',
           response = jsonb_strip_nulls(jsonb_build_object('chosen_option', v_part.position, 'text', left(v_argument, 20000))),
           responded_by_actor_id = v_me, responded_at = now(),
           claimed_by_actor_id = coalesce(claimed_by_actor_id, v_me), claimed_at = coalesce(claimed_at, now()), updated_at = now()
     where tenant_id = v_h.tenant_id and id = v_h.id
    returning * into v_h;
    perform bullpen.notify(v_h.tenant_id, v_h.from_actor_id, 'handoff.responded',
      format('%s answered "%s": %s', v_me_name, v_h.title, coalesce(v_part.position, left(v_argument, 140))),
      left(v_argument, 2000), v_h.related_project_id, null, v_h.id);
  end if;
  return bullpen.idem_finish(p, jsonb_build_object(
    'decision', bullpen.decision_json(v_d),
    'argument', jsonb_build_object('id', v_comment.id, 'actor_id', v_me, 'author', v_me_name, 'position', v_comment.position,
                  'body', v_comment.body, 'created_at', v_comment.created_at),
    'position', v_part.position,
    'handoff_id', v_part.handoff_id));
end
$$;
alter function public.debate_reply(jsonb) owner to bullpen_writer;

-- ---------------------------------------------------------------------------------------------
-- The council
-- ---------------------------------------------------------------------------------------------

create or replace function bullpen.council_json(c public.councils, p_full boolean default true) returns jsonb
language sql stable
as $$
  select jsonb_build_object(
    'id', c.id, 'project_id', c.project_id,
    'project_key', (select pr.key from public.projects pr where pr.tenant_id = c.tenant_id and pr.id = c.project_id),
    'question', c.question, 'models', to_jsonb(c.models), 'chairman', c.chairman, 'status', c.status,
    'final_answer', c.final_answer, 'decision_id', c.decision_id, 'record_decision', c.record_decision,
    'asked_by_actor_id', c.asked_by_actor_id,
    'asked_by', (select a.display_name from public.actors a where a.tenant_id = c.tenant_id and a.id = c.asked_by_actor_id),
    'run_id', c.run_id, 'tokens_in', c.tokens_in, 'tokens_out', c.tokens_out, 'cost_usd', c.cost_usd,
    'sensitivity', c.sensitivity, 'created_at', c.created_at, 'finished_at', c.finished_at)
  || case when p_full then jsonb_build_object(
       'context_refs', c.context_refs, 'answers', c.answers, 'rankings', c.rankings, 'aggregate', c.aggregate,
       'chairman_result', c.chairman_result, 'errors', c.errors, 'usage', c.usage)
     else '{}'::jsonb end
$$;

/**
 * The prompt context of context_ids: each task (by ref or uuid), decision or note (by uuid) of
 * the caller's workspace, as a titled block. Returns {refs: [{type, id, label}], text, sensitive}:
 * sensitive when a sensitive note is among them (the caller sees one only with the sensitive claim).
 */
create or replace function bullpen.council_context(p_ids jsonb) returns jsonb
language plpgsql stable
as $$
declare
  v_ref text;
  i int := 0;
  v_field text;
  v_task public.tasks;
  v_d public.decisions;
  v_n public.knowledge_notes;
  v_refs jsonb := '[]';
  v_text text := '';
  v_uuid boolean;
  v_sensitive boolean := false;
begin
  for v_ref in select jsonb_array_elements_text(coalesce(p_ids, '[]')) loop
    v_field := format('context_ids[%s]', i);
    i := i + 1;
    v_uuid := v_ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
    v_task := null; v_d := null; v_n := null;
    if not v_uuid then
      v_task := bullpen.resolve_task(v_ref, v_field);
    else
      select * into v_task from public.tasks where tenant_id = (select bullpen.tenant_id()) and id = v_ref::uuid;
      if v_task.id is null then
        select * into v_d from public.decisions where tenant_id = (select bullpen.tenant_id()) and id = v_ref::uuid;
      end if;
      if v_task.id is null and v_d.id is null then
        select * into v_n from public.knowledge_notes
         where tenant_id = (select bullpen.tenant_id()) and id = v_ref::uuid and (expires_at is null or expires_at > now());
      end if;
    end if;
    if v_task.id is not null then
      v_refs := v_refs || jsonb_build_object('type', 'task', 'id', v_task.id, 'label', bullpen.coord_task_ref(v_task));
      v_text := v_text || format(E'## Task %s: %s (%s)\n%s\n\n', bullpen.coord_task_ref(v_task), v_task.title, v_task.status, left(v_task.body, 8000));
    elsif v_d.id is not null then
      v_refs := v_refs || jsonb_build_object('type', 'decision', 'id', v_d.id, 'label', v_d.title);
      v_text := v_text || format(E'## Decision (%s): %s\nChoice: %s\n%s\n\n', v_d.status, v_d.title, left(v_d.choice, 4000),
        left(concat_ws(E'\n', 'Context: ' || v_d.context, 'Rationale: ' || v_d.rationale), 8000));
    elsif v_n.id is not null then
      v_refs := v_refs || jsonb_build_object('type', 'note', 'id', v_n.id, 'label', v_n.title);
      v_text := v_text || format(E'## Note: %s\n%s\n\n', v_n.title, left(v_n.body, 8000));
      v_sensitive := v_sensitive or v_n.sensitivity = 'sensitive';
    else
      perform bullpen.fail('NOT_FOUND', format('%s: no task, decision or note %s in this workspace', v_field, v_ref),
        'name tasks by ref (PAY-12), decisions and notes by uuid');
    end if;
  end loop;
  return jsonb_build_object('refs', v_refs, 'text', v_text, 'sensitive', v_sensitive);
end
$$;

create or replace function public.council_ask(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_me uuid := bullpen.require_actor();
  v_replay jsonb;
  v_project public.projects;
  v_ctx jsonb;
  v_models text[] := bullpen.text_array(p -> 'models');
  v_c public.councils;
begin
  v_replay := bullpen.idem_begin('council_ask', p);
  if v_replay is not null then
    return v_replay;
  end if;
  if coalesce(cardinality(v_models), 0) = 0 or nullif(p ->> 'chairman', '') is null then
    perform bullpen.fail('VALIDATION_ERROR', 'models: the council needs at least one model and a chairman',
      'name models as provider:model, or configure BULLPEN_COUNCIL_MODELS on the server');
  end if;
  if p ->> 'project_id' is not null then
    v_project := bullpen.resolve_project(p ->> 'project_id');
  end if;
  -- costs (0027): the council spends on the workspace's behalf; a spent budget refuses it
  perform bullpen.budget_guard(bullpen.tenant_id(), v_me, v_project.id, 'council_ask');
  v_ctx := bullpen.council_context(p -> 'context_ids');
  -- 0040: a decision has no sensitivity, so a council drawn from a sensitive note is not recorded as one
  if (v_ctx ->> 'sensitive')::boolean and coalesce((p ->> 'record_decision')::boolean, false) then
    perform bullpen.fail('VALIDATION_ERROR',
      'record_decision: the context holds a sensitive note, and a decision is seen by every key of the workspace',
      'ask without record_decision (the council stays sensitive), or leave the sensitive note out of context_ids');
  end if;
  insert into public.councils (tenant_id, project_id, question, context, context_refs, models, chairman, record_decision,
                               asked_by_actor_id, run_id, sensitivity)
  values (bullpen.tenant_id(), v_project.id, p ->> 'question', v_ctx ->> 'text', v_ctx -> 'refs', v_models, p ->> 'chairman',
          coalesce((p ->> 'record_decision')::boolean, false), v_me, bullpen.run_id(),
          case when (v_ctx ->> 'sensitive')::boolean then 'sensitive' else 'normal' end)
  returning * into v_c;
  -- the activity log is read by every key of the workspace: a sensitive council's line names no question
  perform bullpen.log('council.asked', 'council', v_c.id, v_c.project_id,
    case when v_c.sensitivity = 'sensitive' then 'asked the council a sensitive question'
         else left(format('asked the council: %s', v_c.question), 300) end,
    jsonb_build_object('models', to_jsonb(v_models), 'chairman', v_c.chairman));
  perform bullpen.job_enqueue('council.run', jsonb_build_object('council_id', v_c.id), now(), null, 3);
  return bullpen.idem_finish(p, jsonb_build_object('council_id', v_c.id, 'status', v_c.status,
    'council', bullpen.council_json(v_c, false)));
end
$$;
alter function public.council_ask(jsonb) owner to bullpen_writer;

create or replace function public.council_get(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_c public.councils;
begin
  perform bullpen.require_actor();
  if p ->> 'council_id' is null or p ->> 'council_id' !~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    perform bullpen.fail('VALIDATION_ERROR', 'council_id: a council is named by its uuid');
  end if;
  select * into v_c from public.councils where tenant_id = (select bullpen.tenant_id()) and id = (p ->> 'council_id')::uuid;
  if v_c.id is null then
    perform bullpen.fail('NOT_FOUND', format('council_id: no council %s in this workspace', p ->> 'council_id'),
      'list councils with council_query');
  end if;
  return jsonb_build_object('council', bullpen.council_json(v_c, true), 'status', v_c.status);
end
$$;
alter function public.council_get(jsonb) owner to bullpen_writer;

create or replace function public.council_query(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_project uuid;
  v_limit int := greatest(1, least(coalesce((p ->> 'limit')::int, 20), 100));
begin
  perform bullpen.require_actor();
  if p ->> 'project_id' is not null then
    v_project := (bullpen.resolve_project(p ->> 'project_id')).id;
  end if;
  return jsonb_build_object('councils', (
    select coalesce(jsonb_agg(bullpen.council_json(c, false) order by c.created_at desc, c.id desc), '[]'::jsonb)
      from (select * from public.councils c
             where c.tenant_id = (select bullpen.tenant_id()) and (v_project is null or c.project_id = v_project)
             order by c.created_at desc, c.id desc limit v_limit) c));
end
$$;
alter function public.council_query(jsonb) owner to bullpen_writer;

/**
 * The council.run job's last step, as the server (no caller's claims): stores the stages, adds the
 * council's tokens and cost to the asking run (under "council:<model>" keys, so an agent's own
 * usage reports never overwrite them), records the proposed decision when asked, and announces
 * the finish on the change feed (council_get's waiters wake on it). Runs once: a council that is
 * no longer running is left as it is.
 */
create or replace function bullpen.council_finish(p_tenant uuid, p_id uuid, p_result jsonb) returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  v_c public.councils;
  v_usage jsonb := coalesce(p_result -> 'usage', '{}');
  v_run public.runs;
  v_merged jsonb;
  k text;
  u jsonb;
  v_d public.decisions;
  v_status text := p_result ->> 'status';
  v_final text := nullif(p_result ->> 'final_answer', '');
begin
  select * into v_c from public.councils where tenant_id = p_tenant and id = p_id for update;
  if v_c.id is null or v_c.status <> 'running' then
    return null;
  end if;
  if v_status not in ('done', 'partial', 'failed') then
    raise exception 'council_finish: status must be done, partial or failed, got %', v_status;
  end if;
  -- the asker is the actor of what follows (activity, the recorded decision)
  perform set_config('request.jwt.claims', jsonb_build_object('tenant_id', v_c.tenant_id, 'actor_id', v_c.asked_by_actor_id,
    'sub', v_c.asked_by_actor_id, 'run_id', coalesce(v_c.run_id, ''), 'role', 'service_role')::text, true);
  update public.councils
     set status = v_status, answers = coalesce(p_result -> 'answers', '[]'), rankings = coalesce(p_result -> 'rankings', '[]'),
         aggregate = coalesce(p_result -> 'aggregate', '[]'), final_answer = v_final,
         chairman_result = p_result -> 'chairman_result', errors = coalesce(p_result -> 'errors', '[]'), usage = v_usage,
         tokens_in = bullpen.usage_total(v_usage, 'tokens_in')::bigint,
         tokens_out = bullpen.usage_total(v_usage, 'tokens_out')::bigint,
         cost_usd = bullpen.usage_total(v_usage, 'cost_usd'),
         finished_at = now()
   where tenant_id = v_c.tenant_id and id = v_c.id
  returning * into v_c;
  if v_c.run_id is not null and v_usage <> '{}'::jsonb then
    select * into v_run from public.runs where tenant_id = v_c.tenant_id and run_key = v_c.run_id for update;
    if v_run.id is not null then
      v_merged := v_run.usage;
      for k, u in select key, value from jsonb_each(v_usage) loop
        v_merged := v_merged || jsonb_build_object('council:' || k, jsonb_build_object(
          'tokens_in', coalesce((v_merged -> ('council:' || k) ->> 'tokens_in')::bigint, 0) + coalesce((u ->> 'tokens_in')::bigint, 0),
          'tokens_out', coalesce((v_merged -> ('council:' || k) ->> 'tokens_out')::bigint, 0) + coalesce((u ->> 'tokens_out')::bigint, 0),
          'cost_usd', coalesce((v_merged -> ('council:' || k) ->> 'cost_usd')::numeric, 0) + coalesce((u ->> 'cost_usd')::numeric, 0)));
      end loop;
      update public.runs
         set usage = v_merged,
             tokens_in = bullpen.usage_total(v_merged, 'tokens_in')::bigint,
             tokens_out = bullpen.usage_total(v_merged, 'tokens_out')::bigint,
             cost_usd = bullpen.usage_total(v_merged, 'cost_usd')
       where tenant_id = v_run.tenant_id and id = v_run.id;
    end if;
  end if;
  -- costs (0027): the council's spend lands in the usage ledger, on the asker, its run and the council's project
  insert into public.usage_events (tenant_id, run_id, actor_id, project_id, model, provider, tokens_in, tokens_out, cost_usd, priced)
  select v_c.tenant_id, (select r.id from public.runs r where r.tenant_id = v_c.tenant_id and r.run_key = v_c.run_id),
         v_c.asked_by_actor_id, v_c.project_id, left('council:' || e.key, 100), nullif(split_part(e.key, ':', 1), ''),
         coalesce((e.value ->> 'tokens_in')::bigint, 0), coalesce((e.value ->> 'tokens_out')::bigint, 0),
         round(coalesce((e.value ->> 'cost_usd')::numeric, 0), 6),
         case when coalesce((e.value ->> 'cost_usd')::numeric, 0) > 0 then 'reported' else 'unknown' end
    from jsonb_each(v_usage) e
   where coalesce((e.value ->> 'tokens_in')::bigint, 0) + coalesce((e.value ->> 'tokens_out')::bigint, 0) > 0
      or coalesce((e.value ->> 'cost_usd')::numeric, 0) > 0;
  if v_c.record_decision and v_final is not null and v_status in ('done', 'partial') then
    insert into public.decisions (tenant_id, project_id, title, choice, context, rationale, options, status, author_actor_id,
                                  run_id, content_hash, embedding_status)
    values (v_c.tenant_id, v_c.project_id, left('Council: ' || regexp_replace(v_c.question, '\s+', ' ', 'g'), 500), left(v_final, 10000),
            left(v_c.question, 20000),
            left(format('The council (%s; chairman %s) answered, ranked each other anonymously, and the chairman wrote this. Ranking: %s. Stages: council_get {"council_id": "%s"}.',
              array_to_string(v_c.models, ', '), v_c.chairman,
              coalesce((select string_agg(format('%s (%s)', a ->> 'model', a ->> 'average_rank'), ', ' order by n)
                          from jsonb_array_elements(v_c.aggregate) with ordinality e(a, n)), 'none'), v_c.id), 20000),
            '[]', 'proposed', v_c.asked_by_actor_id, v_c.run_id,
            bullpen.memory_hash(bullpen.decision_embed_text(left('Council: ' || v_c.question, 500), left(v_final, 10000), v_c.question, null, null)),
            case when bullpen.memory_vectors_available() then 'pending' else 'unavailable' end)
    returning * into v_d;
    update public.councils set decision_id = v_d.id where tenant_id = v_c.tenant_id and id = v_c.id returning * into v_c;
    perform bullpen.log_aside(v_c.tenant_id, 'decision.logged', 'decision', v_d.id, v_d.project_id, v_d.title,
      jsonb_build_object('status', 'proposed', 'council_id', v_c.id));
    perform bullpen.memory_wake();
  end if;
  perform bullpen.log_aside(v_c.tenant_id, 'council.finished', 'council', v_c.id, v_c.project_id,
    case when v_c.sensitivity = 'sensitive' then format('council %s: a sensitive question', v_c.status)
         else left(format('council %s: %s', v_c.status, v_c.question), 300) end,
    jsonb_build_object('status', v_c.status, 'tokens_in', v_c.tokens_in, 'tokens_out', v_c.tokens_out, 'cost_usd', v_c.cost_usd,
      'decision_id', v_c.decision_id));
  perform bullpen.inbox_touch(v_c.tenant_id, v_c.asked_by_actor_id, 'council.finished');
  return bullpen.council_json(v_c, true);
end
$$;

-- ---------------------------------------------------------------------------------------------
-- Grants: the RPCs to the API roles; helpers only to the writer and the server.
-- ---------------------------------------------------------------------------------------------

revoke all on function bullpen.debate_open(public.decisions, jsonb) from public, anon, authenticated;
grant execute on function bullpen.debate_open(public.decisions, jsonb) to bullpen_writer, service_role;
revoke all on function bullpen.debate_winner(public.decisions, text, text, text) from public, anon, authenticated;
grant execute on function bullpen.debate_winner(public.decisions, text, text, text) to bullpen_writer, service_role;
revoke all on function bullpen.debate_close(public.decisions, text) from public, anon, authenticated;
grant execute on function bullpen.debate_close(public.decisions, text) to bullpen_writer, service_role;
revoke all on function public.debate_reply(jsonb) from public, anon;
grant execute on function public.debate_reply(jsonb) to authenticated, service_role;
revoke all on function bullpen.council_json(public.councils, boolean) from public, anon, authenticated;
grant execute on function bullpen.council_json(public.councils, boolean) to bullpen_writer, service_role;
revoke all on function bullpen.council_context(jsonb) from public, anon, authenticated;
grant execute on function bullpen.council_context(jsonb) to bullpen_writer, service_role;
revoke all on function public.council_ask(jsonb) from public, anon;
grant execute on function public.council_ask(jsonb) to authenticated, service_role;
revoke all on function public.council_get(jsonb) from public, anon;
grant execute on function public.council_get(jsonb) to authenticated, service_role;
revoke all on function public.council_query(jsonb) from public, anon;
grant execute on function public.council_query(jsonb) to authenticated, service_role;
-- the job's step: the server alone
revoke all on function bullpen.council_finish(uuid, uuid, jsonb) from public, anon, authenticated, bullpen_writer;
grant execute on function bullpen.council_finish(uuid, uuid, jsonb) to service_role;
