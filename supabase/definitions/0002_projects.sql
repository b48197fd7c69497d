-- Projects: JSON shape, resolution by key or uuid, project_create and project_update.
-- Re-applied on every upgrade that changes any definition file: every statement here must be
-- safe to run again (create or replace).

create or replace trigger projects_touch before update on public.projects
  for each row execute function bullpen.touch_updated_at();

create or replace function bullpen.project_json(pr public.projects) returns jsonb
language sql stable
as $$
  select (to_jsonb(pr) - 'tenant_id' - 'task_seq') || jsonb_build_object('task_count', pr.task_seq)
$$;

/** A project by uuid or key (case-insensitive), inside the caller's tenant; NOT_FOUND otherwise. */
create or replace function bullpen.resolve_project(p_ref text, p_field text default 'project_id') returns public.projects
language plpgsql stable
as $$
declare
  v public.projects;
begin
  if p_ref is null then
    perform bullpen.fail('VALIDATION_ERROR', format('%s is required', p_field));
  end if;
  if p_ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    select * into v from public.projects where tenant_id = (select bullpen.tenant_id()) and id = p_ref::uuid;
  else
    select * into v from public.projects where tenant_id = (select bullpen.tenant_id()) and lower(key) = lower(p_ref);
  end if;
  if v.id is null then
    perform bullpen.fail('NOT_FOUND', format('%s: no project %s in this workspace', p_field, p_ref),
      'list projects with project_query');
  end if;
  return v;
end
$$;

-- A parent chain must end: walking up from the proposed parent must never reach the project.
create or replace function bullpen.assert_project_parent(p_project_id uuid, p_parent_id uuid) returns void
language plpgsql stable
as $$
begin
  if p_parent_id is null then
    return;
  end if;
  if p_parent_id = p_project_id or exists (
    with recursive up as (
      select parent_project_id as id, 1 as depth from public.projects
       where tenant_id = (select bullpen.tenant_id()) and id = p_parent_id
      union all
      select pr.parent_project_id, up.depth + 1 from public.projects pr
        join up on pr.tenant_id = (select bullpen.tenant_id()) and pr.id = up.id
       where up.depth < 100
    )
    select 1 from up where id = p_project_id
  ) then
    perform bullpen.fail('CYCLE_DETECTED', 'parent_project_id would make the project its own ancestor',
      'choose a parent outside this project''s subtree');
  end if;
end
$$;

-- A key from the title: initials of several words, else the first letters; a number on a clash.
create or replace function bullpen.derive_project_key(p_title text) returns text
language plpgsql stable
as $$
declare
  v_words text[] := regexp_split_to_array(upper(regexp_replace(p_title, '[^A-Za-z0-9 ]', ' ', 'g')), '\s+');
  v_base text;
  v_key text;
  n int := 1;
begin
  v_words := array_remove(v_words, '');
  if coalesce(array_length(v_words, 1), 0) >= 2 then
    select string_agg(left(w, 1), '') into v_base from unnest(v_words[1:4]) w;
  else
    v_base := left(coalesce(v_words[1], 'P'), 4);
  end if;
  if v_base !~ '^[A-Z]' then
    v_base := 'P' || v_base;
  end if;
  v_base := left(v_base, 12);
  v_key := v_base;
  while exists (select 1 from public.projects where tenant_id = (select bullpen.tenant_id()) and lower(key) = lower(v_key)) loop
    n := n + 1;
    v_key := v_base || n;
  end loop;
  return v_key;
end
$$;

create or replace function public.project_create(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_project public.projects;
  v_key text;
  v_parent uuid;
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('project_create', p);
  if v_replay is not null then
    return v_replay;
  end if;
  v_key := upper(coalesce(p ->> 'key', bullpen.derive_project_key(p ->> 'title')));
  if exists (select 1 from public.projects where tenant_id = (select bullpen.tenant_id()) and lower(key) = lower(v_key)) then
    perform bullpen.fail('ALREADY_EXISTS', format('key: a project with key %s already exists', v_key),
      'choose another key, or omit key to derive a free one from the title');
  end if;
  if p ->> 'parent_project_id' is not null then
    v_parent := (bullpen.resolve_project(p ->> 'parent_project_id', 'parent_project_id')).id;
  end if;
  insert into public.projects (tenant_id, key, title, summary, description, status, parent_project_id,
                               owner_actor_id, target_on, created_by_actor_id)
  values (bullpen.tenant_id(), v_key, p ->> 'title', p ->> 'summary', p ->> 'description',
          coalesce(p ->> 'status', 'active'), v_parent,
          bullpen.require_actor_in_tenant(coalesce(bullpen.uuid_arg(p, 'owner_actor_id'), bullpen.actor_id()), 'owner_actor_id'),
          (p ->> 'target_on')::date, bullpen.actor_id())
  returning * into v_project;
  perform bullpen.log('project.created', 'project', v_project.id, v_project.id, v_project.key || ' ' || v_project.title);
  return bullpen.idem_finish(p, jsonb_build_object('project', bullpen.project_json(v_project),
    'project_id', v_project.id, 'key', v_project.key));
end
$$;
alter function public.project_create(jsonb) owner to bullpen_writer;

create or replace function public.project_update(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_project public.projects;
  v_patch jsonb := coalesce(p -> 'patch', '{}');
  v_parent uuid;
  v_changed text[];
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('project_update', p);
  if v_replay is not null then
    return v_replay;
  end if;
  v_project := bullpen.resolve_project(p ->> 'project_id');
  perform 1 from public.projects where tenant_id = v_project.tenant_id and id = v_project.id for update;
  if v_patch ? 'parent_project_id' and v_patch ->> 'parent_project_id' is not null then
    v_parent := (bullpen.resolve_project(v_patch ->> 'parent_project_id', 'patch.parent_project_id')).id;
    perform bullpen.assert_project_parent(v_project.id, v_parent);
  end if;
  if v_patch ? 'owner_actor_id' then
    perform bullpen.require_actor_in_tenant(bullpen.uuid_arg(v_patch, 'owner_actor_id'), 'patch.owner_actor_id');
  end if;
  select array_agg(k order by k) into v_changed from jsonb_object_keys(v_patch) k;
  update public.projects set
    title = case when v_patch ? 'title' then v_patch ->> 'title' else title end,
    summary = case when v_patch ? 'summary' then v_patch ->> 'summary' else summary end,
    description = case when v_patch ? 'description' then v_patch ->> 'description' else description end,
    status = case when v_patch ? 'status' then v_patch ->> 'status' else status end,
    target_on = case when v_patch ? 'target_on' then (v_patch ->> 'target_on')::date else target_on end,
    owner_actor_id = case when v_patch ? 'owner_actor_id' then (v_patch ->> 'owner_actor_id')::uuid else owner_actor_id end,
    parent_project_id = case when v_patch ? 'parent_project_id' then v_parent else parent_project_id end
  where tenant_id = v_project.tenant_id and id = v_project.id
  returning * into v_project;
  perform bullpen.log(case when v_patch ? 'status' then 'project.status_changed' else 'project.updated' end,
    'project', v_project.id, v_project.id, array_to_string(v_changed, ', '), jsonb_build_object('fields', to_jsonb(v_changed)));
  return bullpen.idem_finish(p, jsonb_build_object('project', bullpen.project_json(v_project), 'changed', to_jsonb(coalesce(v_changed, '{}'))));
end
$$;
alter function public.project_update(jsonb) owner to bullpen_writer;

-- Execute rights, one function at a time: the API roles call RPCs, never helpers.
revoke all on function bullpen.project_json(public.projects) from public, anon, authenticated;
grant execute on function bullpen.project_json(public.projects) to bullpen_writer, service_role;
revoke all on function bullpen.resolve_project(text, text) from public, anon, authenticated;
grant execute on function bullpen.resolve_project(text, text) to bullpen_writer, service_role;
revoke all on function bullpen.assert_project_parent(uuid, uuid) from public, anon, authenticated;
grant execute on function bullpen.assert_project_parent(uuid, uuid) to bullpen_writer, service_role;
revoke all on function bullpen.derive_project_key(text) from public, anon, authenticated;
grant execute on function bullpen.derive_project_key(text) to bullpen_writer, service_role;
revoke all on function public.project_create(jsonb) from public, anon;
grant execute on function public.project_create(jsonb) to authenticated, service_role;
revoke all on function public.project_update(jsonb) from public, anon;
grant execute on function public.project_update(jsonb) to authenticated, service_role;
