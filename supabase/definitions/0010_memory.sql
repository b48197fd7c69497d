-- Memory: decisions, knowledge notes, global search and skills, plus the memory sections of
-- task_get and project_brief. Vector search lives in 0010_memory_vector.sql (pgvector only); the
-- functions here call it only when public.memory_embeddings exists.
-- Re-applied on every upgrade that changes any definition file: every statement here must be
-- safe to run again (create or replace).

-- ---------------------------------------------------------------------------------------------
-- Helpers
-- ---------------------------------------------------------------------------------------------

create or replace function bullpen.memory_hash(p text) returns text
language sql immutable
as $$ select encode(sha256(convert_to(coalesce(p, ''), 'UTF8')), 'hex') $$;

/** The text a decision is embedded from (and its content_hash). */
create or replace function bullpen.decision_embed_text(p_title text, p_choice text, p_context text, p_rationale text, p_consequences text[])
returns text
language sql immutable
as $$
  -- the items one a line: a one-item list embeds as the single text it was before 0038
  select concat_ws(E'\n', p_title, p_choice, nullif(p_context, ''), nullif(p_rationale, ''), nullif(bullpen.text_lines(p_consequences), ''))
$$;

/** The text a note is embedded from: title and body (tags, kind and expiry never re-embed). */
create or replace function bullpen.note_embed_text(p_title text, p_body text) returns text
language sql immutable
as $$ select p_title || E'\n\n' || p_body $$;

/** Whether this database stores vectors (pgvector and 0010_memory_vector.sql applied). */
create or replace function bullpen.memory_vectors_available() returns boolean
language sql stable
as $$ select to_regclass('public.memory_embeddings') is not null $$;

/**
 * Wakes the background embedder for the caller's workspace: one pending job per workspace, run
 * after this transaction commits. The job reads every due row, so one wake covers many writes.
 */
create or replace function bullpen.memory_wake(p_run_at timestamptz default now()) returns void
language plpgsql
as $$
begin
  if bullpen.memory_vectors_available() then
    perform bullpen.job_enqueue('memory.embed', jsonb_build_object('reason', 'write'), p_run_at, 'memory.embed', 8);
  end if;
end
$$;

/** Full-text query with OR between the words: recall first, ts_rank orders by how many match. */
create or replace function bullpen.any_words_query(p_q text) returns tsquery
language plpgsql immutable
as $$
declare
  v text := plainto_tsquery('english'::regconfig, coalesce(p_q, ''))::text;
begin
  if v = '' then
    return ''::tsquery;
  end if;
  return replace(v, ' & ', ' | ')::tsquery;
end
$$;

create or replace function bullpen.timestamptz_arg(p jsonb, p_field text) returns timestamptz
language plpgsql stable
as $$
begin
  return (p ->> p_field)::timestamptz;
exception when others then
  perform bullpen.fail('VALIDATION_ERROR', format('%s: not an ISO date-time: %s', p_field, p ->> p_field));
  return null;
end
$$;

/** A decision of the caller's workspace, or NOT_FOUND naming the field. */
create or replace function bullpen.resolve_decision(p_ref text, p_field text default 'decision_id') returns public.decisions
language plpgsql stable
as $$
declare
  v public.decisions;
begin
  if p_ref is null then
    perform bullpen.fail('VALIDATION_ERROR', format('%s is required', p_field));
  end if;
  if p_ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    select * into v from public.decisions where tenant_id = bullpen.tenant_id() and id = p_ref::uuid;
  end if;
  if v.id is null then
    perform bullpen.fail('NOT_FOUND', format('%s: no decision %s in this workspace', p_field, p_ref),
      'find decisions with decision_query');
  end if;
  return v;
end
$$;

/** A live (unexpired) note of the caller's workspace, or NOT_FOUND naming the field. */
create or replace function bullpen.resolve_note(p_ref text, p_field text default 'note_id') returns public.knowledge_notes
language plpgsql stable
as $$
declare
  v public.knowledge_notes;
begin
  if p_ref is null then
    perform bullpen.fail('VALIDATION_ERROR', format('%s is required', p_field));
  end if;
  if p_ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    select * into v from public.knowledge_notes
     where tenant_id = bullpen.tenant_id() and id = p_ref::uuid and (expires_at is null or expires_at > now());
  end if;
  if v.id is null then
    perform bullpen.fail('NOT_FOUND', format('%s: no note %s in this workspace (expired notes are gone)', p_field, p_ref),
      'find notes with knowledge_search');
  end if;
  return v;
end
$$;

/** Resolves related_task_ids (uuids or KEY-N) to task ids, each inside the caller's workspace. */
create or replace function bullpen.memory_task_ids(p_refs jsonb, p_field text default 'related_task_ids') returns uuid[]
language plpgsql stable
as $$
declare
  v_ids uuid[] := '{}';
  v_ref text;
  i int := 0;
begin
  for v_ref in select jsonb_array_elements_text(case when jsonb_typeof(p_refs) = 'array' then p_refs else '[]'::jsonb end) loop
    v_ids := v_ids || (bullpen.resolve_task(v_ref, format('%s[%s]', p_field, i))).id;
    i := i + 1;
  end loop;
  return array(select distinct unnest(v_ids));
end
$$;

-- The row-to-JSON helpers below are PL/pgSQL, not SQL: an SQL function that is not inlined is
-- planned again on every execution of the statement that calls it (a search answering ten notes
-- planned note_json's three subqueries on every call), while PL/pgSQL keeps its plans per session.
create or replace function bullpen.memory_tasks_json(p_task_ids uuid[]) returns jsonb
language plpgsql stable
as $$
begin
  if coalesce(cardinality(p_task_ids), 0) = 0 then
    return '[]'::jsonb;
  end if;
  return (select coalesce(jsonb_agg(jsonb_build_object('id', t.id, 'ref', pr.key || '-' || t.seq, 'title', t.title, 'status', t.status)
           order by pr.key, t.seq), '[]'::jsonb)
    from public.tasks t join public.projects pr on pr.tenant_id = t.tenant_id and pr.id = t.project_id
   where t.tenant_id = bullpen.tenant_id() and t.id = any (p_task_ids));
end
$$;

/** Options as stored: [{label, summary, pros[], cons[]}]; a string pro or con becomes a one-item list. */
create or replace function bullpen.normalize_options(p jsonb) returns jsonb
language sql immutable
as $$
  select coalesce(jsonb_agg(jsonb_build_object(
      'label', o ->> 'label',
      'summary', o ->> 'summary',
      'pros', case jsonb_typeof(o -> 'pros') when 'array' then o -> 'pros' when 'string' then jsonb_build_array(o -> 'pros') else '[]'::jsonb end,
      'cons', case jsonb_typeof(o -> 'cons') when 'array' then o -> 'cons' when 'string' then jsonb_build_array(o -> 'cons') else '[]'::jsonb end)
    order by i), '[]'::jsonb)
  from jsonb_array_elements(case when jsonb_typeof(p) = 'array' then p else '[]'::jsonb end) with ordinality as e(o, i)
$$;

/**
 * A debate as its readers see it (null for a decision without participants): the participants
 * with their current position, the tally by option, who has not answered, and the arguments in
 * order (the latest 100).
 */
create or replace function bullpen.debate_json(d public.decisions) returns jsonb
language sql stable
as $$
  select case when not exists (select 1 from public.decision_participants x where x.tenant_id = d.tenant_id and x.decision_id = d.id)
    then null
    else jsonb_build_object(
      'open', d.status = 'proposed',
      'winning_option', d.winning_option,
      'participants', (
        select coalesce(jsonb_agg(jsonb_build_object('actor_id', x.actor_id, 'display_name', a.display_name, 'kind', a.kind,
                   'position', x.position, 'replies', x.replies, 'answered_at', x.answered_at, 'handoff_id', x.handoff_id)
                 order by x.created_at, a.display_name), '[]'::jsonb)
          from public.decision_participants x join public.actors a on a.tenant_id = x.tenant_id and a.id = x.actor_id
         where x.tenant_id = d.tenant_id and x.decision_id = d.id),
      'tally', (
        select coalesce(jsonb_agg(jsonb_build_object('option', o ->> 'label',
                   'count', (select count(*) from public.decision_participants x
                              where x.tenant_id = d.tenant_id and x.decision_id = d.id and x.position = o ->> 'label'),
                   'supporters', (select coalesce(jsonb_agg(a.display_name order by a.display_name), '[]'::jsonb)
                                    from public.decision_participants x join public.actors a on a.tenant_id = x.tenant_id and a.id = x.actor_id
                                   where x.tenant_id = d.tenant_id and x.decision_id = d.id and x.position = o ->> 'label'))
                 order by i), '[]'::jsonb)
          from jsonb_array_elements(d.options) with ordinality as e(o, i)),
      'waiting_on', (
        select coalesce(jsonb_agg(jsonb_build_object('actor_id', x.actor_id, 'display_name', a.display_name) order by a.display_name), '[]'::jsonb)
          from public.decision_participants x join public.actors a on a.tenant_id = x.tenant_id and a.id = x.actor_id
         where x.tenant_id = d.tenant_id and x.decision_id = d.id and x.replies = 0),
      'arguments', (
        select coalesce(jsonb_agg(jsonb_build_object('id', c.id, 'actor_id', c.author_actor_id, 'author', a.display_name,
                   'position', c.position, 'body', c.body, 'created_at', c.created_at) order by c.created_at, c.id), '[]'::jsonb)
          from (select * from public.comments c
                 where c.tenant_id = d.tenant_id and c.object_id = d.id and c.object_type = 'decision' and c.kind = 'argument'
                 order by c.created_at desc, c.id desc limit 100) c
          join public.actors a on a.tenant_id = c.tenant_id and a.id = c.author_actor_id))
  end
$$;

create or replace function bullpen.decision_json(d public.decisions) returns jsonb
language plpgsql stable
as $$
begin
  return jsonb_build_object(
    'id', d.id, 'project_id', d.project_id,
    'project_key', (select pr.key from public.projects pr where pr.tenant_id = d.tenant_id and pr.id = d.project_id),
    'title', d.title, 'choice', d.choice, 'context', d.context, 'rationale', d.rationale,
    'consequences', d.consequences, 'options', d.options, 'status', d.status, 'tags', to_jsonb(d.tags),
    'supersedes_decision_id', d.supersedes_decision_id, 'superseded_by', d.superseded_by,
    'author_actor_id', d.author_actor_id,
    'author', (select a.display_name from public.actors a where a.tenant_id = d.tenant_id and a.id = d.author_actor_id),
    'run_id', d.run_id, 'created_at', d.created_at, 'status_changed_at', d.status_changed_at,
    'related_tasks', bullpen.memory_tasks_json(array(
        select dt.task_id from public.decision_tasks dt where dt.tenant_id = d.tenant_id and dt.decision_id = d.id)),
    'embedding_status', d.embedding_status, 'embedding_model', d.embedding_model,
    'winning_option', d.winning_option, 'debate', bullpen.debate_json(d),
    'council_id', (select c.id from public.councils c where c.tenant_id = d.tenant_id and c.decision_id = d.id limit 1));
end
$$;

create or replace function bullpen.note_json(n public.knowledge_notes, p_body boolean default true) returns jsonb
language plpgsql stable
as $$
begin
  return jsonb_build_object(
    'id', n.id, 'project_id', n.project_id,
    'project_key', (select pr.key from public.projects pr where pr.tenant_id = n.tenant_id and pr.id = n.project_id),
    'kind', n.kind, 'title', n.title, 'tags', to_jsonb(n.tags), 'language', n.language, 'category', n.category,
    'sensitivity', n.sensitivity, 'expires_at', n.expires_at, 'version', n.version,
    'superseded_by', n.superseded_by, 'retracted_at', n.retracted_at, 'retracted_reason', n.retracted_reason,
    -- a note linked `contradicts` to another shows the conflict wherever it is returned
    'conflicts', (select coalesce(jsonb_agg(jsonb_build_object('id', o.id, 'title', o.title, 'link_id', l.id) order by o.created_at, o.id), '[]'::jsonb)
                    from public.links l
                    join public.knowledge_notes o on o.tenant_id = l.tenant_id
                     and o.id = case when l.from_id = n.id then l.to_id else l.from_id end
                   where l.tenant_id = n.tenant_id and l.relation = 'contradicts'
                     and ((l.from_type = 'note' and l.from_id = n.id and l.to_type = 'note')
                       or (l.to_type = 'note' and l.to_id = n.id and l.from_type = 'note'))),
    'author_actor_id', n.author_actor_id,
    'author', (select a.display_name from public.actors a where a.tenant_id = n.tenant_id and a.id = n.author_actor_id),
    'updated_by_actor_id', n.updated_by_actor_id, 'run_id', n.run_id,
    'created_at', n.created_at, 'updated_at', n.updated_at,
    'related_tasks', bullpen.memory_tasks_json(array(
        select nt.task_id from public.note_tasks nt where nt.tenant_id = n.tenant_id and nt.note_id = n.id)),
    'embedding_status', n.embedding_status, 'embedding_model', n.embedding_model, 'embedding_error', n.embedding_error)
    || case when p_body then jsonb_build_object('body', n.body) else '{}'::jsonb end;
end
$$;

-- ---------------------------------------------------------------------------------------------
-- Decisions are append-only, for every role. Content never changes; the status and the
-- superseded_by link move only on the RPCs' path (bullpen.decision_move), and even there the
-- content stays refused. Embedding bookkeeping is not content. A decision is deleted only with its
-- workspace.
-- ---------------------------------------------------------------------------------------------

create or replace function bullpen.decisions_guard() returns trigger
language plpgsql
as $$
begin
  if tg_op = 'DELETE' then
    if exists (select 1 from public.tenants t where t.id = old.tenant_id) then
      raise exception using errcode = 'BPFRB', message = 'decisions are append-only: a decision cannot be deleted',
        hint = 'log a new decision with supersedes_decision_id, or reject it with decision_set_status';
    end if;
    return old;
  end if;
  if (new.tenant_id, new.id, new.project_id, new.title, new.choice, new.context, new.rationale, new.consequences,
      new.options, new.supersedes_decision_id, new.author_actor_id, new.run_id, new.created_at, new.content_hash)
     is distinct from
     (old.tenant_id, old.id, old.project_id, old.title, old.choice, old.context, old.rationale, old.consequences,
      old.options, old.supersedes_decision_id, old.author_actor_id, old.run_id, old.created_at, old.content_hash) then
    raise exception using errcode = 'BPFRB', message = 'decisions are append-only: their content cannot be changed',
      hint = 'log a new decision with supersedes_decision_id to change what was decided';
  end if;
  if new.status is distinct from old.status or new.superseded_by is distinct from old.superseded_by
     or new.winning_option is distinct from old.winning_option then
    if coalesce(current_setting('bullpen.decision_move', true), '') <> 'on' then
      raise exception using errcode = 'BPFRB', message = 'a decision''s status moves only through decision_set_status or a superseding decision_log',
        hint = 'call decision_set_status, or decision_log with supersedes_decision_id';
    end if;
    if old.status = 'superseded' then
      raise exception using errcode = 'BPTRN', message = format('decision %s is superseded by %s and stays so', old.id, old.superseded_by),
        hint = 'change the decision that superseded it instead';
    end if;
    new.status_changed_at := now();
  end if;
  return new;
end
$$;

create or replace trigger decisions_append_only before update or delete on public.decisions
  for each row execute function bullpen.decisions_guard();

create or replace trigger knowledge_notes_touch before update on public.knowledge_notes
  for each row when (old.title is distinct from new.title or old.body is distinct from new.body
                     or old.tags is distinct from new.tags or old.kind is distinct from new.kind
                     or old.expires_at is distinct from new.expires_at or old.project_id is distinct from new.project_id)
  execute function bullpen.touch_updated_at();

-- ---------------------------------------------------------------------------------------------
-- Decisions
-- ---------------------------------------------------------------------------------------------

create or replace function public.decision_log(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_project public.projects;
  v_old public.decisions;
  v_decision public.decisions;
  v_tasks uuid[];
  v_embed text;
  v_consequences text[];
  v_unavailable boolean := not bullpen.memory_vectors_available();
  v_status text;
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('decision_log', p);
  if v_replay is not null then
    return v_replay;
  end if;
  if p ->> 'project_id' is not null then
    v_project := bullpen.resolve_project(p ->> 'project_id');
  end if;
  if p ->> 'supersedes_decision_id' is not null then
    v_old := bullpen.resolve_decision(p ->> 'supersedes_decision_id', 'supersedes_decision_id');
    -- the old row is locked: two decisions cannot both supersede it
    select * into v_old from public.decisions where tenant_id = v_old.tenant_id and id = v_old.id for update;
    if v_old.superseded_by is not null then
      perform bullpen.fail('CONFLICT', format('decision %s is already superseded by %s', v_old.id, v_old.superseded_by),
        'supersede the current decision (superseded_by) instead', jsonb_build_object('superseded_by', v_old.superseded_by));
    end if;
  end if;
  v_tasks := bullpen.memory_task_ids(p -> 'related_task_ids');
  if jsonb_array_length(coalesce(p -> 'participants', '[]')) > 0 then
    -- a debate: it stays proposed until decision_set_status closes it
    if coalesce(p ->> 'status', 'proposed') <> 'proposed' then
      perform bullpen.fail('VALIDATION_ERROR', format('status: a debate (a decision with participants) starts proposed, not %s', p ->> 'status'),
        'drop status, or log the decision without participants');
    end if;
    if jsonb_array_length(coalesce(p -> 'options', '[]')) < 2 then
      perform bullpen.fail('VALIDATION_ERROR', 'options: a debate needs at least two options to take positions on',
        'give options [{label}, {label}, …]');
    end if;
    v_status := 'proposed';
  end if;
  -- consequences: a list; a single text (a caller of the RPC itself) is taken as a one-item list
  v_consequences := case jsonb_typeof(p -> 'consequences') when 'string' then array[p ->> 'consequences']
                         else bullpen.text_array(p -> 'consequences') end;
  v_consequences := array(select c from unnest(v_consequences) c where c <> '');
  v_embed := bullpen.decision_embed_text(p ->> 'title', p ->> 'choice', p ->> 'context', p ->> 'rationale', v_consequences);
  insert into public.decisions (tenant_id, project_id, title, choice, context, rationale, consequences, options, status,
                                supersedes_decision_id, author_actor_id, run_id, content_hash, embedding_status, tags)
  values (bullpen.tenant_id(), coalesce(v_project.id, v_old.project_id), p ->> 'title', p ->> 'choice', p ->> 'context',
          p ->> 'rationale', v_consequences, bullpen.normalize_options(p -> 'options'),
          coalesce(v_status, p ->> 'status', 'accepted'), v_old.id, bullpen.actor_id(), bullpen.run_id(),
          bullpen.memory_hash(v_embed), case when v_unavailable then 'unavailable' else 'pending' end,
          array(select distinct unnest(bullpen.text_array(p -> 'tags'))))
  returning * into v_decision;
  insert into public.decision_tasks (tenant_id, decision_id, task_id)
  select v_decision.tenant_id, v_decision.id, unnest(v_tasks);
  perform bullpen.log('decision.logged', 'decision', v_decision.id, v_decision.project_id, v_decision.title,
    jsonb_build_object('status', v_decision.status, 'supersedes_decision_id', v_old.id, 'related_task_ids', to_jsonb(v_tasks)));
  perform bullpen.debate_open(v_decision, p -> 'participants');
  if v_old.id is not null then
    perform set_config('bullpen.decision_move', 'on', true);
    update public.decisions set status = 'superseded', superseded_by = v_decision.id
     where tenant_id = v_old.tenant_id and id = v_old.id;
    perform set_config('bullpen.decision_move', '', true);
    perform bullpen.log('decision.superseded', 'decision', v_old.id, v_old.project_id,
      format('%s → superseded by "%s"', v_old.title, v_decision.title),
      jsonb_build_object('superseded_by', v_decision.id, 'previous_status', v_old.status));
  end if;
  perform bullpen.memory_wake();
  return bullpen.idem_finish(p, jsonb_build_object(
    'decision', bullpen.decision_json(v_decision), 'decision_id', v_decision.id,
    'embedding_status', v_decision.embedding_status,
    'superseded', case when v_old.id is not null then jsonb_build_object('id', v_old.id, 'title', v_old.title,
                    'previous_status', v_old.status, 'status', 'superseded') end));
end
$$;

create or replace function public.decision_set_status(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_decision public.decisions;
  v_previous text;
  v_winner text;
  v_closed int;
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('decision_set_status', p);
  if v_replay is not null then
    return v_replay;
  end if;
  v_decision := bullpen.resolve_decision(p ->> 'decision_id');
  select * into v_decision from public.decisions where tenant_id = v_decision.tenant_id and id = v_decision.id for update;
  v_previous := v_decision.status;
  if v_previous = 'superseded' then
    perform bullpen.fail('INVALID_TRANSITION', format('decision %s is superseded by %s; its status no longer moves', v_decision.id, v_decision.superseded_by),
      'change the current decision (superseded_by) instead', jsonb_build_object('from', 'superseded', 'superseded_by', v_decision.superseded_by));
  end if;
  if p ->> 'status' not in ('proposed', 'accepted', 'rejected', 'deprecated') then
    perform bullpen.fail('VALIDATION_ERROR', format('status: must be proposed, accepted, rejected or deprecated, got %s', p ->> 'status'),
      'to replace a decision, log a new one with supersedes_decision_id');
  end if;
  if v_previous = p ->> 'status' then
    return bullpen.idem_finish(p, jsonb_build_object('decision', bullpen.decision_json(v_decision),
      'previous_status', v_previous, 'changed', false, 'closed_handoffs', 0));
  end if;
  v_winner := bullpen.debate_winner(v_decision, p ->> 'status', p ->> 'note', p ->> 'winning_option');
  perform set_config('bullpen.decision_move', 'on', true);
  update public.decisions set status = p ->> 'status', winning_option = v_winner
   where tenant_id = v_decision.tenant_id and id = v_decision.id
  returning * into v_decision;
  perform set_config('bullpen.decision_move', '', true);
  perform bullpen.log('decision.status_changed', 'decision', v_decision.id, v_decision.project_id,
    format('%s: %s → %s%s', v_decision.title, v_previous, v_decision.status, coalesce(' (' || v_winner || ')', '')),
    jsonb_build_object('from', v_previous, 'to', v_decision.status, 'note', p ->> 'note', 'winning_option', v_winner));
  v_closed := bullpen.debate_close(v_decision, p ->> 'note');
  return bullpen.idem_finish(p, jsonb_build_object('decision', bullpen.decision_json(v_decision),
    'previous_status', v_previous, 'changed', true, 'closed_handoffs', v_closed));
end
$$;

/** Decision filters shared by the listing and both arms of recall. */
create or replace function bullpen.decision_matches(d public.decisions, p_project uuid, p_statuses text[], p_since timestamptz, p_task uuid)
returns boolean
language sql stable
as $$
  select (p_project is null or d.project_id = p_project)
     and d.status = any (p_statuses)
     and (p_since is null or d.created_at >= p_since)
     and (p_task is null or exists (select 1 from public.decision_tasks dt
                                     where dt.tenant_id = d.tenant_id and dt.decision_id = d.id and dt.task_id = p_task))
$$;

/**
 * Listing (newest first, keyset cursor) or, with semantic:true, recall: vector similarity fused
 * with full-text rank (see bullpen.memory_fuse). Superseded decisions are left out unless
 * include_superseded or status names them.
 */
create or replace function public.decision_query(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_project uuid;
  v_task uuid;
  v_since timestamptz := bullpen.timestamptz_arg(p, 'since');
  v_statuses text[] := case jsonb_typeof(p -> 'status') when 'array' then bullpen.text_array(p -> 'status')
                                                        when 'string' then array[p ->> 'status'] end;
  v_limit int := greatest(1, least(coalesce((p ->> 'limit')::int, 50), 200));
  v_cursor text := bullpen.cursor_arg(p);
  v_q text := nullif(btrim(p ->> 'q'), '');
  v_rows jsonb;
  v_more boolean;
  v_last text;
  v_fused jsonb;
  v_tags text[] := case when jsonb_typeof(p -> 'tags') = 'array' and jsonb_array_length(p -> 'tags') > 0 then bullpen.text_array(p -> 'tags') end;
begin
  perform bullpen.require_actor();
  if p ->> 'project_id' is not null then
    v_project := (bullpen.resolve_project(p ->> 'project_id')).id;
  end if;
  if p ->> 'task_id' is not null then
    v_task := (bullpen.resolve_task(p ->> 'task_id')).id;
  end if;
  v_statuses := coalesce(v_statuses, case when coalesce((p ->> 'include_superseded')::boolean, false)
    then array['proposed', 'accepted', 'rejected', 'deprecated', 'superseded'] else array['proposed', 'accepted', 'rejected', 'deprecated'] end);
  if coalesce((p ->> 'semantic')::boolean, false) then
    if v_q is null then
      perform bullpen.fail('VALIDATION_ERROR', 'q: semantic recall needs a query', 'pass q, or drop semantic to list decisions');
    end if;
    v_fused := bullpen.memory_fuse('decision', p,
      jsonb_build_object('project_id', v_project, 'statuses', to_jsonb(v_statuses), 'since', v_since, 'task_id', v_task));
    return jsonb_build_object(
      'decisions', (select coalesce(jsonb_agg(bullpen.decision_json(d) || jsonb_build_object(
                       'similarity', r.similarity, 'lexical_rank', r.lexical_rank, 'score', r.score) order by r.ord), '[]'::jsonb)
                      from jsonb_to_recordset(v_fused -> 'results') as r(id uuid, similarity float8, lexical_rank float8, score float8, ord int)
                      join public.decisions d on d.tenant_id = bullpen.tenant_id() and d.id = r.id
                     -- tags narrow the ranked hits (all of them must be present)
                     where v_tags is null or d.tags @> v_tags),
      'mode', v_fused ->> 'mode', 'model', v_fused -> 'model', 'fallback_reason', v_fused -> 'fallback_reason',
      'next_cursor', null);
  end if;
  with page as (
    select d, to_char(d.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') || ' ' || d.id::text as sort_key
      from public.decisions d
     where d.tenant_id = bullpen.tenant_id()
       and bullpen.decision_matches(d, v_project, v_statuses, v_since, v_task)
       and (v_tags is null or d.tags @> v_tags)
       and (v_q is null or d.search @@ websearch_to_tsquery('english'::regconfig, v_q)
            or d.title operator(public.%) v_q or d.title ilike '%' || bullpen.like_escape(v_q) || '%')
       and (v_cursor is null or to_char(d.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') || ' ' || d.id::text < v_cursor)
     order by d.created_at desc, d.id desc
     limit v_limit + 1
  ), numbered as (
    select page.*, row_number() over (order by sort_key desc) as rn from page
  )
  select coalesce(jsonb_agg(bullpen.decision_json(d) order by sort_key desc) filter (where rn <= v_limit), '[]'::jsonb),
         min(sort_key) filter (where rn = v_limit),
         count(*) > v_limit
    into v_rows, v_last, v_more
    from numbered;
  return jsonb_build_object('decisions', v_rows, 'mode', 'lexical', 'model', null, 'fallback_reason', null,
    'next_cursor', case when v_more then encode(convert_to(v_last, 'utf8'), 'base64') end);
end
$$;

-- ---------------------------------------------------------------------------------------------
-- Knowledge
-- ---------------------------------------------------------------------------------------------

/**
 * Live notes at least p.duplicate_threshold (default 0.92) similar to a note just written:
 * [{id, title, score}], best first. By meaning when the server embedded the note's text
 * (query_embedding), else by trigram similarity of the text. Each pair is kept as a
 * `duplicates` link (knowledge_search duplicates:true lists them).
 */
create or replace function bullpen.note_similar(v_note public.knowledge_notes, p jsonb) returns jsonb
language plpgsql
as $$
declare
  v_threshold float8 := coalesce((p ->> 'duplicate_threshold')::float8, 0.92);
  v_text text := bullpen.note_embed_text(v_note.title, v_note.body);
  v_found jsonb;
begin
  if p ? 'query_embedding' and jsonb_typeof(p -> 'query_embedding') = 'array' and bullpen.memory_vectors_available() then
    select coalesce(jsonb_agg(jsonb_build_object('id', n.id, 'title', n.title, 'score', round(c.sim::numeric, 4)) order by c.sim desc, n.id), '[]')
      into v_found
      from (select (e ->> 'id')::uuid as id, (e ->> 'similarity')::float8 as sim
              from jsonb_array_elements(bullpen.memory_vector_candidates('note', p -> 'query_embedding', p ->> 'embedding_model', 5, '{}'::jsonb)) e) c
      join public.knowledge_notes n on n.tenant_id = v_note.tenant_id and n.id = c.id
     where c.sim >= v_threshold and n.id <> v_note.id;
  else
    select coalesce(jsonb_agg(jsonb_build_object('id', x.id, 'title', x.title, 'score', round(x.sim::numeric, 4)) order by x.sim desc, x.id), '[]')
      into v_found
      from (select n.id, n.title, public.similarity(bullpen.note_embed_text(n.title, n.body), v_text)::float8 as sim
              from public.knowledge_notes n
             where n.tenant_id = v_note.tenant_id and n.id <> v_note.id and n.title operator(public.%) v_note.title
               and bullpen.note_matches(n, null, null, null)
             order by 3 desc limit 5) x
     where x.sim >= v_threshold;
  end if;
  insert into public.links as l (tenant_id, from_type, from_id, to_type, to_id, relation, strength, note, created_by_actor_id)
  select v_note.tenant_id, 'note', v_note.id, 'note', (e ->> 'id')::uuid, 'duplicates', least(1, (e ->> 'score')::real),
         'near-duplicate found on write', bullpen.actor_id()
    from jsonb_array_elements(v_found) e
  on conflict (tenant_id, from_type, from_id, to_type, to_id, relation) do nothing;
  return v_found;
end
$$;

/** The near-duplicate pairs of live notes (`duplicates` links), strongest first. */
create or replace function bullpen.note_duplicate_pairs(p jsonb, p_project uuid) returns jsonb
language plpgsql stable
as $$
begin
  return (select jsonb_build_object('results', '[]'::jsonb, 'mode', 'lexical', 'model', null,
    'fallback_reason', 'duplicates: pairs of live notes found alike on write',
    'pairs', coalesce(jsonb_agg(jsonb_build_object('a', jsonb_build_object('id', a.id, 'title', a.title),
                                                   'b', jsonb_build_object('id', b.id, 'title', b.title),
                                                   'score', round(l.strength::numeric, 4), 'link_id', l.id)
                                order by l.strength desc, l.created_at desc, l.id), '[]'::jsonb))
    from (select * from public.links l
           where l.tenant_id = bullpen.tenant_id() and l.relation = 'duplicates' and l.from_type = 'note' and l.to_type = 'note'
           order by l.strength desc, l.created_at desc
           limit greatest(1, least(coalesce((p ->> 'top_k')::int, 10), 100)) * 4) l
    join public.knowledge_notes a on a.tenant_id = l.tenant_id and a.id = l.from_id
    join public.knowledge_notes b on b.tenant_id = l.tenant_id and b.id = l.to_id
   where bullpen.note_matches(a, p_project, null, null) and bullpen.note_matches(b, null, null, null));
end
$$;

create or replace function public.knowledge_write(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_project public.projects;
  v_note public.knowledge_notes;
  v_tasks uuid[];
  v_expires timestamptz := bullpen.timestamptz_arg(p, 'expires_at');
  v_similar jsonb;
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('knowledge_write', p);
  if v_replay is not null then
    return v_replay;
  end if;
  if p ->> 'project_id' is not null then
    v_project := bullpen.resolve_project(p ->> 'project_id');
  end if;
  if v_expires is not null and v_expires <= now() then
    perform bullpen.fail('VALIDATION_ERROR', 'expires_at: must be in the future', 'omit expires_at for a note that lasts');
  end if;
  v_tasks := bullpen.memory_task_ids(p -> 'related_task_ids');
  perform bullpen.assert_sensitivity(p ->> 'sensitivity', 'sensitivity');
  insert into public.knowledge_notes (tenant_id, project_id, kind, language, category, title, body, tags, expires_at, author_actor_id,
                                      updated_by_actor_id, run_id, content_hash, embedding_status, sensitivity)
  values (bullpen.tenant_id(), v_project.id, coalesce(p ->> 'kind', 'note'), p ->> 'language', p ->> 'category', p ->> 'title', p ->> 'body',
          array(select distinct unnest(bullpen.text_array(p -> 'tags'))), v_expires, bullpen.actor_id(), bullpen.actor_id(),
          bullpen.run_id(), bullpen.memory_hash(bullpen.note_embed_text(p ->> 'title', p ->> 'body')),
          case when bullpen.memory_vectors_available() then 'pending' else 'unavailable' end, coalesce(p ->> 'sensitivity', 'normal'))
  returning * into v_note;
  insert into public.note_tasks (tenant_id, note_id, task_id) select v_note.tenant_id, v_note.id, unnest(v_tasks);
  perform bullpen.log('note.written', 'note', v_note.id, v_note.project_id, format('%s: %s', v_note.kind, v_note.title),
    jsonb_build_object('kind', v_note.kind, 'tags', to_jsonb(v_note.tags), 'related_task_ids', to_jsonb(v_tasks)));
  perform bullpen.memory_wake();
  -- a near-duplicate is not refused: it is named, and the pair is kept as a `duplicates` link
  v_similar := bullpen.note_similar(v_note, p);
  return bullpen.idem_finish(p, jsonb_build_object('note', bullpen.note_json(v_note), 'note_id', v_note.id,
    'embedding_status', v_note.embedding_status, 'similar', v_similar));
end
$$;

create or replace function public.knowledge_update(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_note public.knowledge_notes;
  v_new public.knowledge_notes;
  v_patch jsonb := coalesce(p -> 'patch', '{}'::jsonb);
  v_project public.projects;
  v_tasks uuid[];
  v_hash text;
  v_changed text[] := '{}';
  v_expires timestamptz := bullpen.timestamptz_arg(v_patch, 'expires_at');
  v_old public.knowledge_notes;
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('knowledge_update', p);
  if v_replay is not null then
    return v_replay;
  end if;
  v_note := bullpen.resolve_note(p ->> 'note_id');
  select * into v_note from public.knowledge_notes where tenant_id = v_note.tenant_id and id = v_note.id for update;
  if p ? 'expected_version' and (p ->> 'expected_version')::int <> v_note.version then
    perform bullpen.fail('CONFLICT', format('note %s is at version %s, not %s', v_note.id, v_note.version, p ->> 'expected_version'),
      're-read the note (knowledge_search) and apply your change to the current text',
      jsonb_build_object('current_version', v_note.version));
  end if;
  if v_patch ->> 'project_id' is not null then
    v_project := bullpen.resolve_project(v_patch ->> 'project_id', 'patch.project_id');
  end if;
  if v_expires is not null and v_expires <= now() then
    perform bullpen.fail('VALIDATION_ERROR', 'patch.expires_at: must be in the future', 'pass null to keep the note for good');
  end if;
  v_new := v_note;
  v_new.title := coalesce(v_patch ->> 'title', v_note.title);
  v_new.body := coalesce(v_patch ->> 'body', v_note.body);
  v_new.kind := coalesce(v_patch ->> 'kind', v_note.kind);
  if v_patch ? 'language' then v_new.language := v_patch ->> 'language'; end if;
  if v_patch ? 'sensitivity' then
    perform bullpen.assert_sensitivity(v_patch ->> 'sensitivity', 'patch.sensitivity');
    v_new.sensitivity := v_patch ->> 'sensitivity';
  end if;
  if v_patch ? 'category' then v_new.category := v_patch ->> 'category'; end if;
  if v_patch ? 'tags' then
    v_new.tags := array(select distinct unnest(bullpen.text_array(v_patch -> 'tags')));
  end if;
  if v_patch ? 'expires_at' then
    v_new.expires_at := v_expires;
  end if;
  if v_patch ? 'project_id' then
    v_new.project_id := v_project.id;
  end if;
  if v_new.title is distinct from v_note.title then v_changed := array_append(v_changed, 'title'); end if;
  if v_new.body is distinct from v_note.body then v_changed := array_append(v_changed, 'body'); end if;
  if v_new.kind is distinct from v_note.kind then v_changed := array_append(v_changed, 'kind'); end if;
  if v_new.tags is distinct from v_note.tags then v_changed := array_append(v_changed, 'tags'); end if;
  if v_new.language is distinct from v_note.language then v_changed := array_append(v_changed, 'language'); end if;
  if v_new.category is distinct from v_note.category then v_changed := array_append(v_changed, 'category'); end if;
  if v_new.sensitivity is distinct from v_note.sensitivity then v_changed := array_append(v_changed, 'sensitivity'); end if;
  if v_new.expires_at is distinct from v_note.expires_at then v_changed := array_append(v_changed, 'expires_at'); end if;
  if v_new.project_id is distinct from v_note.project_id then v_changed := array_append(v_changed, 'project_id'); end if;
  if v_patch ? 'related_task_ids' then
    v_tasks := bullpen.memory_task_ids(v_patch -> 'related_task_ids', 'patch.related_task_ids');
    if v_tasks is distinct from array(select nt.task_id from public.note_tasks nt
                                      where nt.tenant_id = v_note.tenant_id and nt.note_id = v_note.id order by 1) then
      delete from public.note_tasks where tenant_id = v_note.tenant_id and note_id = v_note.id;
      insert into public.note_tasks (tenant_id, note_id, task_id) select v_note.tenant_id, v_note.id, unnest(v_tasks);
      v_changed := array_append(v_changed, 'related_task_ids');
    end if;
  end if;
  if p ->> 'supersedes' is not null then
    -- the old note leaves search (as a superseded decision does) and the two are linked
    v_old := bullpen.resolve_note(p ->> 'supersedes', 'supersedes');
    if v_old.id = v_note.id then
      perform bullpen.fail('VALIDATION_ERROR', 'supersedes: a note does not supersede itself');
    end if;
    if v_old.superseded_by is distinct from v_note.id then
      if v_old.superseded_by is not null then
        perform bullpen.fail('CONFLICT', format('supersedes: note %s is already superseded by %s', v_old.id, v_old.superseded_by),
          'update the newer note instead');
      end if;
      update public.knowledge_notes n set superseded_by = v_note.id, updated_by_actor_id = bullpen.actor_id(), updated_at = now()
       where n.tenant_id = v_old.tenant_id and n.id = v_old.id;
      insert into public.links as l (tenant_id, from_type, from_id, to_type, to_id, relation, strength, created_by_actor_id)
      values (v_note.tenant_id, 'note', v_note.id, 'note', v_old.id, 'supersedes', 1, bullpen.actor_id())
      on conflict (tenant_id, from_type, from_id, to_type, to_id, relation) do nothing;
      perform bullpen.log('note.superseded', 'note', v_old.id, v_old.project_id, v_old.title,
        jsonb_build_object('superseded_by', v_note.id));
      v_changed := array_append(v_changed, 'supersedes');
    end if;
  end if;
  if cardinality(v_changed) = 0 or v_changed = array['supersedes'] then
    return bullpen.idem_finish(p, jsonb_build_object('note', bullpen.note_json(v_note), 'changed', to_jsonb(v_changed),
      'embedding_status', v_note.embedding_status, 're_embed', false));
  end if;
  v_hash := bullpen.memory_hash(bullpen.note_embed_text(v_new.title, v_new.body));
  update public.knowledge_notes n
     set title = v_new.title, body = v_new.body, kind = v_new.kind, tags = v_new.tags, expires_at = v_new.expires_at,
         language = v_new.language, category = v_new.category, sensitivity = v_new.sensitivity,
         project_id = v_new.project_id, version = n.version + 1, updated_by_actor_id = bullpen.actor_id(),
         content_hash = v_hash,
         embedding_status = case when v_hash = n.content_hash then n.embedding_status
                                 when bullpen.memory_vectors_available() then 'pending' else 'unavailable' end,
         embedding_attempts = case when v_hash = n.content_hash then n.embedding_attempts else 0 end,
         embedding_retry_at = case when v_hash = n.content_hash then n.embedding_retry_at end,
         embedding_error = case when v_hash = n.content_hash then n.embedding_error end
   where n.tenant_id = v_note.tenant_id and n.id = v_note.id
  returning * into v_new;
  perform bullpen.log('note.updated', 'note', v_new.id, v_new.project_id, format('%s: %s', v_new.kind, v_new.title),
    jsonb_build_object('changed', to_jsonb(v_changed), 'version', v_new.version));
  if v_hash <> v_note.content_hash then
    perform bullpen.memory_wake();
  end if;
  return bullpen.idem_finish(p, jsonb_build_object('note', bullpen.note_json(v_new), 'changed', to_jsonb(v_changed),
    'embedding_status', v_new.embedding_status, 're_embed', v_hash <> v_note.content_hash));
end
$$;

/** Note filters shared by both arms of search. Expired notes never match. */
create or replace function bullpen.note_matches(n public.knowledge_notes, p_project uuid, p_kind text, p_tags text[])
returns boolean
language sql stable
as $$
  select (p_project is null or n.project_id = p_project)
     and (p_kind is null or n.kind = p_kind)
     and (p_tags is null or cardinality(p_tags) = 0 or n.tags @> p_tags)
     and (n.expires_at is null or n.expires_at > now())
     -- superseded and retracted notes stay readable by id, but leave search
     and n.superseded_by is null and n.retracted_at is null
$$;

/** The share of the query's lexemes (0–1) that a document's search vector contains. */
create or replace function bullpen.lexeme_coverage(p_search tsvector, p_lexemes text[]) returns float8
language sql immutable
as $$
  select case when coalesce(cardinality(p_lexemes), 0) = 0 then 0::float8
    else (select count(*) from unnest(p_lexemes) l where p_search @@ quote_literal(l)::tsquery)::float8 / cardinality(p_lexemes) end
$$;

/**
 * The word arm's candidates for bullpen.memory_fuse: full text (ts_rank keeps the best 4 × depth,
 * cover density orders those), then trigram title matches when words found fewer than top. Returns
 * [{id, rank, coverage}], best first, ids and ranks only.
 *
 * The one read that row level security does not filter (docs/architecture.md, "The word arm"):
 * under RLS, `@@` is not leakproof, so PostgreSQL may not use the full-text GIN index below the
 * policies and tests every row of the workspace instead. This function is security definer and
 * keeps its owner, the migrating role, for which RLS does not apply (a superuser on PGlite and the
 * Debian set-up; `postgres` with BYPASSRLS on Supabase); so it applies by hand exactly what the
 * policies and the search apply: the caller's workspace from its claims (never an argument),
 * sensitivity unless the claims say `sensitive` (a chunk with its document), expired, superseded
 * and retracted notes out, the project, kind, tags, statuses, since and task filters. Only
 * bullpen_writer (the RPCs) may execute it; every row it names is read again under RLS before
 * anything about it is returned. tests/db/search-word-arm.test.ts holds it to that.
 */
drop function if exists bullpen.memory_word_candidates(text, text, int, int, jsonb);
create or replace function bullpen.memory_word_candidates(p_type text, p_q text, p_depth int, p_top int, p_filter jsonb)
returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_tenant uuid := bullpen.tenant_id();
  v_sensitive boolean := bullpen.can_see_sensitive();
  v_q text := btrim(coalesce(p_q, ''));
  v_tsq tsquery := bullpen.any_words_query(v_q);
  -- each of the query's lexemes as a query of its own, made once: the share of them a row
  -- contains is its coverage (as bullpen.lexeme_coverage, without a function call per row)
  v_lexq tsquery[] := array(select distinct pg_catalog.quote_literal(t.lexeme)::tsquery
                              from unnest(pg_catalog.to_tsvector('english'::regconfig, v_q)) t);
  v_nlex int := cardinality(v_lexq);
  v_project uuid := (p_filter ->> 'project_id')::uuid;
  v_tags text[] := case when jsonb_typeof(p_filter -> 'tags') = 'array' then bullpen.text_array(p_filter -> 'tags') end;
  v_statuses text[] := bullpen.text_array(p_filter -> 'statuses');
  v_lex jsonb;
begin
  if v_tenant is null or v_q = '' then
    return '[]'::jsonb;
  end if;
  if p_type = 'note' then
    -- full text first (its GIN index answers it); trigram title matches only when words found too
    -- little: they catch typos and identifiers, and cost a trigram comparison per row
    select coalesce(jsonb_agg(jsonb_build_object('id', x.id, 'rank', x.rank, 'coverage', case when v_nlex = 0 then 0::float8
               else (select count(*) from unnest(v_lexq) l where x.search @@ l)::float8 / v_nlex end)
             order by x.rank desc, x.id), '[]') into v_lex from (
      -- cover density (ts_rank_cd) ranks; it costs several times ts_rank per row, so ts_rank first
      -- keeps the best 4 × depth of the matches and cover density orders only those
      select c.id, c.search, pg_catalog.ts_rank_cd(c.search, v_tsq, 1) as rank from (
        select n.id, n.search
          from public.knowledge_notes n
         where n.tenant_id = v_tenant and n.search @@ v_tsq
           and (n.sensitivity = 'normal' or v_sensitive)
           and bullpen.note_matches(n, v_project, p_filter ->> 'kind', v_tags)
         order by pg_catalog.ts_rank(n.search, v_tsq, 1) desc, n.id limit p_depth * 4) c
       order by 3 desc, c.id limit p_depth) x;
    if jsonb_array_length(v_lex) < p_top then
      select v_lex || coalesce(jsonb_agg(jsonb_build_object('id', x.id, 'rank', x.rank, 'coverage', 0.5) order by x.rank desc, x.id), '[]') into v_lex from (
        select n.id, 0.3 * public.word_similarity(v_q, n.title) as rank
          from public.knowledge_notes n
         where n.tenant_id = v_tenant and (n.title operator(public.%) v_q or v_q operator(public.<%) n.title)
           and (n.sensitivity = 'normal' or v_sensitive)
           and bullpen.note_matches(n, v_project, p_filter ->> 'kind', v_tags)
           and not exists (select 1 from jsonb_array_elements(v_lex) l where (l ->> 'id')::uuid = n.id)
         order by 2 desc, n.id limit p_depth) x;
    end if;
  elsif p_type = 'chunk' then
    -- source chunks (0031_sources): words only, their document's title and heading weigh most; a
    -- chunk is seen with its document (its sensitivity)
    select coalesce(jsonb_agg(jsonb_build_object('id', x.id, 'rank', x.rank, 'coverage', case when v_nlex = 0 then 0::float8
               else (select count(*) from unnest(v_lexq) l where x.search @@ l)::float8 / v_nlex end)
             order by x.rank desc, x.id), '[]') into v_lex from (
      select c.id, c.search, pg_catalog.ts_rank_cd(c.search, v_tsq, 1) as rank from (
        select sc.id, sc.search
          from public.source_chunks sc
         where sc.tenant_id = v_tenant and sc.search @@ v_tsq
           and (v_project is null or sc.project_id = v_project)
           and exists (select 1 from public.source_documents d
                        where d.tenant_id = v_tenant and d.id = sc.document_id and (d.sensitivity = 'normal' or v_sensitive))
         order by pg_catalog.ts_rank(sc.search, v_tsq, 1) desc, sc.id limit p_depth * 4) c
       order by 3 desc, c.id limit p_depth) x;
  elsif p_type = 'decision' then
    select coalesce(jsonb_agg(jsonb_build_object('id', x.id, 'rank', x.rank, 'coverage', case when v_nlex = 0 then 0::float8
               else (select count(*) from unnest(v_lexq) l where x.search @@ l)::float8 / v_nlex end)
             order by x.rank desc, x.id), '[]') into v_lex from (
      select c.id, c.search, pg_catalog.ts_rank_cd(c.search, v_tsq, 1) as rank from (
        select d.id, d.search
          from public.decisions d
         where d.tenant_id = v_tenant and d.search @@ v_tsq
           and bullpen.decision_matches(d, v_project, v_statuses, (p_filter ->> 'since')::timestamptz, (p_filter ->> 'task_id')::uuid)
         order by pg_catalog.ts_rank(d.search, v_tsq, 1) desc, d.id limit p_depth * 4) c
       order by 3 desc, c.id limit p_depth) x;
    if jsonb_array_length(v_lex) < p_top then
      select v_lex || coalesce(jsonb_agg(jsonb_build_object('id', x.id, 'rank', x.rank, 'coverage', 0.5) order by x.rank desc, x.id), '[]') into v_lex from (
        select d.id, 0.3 * public.word_similarity(v_q, d.title) as rank
          from public.decisions d
         where d.tenant_id = v_tenant and (d.title operator(public.%) v_q or v_q operator(public.<%) d.title)
           and bullpen.decision_matches(d, v_project, v_statuses, (p_filter ->> 'since')::timestamptz, (p_filter ->> 'task_id')::uuid)
           and not exists (select 1 from jsonb_array_elements(v_lex) l where (l ->> 'id')::uuid = d.id)
         order by 2 desc, d.id limit p_depth) x;
    end if;
  else
    v_lex := '[]'::jsonb;
  end if;
  return v_lex;
end
$$;

/**
 * Hybrid recall over one kind of memory (note or decision). p carries q, top_k, min_similarity,
 * lexical_only, and — when the server embedded the query — query_embedding and embedding_model.
 * p_filter holds the filters (project, kind, tags; statuses, since, task) that both arms apply
 * inside their scans, so neither ranks a row the caller excluded nor runs short because of them.
 * Both arms rank up to `depth` rows; reciprocal rank fusion sums w/(k + rank) over the arms.
 * Returns {results: [{id, similarity, lexical_rank, score, ord}], mode, model, fallback_reason}.
 */
drop function if exists bullpen.memory_fuse(text, jsonb, uuid[], jsonb);
create or replace function bullpen.memory_fuse(p_type text, p jsonb, p_filter jsonb) returns jsonb
language plpgsql stable
as $$
declare
  v_q text := btrim(coalesce(p ->> 'q', ''));
  v_top int := greatest(1, least(coalesce((p ->> 'top_k')::int, 10), 100));
  v_min float8 := (p ->> 'min_similarity')::float8;
  v_fusion jsonb := coalesce(p -> 'fusion', '{}'::jsonb);
  v_k float8 := coalesce((v_fusion ->> 'k')::float8, 30);
  v_wv float8 := coalesce((v_fusion ->> 'vector_weight')::float8, 1);
  v_wl float8 := coalesce((v_fusion ->> 'lexical_weight')::float8, 1);
  v_depth int := greatest(v_top, least(coalesce((v_fusion ->> 'depth')::int, greatest(v_top * 5, 50)), 1000));
  v_tsq tsquery := bullpen.any_words_query(v_q);
  v_by_coverage boolean := coalesce((v_fusion ->> 'coverage')::boolean, true);
  v_vector boolean := p ? 'query_embedding' and jsonb_typeof(p -> 'query_embedding') = 'array'
                      and not coalesce((p ->> 'lexical_only')::boolean, false) and bullpen.memory_vectors_available();
  v_vec jsonb := '[]';
  v_coverage float8 := 1;
  v_lex jsonb;
  v_sims jsonb := '[]';
  v_mode text;
  v_reason text;
  v_results jsonb;
begin
  if v_vector then
    v_vec := bullpen.memory_vector_candidates(p_type, p -> 'query_embedding', p ->> 'embedding_model', v_depth, p_filter);
    -- while a new model is being rolled out, few rows have its vectors: the vector arm then
    -- speaks for that share of the workspace only, and its weight follows
    v_coverage := bullpen.memory_vector_coverage(p_type, p ->> 'embedding_model', p_filter);
    v_wv := v_wv * v_coverage;
  end if;
  if coalesce((v_fusion ->> 'vector_only')::boolean, false) then
    v_lex := '[]';
  else
    -- the word arm's candidates come from the one narrow path that filters the workspace itself,
    -- so the full-text GIN index answers it (bullpen.memory_word_candidates, docs/architecture.md)
    v_lex := bullpen.memory_word_candidates(p_type, v_q, v_depth, v_top, p_filter);
  end if;
  if coalesce((v_fusion ->> 'lexical_only_arm')::boolean, false) then
    v_vec := '[]';
  end if;
  -- similarity of the lexical-only hits too, so every row can report it and min_similarity applies
  if v_vector then
    v_sims := bullpen.memory_similarities(p_type, p -> 'query_embedding', p ->> 'embedding_model',
      array(select (e ->> 'id')::uuid from jsonb_array_elements(v_lex) e
            except select (ve ->> 'id')::uuid from jsonb_array_elements(v_vec) ve));
  end if;
  with vec as (
    -- an orthogonal or opposite vector is no match by meaning, however near it ranks
    select x.id, x.similarity, row_number() over (order by x.i) as r from (
      select (e ->> 'id')::uuid as id, (e ->> 'similarity')::float8 as similarity, i
        from jsonb_array_elements(v_vec) with ordinality as y(e, i)) x
     where x.similarity > 0
  ), lex as (
    select (e ->> 'id')::uuid as id, (e ->> 'rank')::float8 as rank, coalesce((e ->> 'coverage')::float8, 1) as coverage, i as r
      from jsonb_array_elements(v_lex) with ordinality as x(e, i)
  ), sims as (
    select (e ->> 'id')::uuid as id, (e ->> 'similarity')::float8 as similarity from jsonb_array_elements(v_sims) e
  ), fused as (
    select coalesce(vec.id, lex.id) as id,
           coalesce(vec.similarity, sims.similarity) as similarity,
           lex.rank as lexical_rank,
           -- a word match counts for the share of the query's words it covers: one common word out
           -- of six is weak evidence, whatever rank it reached in the word arm
           coalesce(v_wv / (v_k + vec.r), 0)
             + coalesce(v_wl * case when v_by_coverage then lex.coverage else 1 end / (v_k + lex.r), 0) as score,
           lex.coverage
      from vec full join lex on lex.id = vec.id
      left join sims on sims.id = lex.id
  ), kept as (
    select * from fused where v_min is null or similarity is null or similarity >= v_min
     order by score desc, id limit v_top
  )
  select coalesce(jsonb_agg(jsonb_build_object('id', id, 'similarity', round(similarity::numeric, 4),
           'lexical_rank', round(lexical_rank::numeric, 4), 'score', round(score::numeric, 6), 'coverage', round(coverage::numeric, 3),
           'ord', o) order by o), '[]')
    into v_results
    from (select kept.*, row_number() over (order by score desc, id) as o from kept) k;
  v_mode := case when not v_vector then 'lexical' when numnode(v_tsq) = 0 then 'semantic' else 'hybrid' end;
  v_reason := case
    when v_vector then null
    when coalesce((p ->> 'lexical_only')::boolean, false) then 'lexical_only was requested'
    when not bullpen.memory_vectors_available() then 'this database has no pgvector: full-text and trigram search only'
    when p ? 'embedder_error' then 'the embedder is unavailable: ' || (p ->> 'embedder_error')
    else 'the query was not embedded' end;
  return jsonb_build_object('results', v_results, 'mode', v_mode,
    'model', case when v_vector then p ->> 'embedding_model' end, 'fallback_reason', v_reason,
    'vector_coverage', case when v_vector then round(v_coverage::numeric, 3) end);
end
$$;

/**
 * Notes by meaning and by words (hybrid), or by words alone (lexical_only, or no pgvector).
 * Without q: the newest notes that match the filters.
 */
create or replace function public.knowledge_search(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_tenant uuid := bullpen.tenant_id();
  v_project uuid;
  v_kind text := p ->> 'kind';
  v_tags text[] := case when p ? 'tags' then bullpen.text_array(p -> 'tags') end;
  v_top int := greatest(1, least(coalesce((p ->> 'top_k')::int, 10), 100));
  v_fused jsonb;
  -- paging: the cursor is the offset into the ranked list. A hit by meaning alone below min_score
  -- (default 0.4) is no answer, so an unrelated query returns nothing (bench/retrieval.ts)
  v_cursor text := case when p ->> 'cursor' is not null then bullpen.cursor_arg(p) end;
  v_offset int := 0;
  v_min_score float8 := coalesce((p ->> 'min_score')::float8, 0.4);
  v_types text[] := case when p ? 'types' then bullpen.text_array(p -> 'types') end;
  v_page jsonb;
begin
  perform bullpen.require_actor();
  if v_cursor is not null then
    if v_cursor !~ '^\d{1,3}$' then
      perform bullpen.fail('VALIDATION_ERROR', 'cursor: not a next_cursor from this search', 'pass next_cursor back verbatim');
    end if;
    v_offset := v_cursor::int;
  end if;
  if p ->> 'project_id' is not null then
    v_project := (bullpen.resolve_project(p ->> 'project_id')).id;
  end if;
  if coalesce((p ->> 'duplicates')::boolean, false) then
    return bullpen.note_duplicate_pairs(p, v_project);
  end if;
  if v_types is not null and nullif(btrim(p ->> 'q'), '') is not null then
    -- notes, guidelines, patterns, decisions and source chunks in one ranked list (0031_sources)
    return bullpen.knowledge_search_types(p, v_project, v_types, v_offset, v_top, v_min_score);
  end if;
  if nullif(btrim(p ->> 'q'), '') is null then
    select coalesce(jsonb_agg(bullpen.note_json(n) order by n.updated_at desc, n.id desc), '[]'::jsonb) into v_page from (
      select * from public.knowledge_notes n
       where n.tenant_id = v_tenant and bullpen.note_matches(n, v_project, v_kind, v_tags)
       order by n.updated_at desc, n.id desc offset v_offset limit v_top + 1) n;
    return jsonb_build_object('results', coalesce((select jsonb_agg(e order by i) from jsonb_array_elements(v_page) with ordinality x(e, i) where i <= v_top), '[]'),
      'mode', 'lexical', 'model', null, 'fallback_reason', 'no query: newest notes first',
      'next_cursor', case when jsonb_array_length(v_page) > v_top then encode(convert_to((v_offset + v_top)::text, 'utf8'), 'base64') end);
  end if;
  v_fused := bullpen.memory_fuse('note', p || jsonb_build_object('top_k', least(v_offset + v_top + 1, 100)),
    jsonb_build_object('project_id', v_project, 'kind', v_kind, 'tags', to_jsonb(v_tags)));
  select coalesce(jsonb_agg(bullpen.note_json(n) || jsonb_build_object(
           'similarity', r.similarity, 'lexical_rank', r.lexical_rank, 'score', r.score) order by r.o), '[]'::jsonb)
    into v_page
    from (select r.*, row_number() over (order by r.ord) as o
            from jsonb_to_recordset(v_fused -> 'results') as r(id uuid, similarity float8, lexical_rank float8, score float8, coverage float8, ord int)
           -- min_score: a hit must be this near by meaning, or matched by enough of the query's words
           -- (bullpen.search_keeps, 0031_sources)
           where v_fused ->> 'mode' = 'lexical' or bullpen.search_keeps(r.similarity, r.lexical_rank, r.coverage, v_min_score)) r
    join public.knowledge_notes n on n.tenant_id = v_tenant and n.id = r.id
   where r.o > v_offset and r.o <= v_offset + v_top + 1;
  return jsonb_build_object(
    'results', coalesce((select jsonb_agg(e order by i) from jsonb_array_elements(v_page) with ordinality x(e, i) where i <= v_top), '[]'),
    'mode', v_fused ->> 'mode', 'model', v_fused -> 'model', 'fallback_reason', v_fused -> 'fallback_reason',
    'next_cursor', case when jsonb_array_length(v_page) > v_top then encode(convert_to((v_offset + v_top)::text, 'utf8'), 'base64') end);
end
$$;

-- Without pgvector these answer with nothing; 0010_memory_vector.sql replaces them.
create or replace function bullpen.memory_vector_candidates(p_type text, p_embedding jsonb, p_model text, p_depth int, p_filter jsonb)
returns jsonb
language plpgsql stable
as $$ begin return '[]'::jsonb; end $$;

create or replace function bullpen.memory_similarities(p_type text, p_embedding jsonb, p_model text, p_ids uuid[])
returns jsonb
language plpgsql stable
as $$ begin return '[]'::jsonb; end $$;

drop function if exists bullpen.memory_vector_coverage(text, text, jsonb);
create or replace function bullpen.memory_vector_coverage(p_type text, p_model text, p_filter jsonb)
returns float8
language plpgsql stable
as $$ begin return 0; end $$;

-- ---------------------------------------------------------------------------------------------
-- Global search: keywords (full text + trigram) over every kind of object, never by meaning.
-- ---------------------------------------------------------------------------------------------

/** Handoffs (the coordination room's table) that match the query, ranked like the other kinds. */
create or replace function bullpen.search_handoffs(p_q text, p_tsq tsquery, p_limit int) returns jsonb
language sql stable
as $$
  select coalesce(jsonb_agg(x), '[]'::jsonb) from (
    select 'handoff' as object_type, h.id as object_id, h.title, null::text as ref, h.related_project_id as project_id,
           h.body as text,
           pg_catalog.ts_rank_cd(to_tsvector('english'::regconfig, h.title || ' ' || h.body), p_tsq, 32)
             + 0.5 * public.similarity(h.title, p_q) as rank
      from public.handoffs h
     where h.tenant_id = (select bullpen.tenant_id())
       and (to_tsvector('english'::regconfig, h.title || ' ' || h.body) @@ p_tsq or h.title operator(public.%) p_q)
     order by rank desc limit p_limit) x
$$;

create or replace function public.search(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_q text := btrim(coalesce(p ->> 'q', ''));
  v_limit int := greatest(1, least(coalesce((p ->> 'limit')::int, 20), 100));
  v_types text[] := coalesce(nullif(bullpen.text_array(p -> 'types'), '{}'),
                             array['project', 'task', 'decision', 'note', 'comment', 'handoff', 'skill']);
  v_tsq tsquery := bullpen.any_words_query(v_q);
  v_ref text[] := regexp_match(v_q, '^([A-Za-z][A-Za-z0-9_]*)-([0-9]{1,9})$');
  v_rows jsonb;
begin
  perform bullpen.require_actor();
  if v_q = '' then
    perform bullpen.fail('VALIDATION_ERROR', 'q: write at least one word', 'search by keywords; use knowledge_search to search notes by meaning');
  end if;
  with hits as (
    select 'project' as object_type, pr.id as object_id, pr.title, pr.key as ref, pr.id as project_id,
           coalesce(pr.summary, '') || ' ' || coalesce(pr.description, '') as text,
           pg_catalog.ts_rank_cd(to_tsvector('english'::regconfig, pr.title || ' ' || coalesce(pr.summary, '') || ' ' || coalesce(pr.description, '')), v_tsq, 32)
             + 0.5 * public.similarity(pr.title, v_q) + case when lower(pr.key) = lower(v_q) then 2 else 0 end as rank
      from public.projects pr
     where 'project' = any (v_types) and pr.tenant_id = bullpen.tenant_id()
       and (to_tsvector('english'::regconfig, pr.title || ' ' || coalesce(pr.summary, '') || ' ' || coalesce(pr.description, '')) @@ v_tsq
            or pr.title operator(public.%) v_q or lower(pr.key) = lower(v_q))
    union all
    select * from (
      select 'task', t.id, t.title, pr.key || '-' || t.seq, t.project_id, t.body,
             pg_catalog.ts_rank_cd(to_tsvector('english'::regconfig, t.title || ' ' || t.body), v_tsq, 32)
               + 0.5 * public.similarity(t.title, v_q)
               + case when v_ref is not null and lower(pr.key) = lower(v_ref[1]) and t.seq = v_ref[2]::int then 2 else 0 end
        from public.tasks t join public.projects pr on pr.tenant_id = t.tenant_id and pr.id = t.project_id
       where 'task' = any (v_types) and t.tenant_id = bullpen.tenant_id()
         and (to_tsvector('english'::regconfig, t.title || ' ' || t.body) @@ v_tsq or t.title operator(public.%) v_q
              or (v_ref is not null and lower(pr.key) = lower(v_ref[1]) and t.seq = v_ref[2]::int))
       order by 7 desc limit v_limit) t
    union all
    select * from (
      select 'decision', d.id, d.title, null::text, d.project_id, d.choice || ' ' || coalesce(d.rationale, ''),
             pg_catalog.ts_rank_cd(d.search, v_tsq, 32) + 0.5 * public.similarity(d.title, v_q)
               - case when d.status = 'superseded' then 0.1 else 0 end
        from public.decisions d
       where 'decision' = any (v_types) and d.tenant_id = bullpen.tenant_id()
         and (d.search @@ v_tsq or d.title operator(public.%) v_q)
       order by 7 desc limit v_limit) d
    union all
    select * from (
      select 'note', n.id, n.title, null::text, n.project_id, n.body,
             pg_catalog.ts_rank_cd(n.search, v_tsq, 32) + 0.5 * public.similarity(n.title, v_q)
        from public.knowledge_notes n
       where 'note' = any (v_types) and n.tenant_id = bullpen.tenant_id() and (n.expires_at is null or n.expires_at > now())
         and (n.search @@ v_tsq or n.title operator(public.%) v_q)
       order by 7 desc limit v_limit) n
    union all
    select * from (
      select 'comment', c.id,
             'Comment on ' || case c.object_type when 'task' then coalesce((select pr.key || '-' || t.seq || ' ' || t.title
                 from public.tasks t join public.projects pr on pr.tenant_id = t.tenant_id and pr.id = t.project_id
                where t.tenant_id = c.tenant_id and t.id = c.object_id), 'a task')
               when 'project' then coalesce((select pr.key from public.projects pr where pr.tenant_id = c.tenant_id and pr.id = c.object_id), 'a project')
               else c.object_type end,
             case c.object_type when 'task' then (select pr.key || '-' || t.seq
                 from public.tasks t join public.projects pr on pr.tenant_id = t.tenant_id and pr.id = t.project_id
                where t.tenant_id = c.tenant_id and t.id = c.object_id)
               when 'project' then (select pr.key from public.projects pr where pr.tenant_id = c.tenant_id and pr.id = c.object_id) end,
             case c.object_type when 'task' then (select t.project_id from public.tasks t where t.tenant_id = c.tenant_id and t.id = c.object_id)
               when 'project' then c.object_id end,
             c.body,
             pg_catalog.ts_rank_cd(to_tsvector('english'::regconfig, c.body), v_tsq, 32) * 0.8
        from public.comments c
       where 'comment' = any (v_types) and c.tenant_id = bullpen.tenant_id()
         and to_tsvector('english'::regconfig, c.body) @@ v_tsq
       order by 7 desc limit v_limit) c
    union all
    select * from (
      select 'skill', s.id, s.name || ' (' || s.slug || ')', s.slug, s.project_id, s.description,
             pg_catalog.ts_rank_cd(s.search, v_tsq, 32) + 0.5 * greatest(public.similarity(s.slug, v_q), public.similarity(s.name, v_q))
        from public.skills s
       where 'skill' = any (v_types) and s.tenant_id = bullpen.tenant_id() and s.status = 'active'
         and (s.search @@ v_tsq or s.slug operator(public.%) v_q or s.name operator(public.%) v_q)
       order by 7 desc limit v_limit) s
    union all
    select h ->> 'object_type', (h ->> 'object_id')::uuid, h ->> 'title', h ->> 'ref', (h ->> 'project_id')::uuid,
           h ->> 'text', (h ->> 'rank')::float8
      from jsonb_array_elements(case when 'handoff' = any (v_types) then bullpen.search_handoffs(v_q, v_tsq, v_limit) else '[]'::jsonb end) h
  ), top as (
    select * from hits order by rank desc, object_type, object_id limit v_limit
  )
  select coalesce(jsonb_agg(jsonb_build_object(
           'object_type', object_type, 'object_id', object_id, 'title', title, 'ref', ref, 'project_id', project_id,
           'snippet', case when numnode(v_tsq) > 0 and text <> '' and to_tsvector('english'::regconfig, text) @@ v_tsq
                        then pg_catalog.ts_headline('english'::regconfig, left(text, 20000), v_tsq,
                               'StartSel=«, StopSel=», MaxWords=30, MinWords=12, MaxFragments=1')
                        else left(regexp_replace(coalesce(text, ''), '\s+', ' ', 'g'), 200) end,
           'rank', round(rank::numeric, 4)) order by rank desc, object_type, object_id), '[]'::jsonb)
    into v_rows
    from top;
  return jsonb_build_object('results', v_rows, 'q', v_q);
end
$$;

-- ---------------------------------------------------------------------------------------------
-- Skills
-- ---------------------------------------------------------------------------------------------

create or replace function bullpen.skill_json(s public.skills, p_body boolean default true) returns jsonb
language sql stable
as $$
  select jsonb_build_object('id', s.id, 'slug', s.slug, 'name', s.name, 'description', s.description,
    'project_id', s.project_id,
    'project_key', (select pr.key from public.projects pr where pr.tenant_id = s.tenant_id and pr.id = s.project_id),
    'scope', case when s.project_id is null then 'workspace' else 'project' end,
    'tags', to_jsonb(s.tags), 'status', s.status, 'version', s.version, 'content_hash', s.content_hash,
    'size_bytes', octet_length(s.body), 'created_by_actor_id', s.created_by_actor_id,
    'updated_by_actor_id', s.updated_by_actor_id, 'created_at', s.created_at, 'updated_at', s.updated_at)
    || case when p_body then jsonb_build_object('body', s.body) else '{}'::jsonb end
$$;

create or replace function public.skill_upsert(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_project public.projects;
  v_skill public.skills;
  v_new public.skills;
  v_slug text := p ->> 'slug';
  v_changed text[] := '{}';
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('skill_upsert', p);
  if v_replay is not null then
    return v_replay;
  end if;
  if v_slug is null or v_slug !~ '^[a-z0-9]+(-[a-z0-9]+)*$' or char_length(v_slug) > 64 then
    perform bullpen.fail('VALIDATION_ERROR', format('slug: %s breaks the skill name rules: lowercase a-z, 0-9 and single hyphens, 1-64 characters, no leading or trailing hyphen', coalesce(v_slug, 'null')),
      'e.g. "release-checklist"');
  end if;
  if p ->> 'project_id' is not null then
    v_project := bullpen.resolve_project(p ->> 'project_id');
  end if;
  select * into v_skill from public.skills s
   where s.tenant_id = bullpen.tenant_id() and s.project_id is not distinct from v_project.id and s.slug = v_slug
   for update;
  if v_skill.id is null then
    if p ? 'expected_version' and (p ->> 'expected_version')::int <> 0 then
      perform bullpen.fail('CONFLICT', format('skill %s does not exist here, so it is not at version %s', v_slug, p ->> 'expected_version'),
        'it may have been created in another scope: check skill_list (with project_id for project skills)');
    end if;
    if nullif(btrim(p ->> 'description'), '') is null then
      perform bullpen.fail('VALIDATION_ERROR', 'description: required to create a skill (when to use it, 1 KB at most)',
        'send description and body to create; later calls may change either alone');
    end if;
    if nullif(btrim(p ->> 'body'), '') is null then
      perform bullpen.fail('VALIDATION_ERROR', 'body: required to create a skill (the markdown playbook, 64 KB at most)',
        'send description and body to create; later calls may change either alone');
    end if;
    insert into public.skills (tenant_id, project_id, slug, name, description, body, tags, status, version, content_hash,
                               created_by_actor_id, updated_by_actor_id)
    values (bullpen.tenant_id(), v_project.id, v_slug, coalesce(p ->> 'name', v_slug), p ->> 'description', p ->> 'body',
            array(select distinct unnest(bullpen.text_array(p -> 'tags'))), coalesce(p ->> 'status', 'active'), 1,
            bullpen.memory_hash(p ->> 'body'), bullpen.actor_id(), bullpen.actor_id())
    returning * into v_new;
    perform bullpen.log('skill.created', 'skill', v_new.id, v_new.project_id, format('%s v1', v_new.slug));
    return bullpen.idem_finish(p, jsonb_build_object('skill', bullpen.skill_json(v_new), 'created', true,
      'changed', jsonb_build_array('slug', 'name', 'description', 'body', 'tags', 'status'), 'previous_version', null));
  end if;
  if p ? 'expected_version' and (p ->> 'expected_version')::int <> v_skill.version then
    perform bullpen.fail('CONFLICT', format('skill %s is at version %s, not %s: someone changed it since you read it',
        v_slug, v_skill.version, p ->> 'expected_version'),
      're-read it with skill_get, merge your change into the current body, and send expected_version again',
      jsonb_build_object('current_version', v_skill.version, 'updated_by_actor_id', v_skill.updated_by_actor_id,
                         'updated_at', v_skill.updated_at));
  end if;
  v_new := v_skill;
  v_new.name := coalesce(p ->> 'name', v_skill.name);
  v_new.description := coalesce(p ->> 'description', v_skill.description);
  v_new.body := coalesce(p ->> 'body', v_skill.body);
  v_new.status := coalesce(p ->> 'status', v_skill.status);
  if p ? 'tags' then
    v_new.tags := array(select distinct unnest(bullpen.text_array(p -> 'tags')));
  end if;
  if v_new.name is distinct from v_skill.name then v_changed := array_append(v_changed, 'name'); end if;
  if v_new.description is distinct from v_skill.description then v_changed := array_append(v_changed, 'description'); end if;
  if v_new.body is distinct from v_skill.body then v_changed := array_append(v_changed, 'body'); end if;
  if v_new.tags is distinct from v_skill.tags then v_changed := array_append(v_changed, 'tags'); end if;
  if v_new.status is distinct from v_skill.status then v_changed := array_append(v_changed, 'status'); end if;
  if cardinality(v_changed) = 0 then
    return bullpen.idem_finish(p, jsonb_build_object('skill', bullpen.skill_json(v_skill), 'created', false,
      'changed', '[]'::jsonb, 'previous_version', v_skill.version));
  end if;
  update public.skills s
     set name = v_new.name, description = v_new.description, body = v_new.body, tags = v_new.tags, status = v_new.status,
         version = s.version + 1, content_hash = bullpen.memory_hash(v_new.body), updated_by_actor_id = bullpen.actor_id(),
         updated_at = now()
   where s.tenant_id = v_skill.tenant_id and s.id = v_skill.id
  returning * into v_new;
  perform bullpen.log(case when v_new.status = 'archived' and v_skill.status <> 'archived' then 'skill.archived' else 'skill.updated' end,
    'skill', v_new.id, v_new.project_id, format('%s v%s', v_new.slug, v_new.version),
    jsonb_build_object('changed', to_jsonb(v_changed), 'version', v_new.version));
  return bullpen.idem_finish(p, jsonb_build_object('skill', bullpen.skill_json(v_new), 'created', false,
    'changed', to_jsonb(v_changed), 'previous_version', v_skill.version));
end
$$;

/**
 * One skill by slug or id. With project_id, a slug finds the project's skill first and the
 * workspace one when the project has none (shadowing); without it, the workspace skill.
 */
create or replace function public.skill_get(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_project public.projects;
  v_skill public.skills;
  v_shadowed uuid;
  v_elsewhere text;
begin
  perform bullpen.require_actor();
  if (p ->> 'slug' is null) = (p ->> 'skill_id' is null) then
    perform bullpen.fail('VALIDATION_ERROR', 'slug, skill_id: pass exactly one of them', 'skill_list shows slugs and ids');
  end if;
  if p ->> 'project_id' is not null then
    v_project := bullpen.resolve_project(p ->> 'project_id');
  end if;
  if p ->> 'skill_id' is not null then
    select * into v_skill from public.skills s where s.tenant_id = bullpen.tenant_id() and s.id = bullpen.uuid_arg(p, 'skill_id');
    if v_skill.id is null then
      perform bullpen.fail('NOT_FOUND', format('skill_id: no skill %s in this workspace', p ->> 'skill_id'), 'list skills with skill_list');
    end if;
  else
    select * into v_skill from public.skills s
     where s.tenant_id = bullpen.tenant_id() and s.slug = p ->> 'slug'
       and (s.project_id is null or s.project_id = v_project.id)
     order by s.project_id nulls last limit 1;
    if v_skill.id is null then
      select string_agg(pr.key, ', ' order by pr.key) into v_elsewhere
        from public.skills s join public.projects pr on pr.tenant_id = s.tenant_id and pr.id = s.project_id
       where s.tenant_id = bullpen.tenant_id() and s.slug = p ->> 'slug';
      perform bullpen.fail('NOT_FOUND', format('slug: no skill %s %s', p ->> 'slug',
          case when v_project.id is null then 'in the workspace library' else 'in project ' || v_project.key || ' or the workspace library' end),
        case when v_elsewhere is not null then format('project %s has one: pass project_id', v_elsewhere)
             else 'list skills with skill_list' end);
    end if;
    if v_skill.project_id is not null then
      select s.id into v_shadowed from public.skills s
       where s.tenant_id = v_skill.tenant_id and s.project_id is null and s.slug = v_skill.slug;
    end if;
  end if;
  return jsonb_build_object('skill', bullpen.skill_json(v_skill), 'shadows_skill_id', v_shadowed);
end
$$;

create or replace function public.skill_list(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_project public.projects;
  v_status text := coalesce(p ->> 'status', 'active');
  v_body boolean := coalesce((p ->> 'include_body')::boolean, false);
  v_q text := nullif(btrim(p ->> 'q'), '');
  v_limit int := greatest(1, least(coalesce((p ->> 'limit')::int, 100), 500));
  v_cursor text := bullpen.cursor_arg(p);
  v_rows jsonb;
  v_more boolean;
  v_last text;
begin
  perform bullpen.require_actor();
  if p ->> 'project_id' is not null then
    v_project := bullpen.resolve_project(p ->> 'project_id');
  end if;
  with visible as (
    -- a project's skill shadows the workspace skill of the same slug
    select distinct on (s.slug) s,
           (select w.id from public.skills w where s.project_id is not null and w.tenant_id = s.tenant_id
             and w.project_id is null and w.slug = s.slug) as shadows
      from public.skills s
     where s.tenant_id = bullpen.tenant_id()
       and (s.project_id is null or s.project_id = v_project.id)
     order by s.slug, s.project_id nulls last
  ), page as (
    select v.s, v.shadows, (v.s).slug as sort_key from visible v
     where (v.s).status = v_status
       and (p ->> 'tag' is null or (p ->> 'tag') = any ((v.s).tags))
       and (v_q is null or (v.s).search @@ websearch_to_tsquery('english'::regconfig, v_q)
            or (v.s).slug ilike '%' || bullpen.like_escape(v_q) || '%' or (v.s).name ilike '%' || bullpen.like_escape(v_q) || '%'
            or (v.s).description ilike '%' || bullpen.like_escape(v_q) || '%')
       and (v_cursor is null or (v.s).slug > v_cursor)
     order by sort_key limit v_limit + 1
  ), numbered as (
    select page.*, row_number() over (order by sort_key) as rn from page
  )
  select coalesce(jsonb_agg(bullpen.skill_json(s, v_body) || jsonb_build_object('shadows_skill_id', shadows)
           order by sort_key) filter (where rn <= v_limit), '[]'::jsonb),
         max(sort_key) filter (where rn = v_limit),
         count(*) > v_limit
    into v_rows, v_last, v_more
    from numbered;
  return jsonb_build_object('skills', v_rows, 'project_id', v_project.id,
    'next_cursor', case when v_more then encode(convert_to(v_last, 'utf8'), 'base64') end);
end
$$;

-- ---------------------------------------------------------------------------------------------
-- Room hooks: task_get and project_brief
-- ---------------------------------------------------------------------------------------------

/** The decisions and live notes linked to a task (related_task_ids), newest first. */
create or replace function bullpen.task_related_memory(t public.tasks) returns jsonb
language plpgsql stable
as $$
#variable_conflict use_column
begin
  return (
    select jsonb_build_object(
        'decisions', (select coalesce(jsonb_agg(jsonb_build_object('id', d.id, 'title', d.title, 'choice', d.choice,
                         'status', d.status, 'superseded_by', d.superseded_by, 'created_at', d.created_at)
                         order by d.created_at desc), '[]'::jsonb)
                        from public.decision_tasks dt
                        join public.decisions d on d.tenant_id = dt.tenant_id and d.id = dt.decision_id
                       where dt.tenant_id = t.tenant_id and dt.task_id = t.id),
        'notes', (select coalesce(jsonb_agg(jsonb_build_object('id', n.id, 'title', n.title, 'kind', n.kind,
                     'tags', to_jsonb(n.tags), 'expires_at', n.expires_at, 'updated_at', n.updated_at)
                     order by n.updated_at desc), '[]'::jsonb)
                    from public.note_tasks nt
                    join public.knowledge_notes n on n.tenant_id = nt.tenant_id and n.id = nt.note_id
                   where nt.tenant_id = t.tenant_id and nt.task_id = t.id and (n.expires_at is null or n.expires_at > now())))
  );
end
$$;

/** The brief's memory: current decisions (superseded ones left out) and knowledge note titles. */
create or replace function bullpen.brief_memory(pr public.projects, p jsonb) returns jsonb
language plpgsql stable
as $$
#variable_conflict use_column
begin
  return (
    select jsonb_build_object(
        'recent_decisions', (select coalesce(jsonb_agg(x.j order by x.created_at desc), '[]'::jsonb) from (
            select jsonb_build_object('id', d.id, 'title', d.title, 'choice', d.choice, 'status', d.status,
                     'supersedes_decision_id', d.supersedes_decision_id, 'created_at', d.created_at) as j, d.created_at
              from public.decisions d
             where d.tenant_id = pr.tenant_id and d.project_id = pr.id and d.status <> 'superseded'
             order by d.created_at desc
             limit greatest(0, least(coalesce((p ->> 'max_decisions')::int, 10), 50))) x),
        'knowledge', (select coalesce(jsonb_agg(x.j order by x.updated_at desc), '[]'::jsonb) from (
            select jsonb_build_object('id', n.id, 'title', n.title, 'kind', n.kind, 'tags', to_jsonb(n.tags),
                     'expires_at', n.expires_at, 'updated_at', n.updated_at) as j, n.updated_at
              from public.knowledge_notes n
             where n.tenant_id = pr.tenant_id and n.project_id = pr.id and (n.expires_at is null or n.expires_at > now())
             order by n.updated_at desc
             limit greatest(0, least(coalesce((p ->> 'max_knowledge')::int, 20), 100))) x))
  );
end
$$;

-- ---------------------------------------------------------------------------------------------
-- Ownership and execute rights, one function at a time.
-- ---------------------------------------------------------------------------------------------

alter function public.decision_log(jsonb) owner to bullpen_writer;
alter function public.decision_set_status(jsonb) owner to bullpen_writer;
alter function public.decision_query(jsonb) owner to bullpen_writer;
alter function public.knowledge_write(jsonb) owner to bullpen_writer;
alter function public.knowledge_update(jsonb) owner to bullpen_writer;
alter function public.knowledge_search(jsonb) owner to bullpen_writer;
alter function public.search(jsonb) owner to bullpen_writer;
alter function public.skill_upsert(jsonb) owner to bullpen_writer;
alter function public.skill_get(jsonb) owner to bullpen_writer;
alter function public.skill_list(jsonb) owner to bullpen_writer;

revoke all on function public.decision_log(jsonb) from public, anon;
grant execute on function public.decision_log(jsonb) to authenticated, service_role;
revoke all on function public.decision_set_status(jsonb) from public, anon;
grant execute on function public.decision_set_status(jsonb) to authenticated, service_role;
revoke all on function public.decision_query(jsonb) from public, anon;
grant execute on function public.decision_query(jsonb) to authenticated, service_role;
revoke all on function public.knowledge_write(jsonb) from public, anon;
grant execute on function public.knowledge_write(jsonb) to authenticated, service_role;
revoke all on function public.knowledge_update(jsonb) from public, anon;
grant execute on function public.knowledge_update(jsonb) to authenticated, service_role;
revoke all on function public.knowledge_search(jsonb) from public, anon;
grant execute on function public.knowledge_search(jsonb) to authenticated, service_role;
revoke all on function public.search(jsonb) from public, anon;
grant execute on function public.search(jsonb) to authenticated, service_role;
revoke all on function public.skill_upsert(jsonb) from public, anon;
grant execute on function public.skill_upsert(jsonb) to authenticated, service_role;
revoke all on function public.skill_get(jsonb) from public, anon;
grant execute on function public.skill_get(jsonb) to authenticated, service_role;
revoke all on function public.skill_list(jsonb) from public, anon;
grant execute on function public.skill_list(jsonb) to authenticated, service_role;

revoke all on function bullpen.note_similar(public.knowledge_notes, jsonb) from public, anon, authenticated;
grant execute on function bullpen.note_similar(public.knowledge_notes, jsonb) to bullpen_writer, service_role;
revoke all on function bullpen.note_duplicate_pairs(jsonb, uuid) from public, anon, authenticated;
grant execute on function bullpen.note_duplicate_pairs(jsonb, uuid) to bullpen_writer, service_role;
revoke all on function bullpen.memory_hash(text) from public, anon, authenticated;
grant execute on function bullpen.memory_hash(text) to bullpen_writer, service_role;
revoke all on function bullpen.decision_embed_text(text, text, text, text, text[]) from public, anon, authenticated;
grant execute on function bullpen.decision_embed_text(text, text, text, text, text[]) to bullpen_writer, service_role;
revoke all on function bullpen.note_embed_text(text, text) from public, anon, authenticated;
grant execute on function bullpen.note_embed_text(text, text) to bullpen_writer, service_role;
revoke all on function bullpen.memory_vectors_available() from public, anon, authenticated;
grant execute on function bullpen.memory_vectors_available() to bullpen_writer, service_role;
revoke all on function bullpen.memory_wake(timestamptz) from public, anon, authenticated;
grant execute on function bullpen.memory_wake(timestamptz) to bullpen_writer, service_role;
revoke all on function bullpen.any_words_query(text) from public, anon, authenticated;
grant execute on function bullpen.any_words_query(text) to bullpen_writer, service_role;
revoke all on function bullpen.timestamptz_arg(jsonb, text) from public, anon, authenticated;
grant execute on function bullpen.timestamptz_arg(jsonb, text) to bullpen_writer, service_role;
revoke all on function bullpen.resolve_decision(text, text) from public, anon, authenticated;
grant execute on function bullpen.resolve_decision(text, text) to bullpen_writer, service_role;
revoke all on function bullpen.resolve_note(text, text) from public, anon, authenticated;
grant execute on function bullpen.resolve_note(text, text) to bullpen_writer, service_role;
revoke all on function bullpen.memory_task_ids(jsonb, text) from public, anon, authenticated;
grant execute on function bullpen.memory_task_ids(jsonb, text) to bullpen_writer, service_role;
revoke all on function bullpen.memory_tasks_json(uuid[]) from public, anon, authenticated;
grant execute on function bullpen.memory_tasks_json(uuid[]) to bullpen_writer, service_role;
revoke all on function bullpen.normalize_options(jsonb) from public, anon, authenticated;
grant execute on function bullpen.normalize_options(jsonb) to bullpen_writer, service_role;
revoke all on function bullpen.debate_json(public.decisions) from public, anon, authenticated;
grant execute on function bullpen.debate_json(public.decisions) to bullpen_writer, service_role;
revoke all on function bullpen.decision_json(public.decisions) from public, anon, authenticated;
grant execute on function bullpen.decision_json(public.decisions) to bullpen_writer, service_role;
revoke all on function bullpen.note_json(public.knowledge_notes, boolean) from public, anon, authenticated;
grant execute on function bullpen.note_json(public.knowledge_notes, boolean) to bullpen_writer, service_role;
revoke all on function bullpen.decisions_guard() from public, anon, authenticated;
grant execute on function bullpen.decisions_guard() to bullpen_writer, service_role;
revoke all on function bullpen.decision_matches(public.decisions, uuid, text[], timestamptz, uuid) from public, anon, authenticated;
grant execute on function bullpen.decision_matches(public.decisions, uuid, text[], timestamptz, uuid) to bullpen_writer, service_role;
revoke all on function bullpen.note_matches(public.knowledge_notes, uuid, text, text[]) from public, anon, authenticated;
grant execute on function bullpen.note_matches(public.knowledge_notes, uuid, text, text[]) to bullpen_writer, service_role;
revoke all on function bullpen.lexeme_coverage(tsvector, text[]) from public, anon, authenticated;
grant execute on function bullpen.lexeme_coverage(tsvector, text[]) to bullpen_writer, service_role;
revoke all on function bullpen.memory_fuse(text, jsonb, jsonb) from public, anon, authenticated;
grant execute on function bullpen.memory_fuse(text, jsonb, jsonb) to bullpen_writer, service_role;
-- the word arm's RLS-free path: the RPCs' role alone (not service_role, not the API roles); it keeps
-- the migrating role as its owner on purpose (see its comment)
revoke all on function bullpen.memory_word_candidates(text, text, int, int, jsonb) from public, anon, authenticated, service_role;
grant execute on function bullpen.memory_word_candidates(text, text, int, int, jsonb) to bullpen_writer;
revoke all on function bullpen.memory_vector_candidates(text, jsonb, text, int, jsonb) from public, anon, authenticated;
grant execute on function bullpen.memory_vector_candidates(text, jsonb, text, int, jsonb) to bullpen_writer, service_role;
revoke all on function bullpen.memory_similarities(text, jsonb, text, uuid[]) from public, anon, authenticated;
grant execute on function bullpen.memory_similarities(text, jsonb, text, uuid[]) to bullpen_writer, service_role;
revoke all on function bullpen.memory_vector_coverage(text, text, jsonb) from public, anon, authenticated;
grant execute on function bullpen.memory_vector_coverage(text, text, jsonb) to bullpen_writer, service_role;
revoke all on function bullpen.search_handoffs(text, tsquery, int) from public, anon, authenticated;
grant execute on function bullpen.search_handoffs(text, tsquery, int) to bullpen_writer, service_role;
revoke all on function bullpen.skill_json(public.skills, boolean) from public, anon, authenticated;
grant execute on function bullpen.skill_json(public.skills, boolean) to bullpen_writer, service_role;

comment on function public.decision_log(jsonb) is 'Appends a decision (optionally superseding one and linking tasks); logs decision.logged and decision.superseded.';
comment on function public.decision_query(jsonb) is 'Lists decisions newest first, or recalls them by meaning and words (semantic:true).';
comment on function public.knowledge_write(jsonb) is 'Writes a note; the embedding follows in the background (embedding_status pending).';
comment on function public.knowledge_search(jsonb) is 'Finds notes by meaning fused with full-text rank (hybrid), or by words alone.';
comment on function public.search(jsonb) is 'Keyword search across projects, tasks, decisions, notes, comments, handoffs and skills.';
comment on function public.skill_upsert(jsonb) is 'Creates or updates a skill by slug and scope; expected_version guards concurrent edits.';

-- Execute rights of the room hooks this file owns (called from the tasks room's RPCs).
revoke all on function bullpen.task_related_memory(public.tasks) from public, anon, authenticated;
grant execute on function bullpen.task_related_memory(public.tasks) to bullpen_writer, service_role;
revoke all on function bullpen.brief_memory(public.projects, jsonb) from public, anon, authenticated;
grant execute on function bullpen.brief_memory(public.projects, jsonb) to bullpen_writer, service_role;
