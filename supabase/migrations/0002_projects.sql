-- Projects: the initiatives work is grouped under. Keys are unique per workspace regardless of case.

create table public.projects (
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  id uuid not null default gen_random_uuid(),
  key text not null check (key ~ '^[A-Z][A-Z0-9_]{0,15}$'),
  title text not null check (char_length(title) between 1 and 200),
  summary text,
  description text,
  status text not null default 'active' check (status in ('planned', 'active', 'paused', 'completed', 'archived')),
  parent_project_id uuid,
  owner_actor_id uuid,
  target_on date,
  task_seq integer not null default 0,
  created_by_actor_id uuid,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, id),
  foreign key (tenant_id, parent_project_id) references public.projects (tenant_id, id),
  foreign key (tenant_id, owner_actor_id) references public.actors (tenant_id, id),
  foreign key (tenant_id, created_by_actor_id) references public.actors (tenant_id, id),
  check (parent_project_id is null or parent_project_id <> id)
);

create unique index projects_tenant_key_idx on public.projects (tenant_id, lower(key));
create index projects_tenant_status_idx on public.projects (tenant_id, status);
create index projects_title_trgm_idx on public.projects using gin (title gin_trgm_ops);

alter table public.projects enable row level security;
alter table public.projects force row level security;

create policy projects_select_tenant on public.projects for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()));
create policy projects_insert_tenant on public.projects for insert to authenticated
  with check (tenant_id = (select bullpen.tenant_id()));
create policy projects_update_tenant on public.projects for update to authenticated
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()));

grant select, insert, update on public.projects to authenticated;
grant all on public.projects to service_role;

create trigger projects_touch before update on public.projects
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
    select * into v from public.projects where tenant_id = bullpen.tenant_id() and id = p_ref::uuid;
  else
    select * into v from public.projects where tenant_id = bullpen.tenant_id() and lower(key) = lower(p_ref);
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
       where tenant_id = bullpen.tenant_id() and id = p_parent_id
      union all
      select pr.parent_project_id, up.depth + 1 from public.projects pr
        join up on pr.tenant_id = bullpen.tenant_id() and pr.id = up.id
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
  while exists (select 1 from public.projects where tenant_id = bullpen.tenant_id() and lower(key) = lower(v_key)) loop
    n := n + 1;
    v_key := v_base || n;
  end loop;
  return v_key;
end
$$;

create or replace function public.project_create(p jsonb) returns jsonb
language plpgsql
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
  if exists (select 1 from public.projects where tenant_id = bullpen.tenant_id() and lower(key) = lower(v_key)) then
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

create or replace function public.project_update(p jsonb) returns jsonb
language plpgsql
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

grant execute on function public.project_create(jsonb) to authenticated, service_role;
grant execute on function public.project_update(jsonb) to authenticated, service_role;
grant execute on all functions in schema bullpen to authenticated, service_role;
revoke execute on function bullpen.authenticate_key(text) from authenticated;

comment on table public.projects is 'Initiatives. key is the human handle (PAY, WEB); task_seq numbers tasks #1, #2, … per project.';
