-- The code graph's functions (tables in supabase/migrations/0030_code_graph.sql).

-- ---------------------------------------------------------------------------------------------
-- Helpers
-- ---------------------------------------------------------------------------------------------

/** A repository path as code refs and graphs store it: no leading "./" or "/", forward slashes. */
create or replace function bullpen.code_path(p text) returns text
language sql immutable
as $$
  select nullif(regexp_replace(replace(btrim(p), '\', '/'), '^(\./|/)+', ''), '')
$$;

/** The language a graph counts a file under, by its extension. */
create or replace function bullpen.code_language(p text) returns text
language sql immutable
as $$
  select case lower(reverse(split_part(reverse(p), '.', 1)))
    when 'ts' then 'typescript' when 'tsx' then 'typescript' when 'mts' then 'typescript' when 'cts' then 'typescript'
    when 'js' then 'javascript' when 'jsx' then 'javascript' when 'mjs' then 'javascript' when 'cjs' then 'javascript'
    when 'py' then 'python' when 'pyi' then 'python'
    when 'go' then 'go'
    else 'other' end
$$;

create or replace function bullpen.code_graph_json(g public.code_graphs) returns jsonb
language sql stable
as $$
  select jsonb_build_object('graph_id', g.id, 'repository_id', g.repository_id, 'commit_sha', g.commit_sha,
    'indexed_at', g.indexed_at, 'age_seconds', floor(extract(epoch from now() - g.indexed_at))::bigint,
    'files', g.file_count, 'imports', g.import_count, 'cycles', g.cycle_count, 'languages', g.languages)
$$;

/** The repository's current graph, or NOT_FOUND naming how to build one. */
create or replace function bullpen.code_graph_for(p jsonb) returns public.code_graphs
language plpgsql stable
as $$
declare
  v_repo public.repositories := bullpen.resolve_repository(p ->> 'repository_id', null);
  v_g public.code_graphs;
begin
  select * into v_g from public.code_graphs g
   where g.tenant_id = v_repo.tenant_id and g.repository_id = v_repo.id and g.status = 'current';
  if v_g.id is null then
    perform bullpen.fail('NOT_FOUND', format('repository_id: repository %s/%s has no code graph yet', v_repo.owner, v_repo.name),
      'run `bullpen repo index` in a checkout of it (it uploads the file dependency graph)');
  end if;
  return v_g;
end
$$;

/**
 * The files that depend on p_from (importers, their importers, …) within p_depth steps, each at
 * its shortest distance: breadth first, one level per statement, each file expanded once (a
 * recursive CTE would expand a file once per path reaching it, which a shared file's thousands of
 * importers make costly). Each level probes the imports' key (to_n first) for the whole frontier.
 */
create or replace function bullpen.code_dependents(p_tenant uuid, p_graph uuid, p_from int[], p_depth int)
returns table (n int, distance int)
language plpgsql stable
as $$
declare
  v_seen int[] := p_from;
  v_frontier int[] := p_from;
  v_d int := 0;
begin
  while v_d < p_depth and coalesce(cardinality(v_frontier), 0) > 0 loop
    v_d := v_d + 1;
    v_frontier := array(
      select i.from_n from public.code_graph_imports i
       where i.tenant_id = p_tenant and i.graph_id = p_graph and i.to_n = any (v_frontier)
      except
      select unnest(v_seen));
    v_seen := v_seen || v_frontier;
    return query select x, v_d from unnest(v_frontier) x;
  end loop;
end
$$;

/** The files p_from depends on (what it imports, and so on) within p_depth steps. */
create or replace function bullpen.code_dependencies(p_tenant uuid, p_graph uuid, p_from int[], p_depth int)
returns table (n int)
language plpgsql stable
as $$
declare
  v_seen int[] := p_from;
  v_frontier int[] := p_from;
  v_d int := 0;
begin
  while v_d < p_depth and coalesce(cardinality(v_frontier), 0) > 0 loop
    v_d := v_d + 1;
    v_frontier := array(
      select i.to_n from public.code_graph_imports i
       where i.tenant_id = p_tenant and i.graph_id = p_graph and i.from_n = any (v_frontier)
      except
      select unnest(v_seen));
    v_seen := v_seen || v_frontier;
    return query select x from unnest(v_frontier) x;
  end loop;
end
$$;

/** The risk of changing a file with this many dependents (within the asked depth). */
create or replace function bullpen.code_risk(p_count int) returns text
language sql immutable
as $$
  select case when p_count = 0 then 'none' when p_count <= 5 then 'low' when p_count <= 20 then 'medium'
              when p_count <= 100 then 'high' else 'critical' end
$$;

/**
 * The open tasks whose code refs in p_repo name any of p_paths: {task_id, key, title, status,
 * holder, holder_actor_id, files}, at most 50, in-progress first.
 */
create or replace function bullpen.code_tasks_touching(p_tenant uuid, p_repo uuid, p_paths text[], p_except uuid, p_in_progress boolean)
returns jsonb
language sql stable
as $$
  select coalesce(jsonb_agg(x.j order by x.rank, x.seq), '[]'::jsonb) from (
    select (t.status <> 'in_progress')::int as rank, t.seq,
           jsonb_build_object('task_id', t.id, 'key', pr.key || '-' || t.seq, 'title', t.title, 'status', t.status,
             'holder_actor_id', h.id, 'holder', h.display_name, 'files', to_jsonb(f.files)) as j
      from (select c.task_id, array_agg(distinct x order by x) as files
              from public.code_refs c, unnest(c.files) x
             where c.tenant_id = p_tenant and c.repository_id = p_repo and c.task_id is not null
               and cardinality(c.files) > 0 and c.files && p_paths and x = any (p_paths)
               and (p_except is null or c.task_id <> p_except)
             group by c.task_id) f
      join public.tasks t on t.tenant_id = p_tenant and t.id = f.task_id
      join public.projects pr on pr.tenant_id = t.tenant_id and pr.id = t.project_id
      left join public.actors h on h.tenant_id = t.tenant_id
        and h.id = coalesce(case when t.lease_expires_at > now() then t.lease_actor_id end, t.assignee_actor_id)
     where case when p_in_progress then t.status = 'in_progress'
                else t.status not in ('done', 'cancelled', 'skipped', 'failed') end
     order by 1, t.seq
     limit 50) x
$$;

/**
 * task_claim's and task_get's collision warning: other in-progress tasks whose code refs touch a
 * file within three steps of this task's files, either way (a file this task's files depend on, or
 * one that depends on them), in a repository with a code graph. '{}' when there is nothing to say;
 * a task whose refs name no files costs one index probe.
 */
create or replace function bullpen.task_collisions(t public.tasks) returns jsonb
language plpgsql stable
as $$
declare
  v_out jsonb := '[]';
  r record;
  v_ns int[];
  v_near text[];
begin
  if not exists (select 1 from public.code_refs c
                  where c.tenant_id = t.tenant_id and c.task_id = t.id and cardinality(c.files) > 0) then
    return '{}';
  end if;
  for r in
    select g.id as graph_id, g.repository_id, array_agg(distinct x) as files
      from public.code_refs c
      cross join unnest(c.files) x
      join public.code_graphs g on g.tenant_id = c.tenant_id and g.repository_id = c.repository_id and g.status = 'current'
     where c.tenant_id = t.tenant_id and c.task_id = t.id and cardinality(c.files) > 0
     group by g.id, g.repository_id
  loop
    select array_agg(f.n) into v_ns from public.code_graph_files f
     where f.tenant_id = t.tenant_id and f.graph_id = r.graph_id and f.path = any (r.files);
    v_near := r.files;
    if v_ns is not null then
      v_near := v_near || array(
        select f.path from (select d.n from bullpen.code_dependents(t.tenant_id, r.graph_id, v_ns, 3) d
                            union select d.n from bullpen.code_dependencies(t.tenant_id, r.graph_id, v_ns, 3) d) d
          join public.code_graph_files f on f.tenant_id = t.tenant_id and f.graph_id = r.graph_id and f.n = d.n);
    end if;
    v_out := v_out || (
      select coalesce(jsonb_agg(jsonb_build_object('task', x ->> 'key', 'task_id', x -> 'task_id', 'holder', x -> 'holder',
                                                   'files', x -> 'files')), '[]')
        from jsonb_array_elements(bullpen.code_tasks_touching(t.tenant_id, r.repository_id, v_near, t.id, true)) x);
  end loop;
  return case when jsonb_array_length(v_out) = 0 then '{}' else jsonb_build_object('collisions', v_out) end;
end
$$;

-- ---------------------------------------------------------------------------------------------
-- RPCs
-- ---------------------------------------------------------------------------------------------

/**
 * One batch of a graph upload. The first batch (no upload_id) starts a graph beside the current
 * one (dropping any unfinished upload of the repository); files are numbered on from the files sent
 * before (a path sent twice keeps its first number); imports are flat pairs of those numbers
 * (importer, imported). A retried batch needs its idempotency_key. The batch with done:true
 * counts direct dependents, checks every import names an uploaded file, and swaps the new graph in
 * for the old one in its transaction.
 */
create or replace function public.code_graph_upload(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_me uuid := bullpen.require_actor();
  v_replay jsonb;
  v_repo public.repositories;
  v_g public.code_graphs;
  v_old public.code_graphs;
  v_offset int;
  v_files int := 0;
  v_imports int := 0;
  v_bad int;
  v_flat int[];
  v_next int;
  v_i int;
  v_len int;
begin
  v_replay := bullpen.idem_begin('code_graph_upload', p);
  if v_replay is not null then
    return v_replay;
  end if;
  if jsonb_typeof(p -> 'dependents') = 'array'
     and jsonb_array_length(p -> 'dependents') <> coalesce(jsonb_array_length(case when jsonb_typeof(p -> 'files') = 'array' then p -> 'files' end), 0) then
    perform bullpen.fail('VALIDATION_ERROR', 'dependents: one count per file of the batch');
  end if;
  if jsonb_typeof(p -> 'imports') = 'array' and jsonb_array_length(p -> 'imports') % 2 = 1 then
    perform bullpen.fail('VALIDATION_ERROR', 'imports: pairs of file numbers (an even count)');
  end if;
  v_repo := bullpen.resolve_repository(p ->> 'repository_id', null);
  if p ->> 'upload_id' is null then
    delete from public.code_graphs g
     where g.tenant_id = v_repo.tenant_id and g.repository_id = v_repo.id and g.status = 'building';
    insert into public.code_graphs (tenant_id, repository_id, commit_sha, created_by_actor_id)
    values (v_repo.tenant_id, v_repo.id, lower(p ->> 'commit_sha'), v_me)
    returning * into v_g;
  else
    select * into v_g from public.code_graphs g
     where g.tenant_id = v_repo.tenant_id and g.repository_id = v_repo.id
       and g.id = bullpen.uuid_arg(p, 'upload_id') and g.status = 'building'
       for update;
    if v_g.id is null then
      perform bullpen.fail('NOT_FOUND', format('upload_id: no unfinished upload %s for this repository', p ->> 'upload_id'),
        'start again without upload_id (a newer upload replaces an unfinished one)');
    end if;
  end if;
  v_offset := coalesce((select max(f.n) + 1 from public.code_graph_files f where f.tenant_id = v_g.tenant_id and f.graph_id = v_g.id), 0);
  if jsonb_typeof(p -> 'files') = 'array' then
    insert into public.code_graph_files as f (tenant_id, graph_id, n, path, dependents)
    select v_g.tenant_id, v_g.id, v_offset + (e.o - 1)::int, bullpen.code_path(e.x), coalesce(e.d::int, 0)
      from rows from (jsonb_array_elements_text(p -> 'files'),
                      jsonb_array_elements_text(coalesce(p -> 'dependents', '[]'))) with ordinality as e(x, d, o)
     where e.x is not null
    on conflict (tenant_id, graph_id, path) do nothing;
    get diagnostics v_files = row_count;
  end if;
  if jsonb_typeof(p -> 'imports') = 'array' then
    insert into public.code_graph_imports (tenant_id, graph_id, from_n, to_n)
    select v_g.tenant_id, v_g.id, x.a, x.b
      from (select e.v::int as a, lead(e.v::int) over (order by e.o) as b, e.o
              from jsonb_array_elements_text(p -> 'imports') with ordinality as e(v, o)) x
     where x.o % 2 = 1 and x.a <> x.b
    on conflict do nothing;
    get diagnostics v_imports = row_count;
  end if;
  if jsonb_typeof(p -> 'cycles') = 'array' then
    -- flat: each loop's length, then its file numbers
    v_flat := array(select x::int from jsonb_array_elements_text(p -> 'cycles') x);
    v_next := coalesce((select max(c.n) + 1 from public.code_graph_cycles c where c.tenant_id = v_g.tenant_id and c.graph_id = v_g.id), 0);
    v_i := 1;
    while v_i <= coalesce(cardinality(v_flat), 0) loop
      v_len := v_flat[v_i];
      if v_len < 2 or v_i + v_len > cardinality(v_flat) then
        perform bullpen.fail('VALIDATION_ERROR', 'cycles: each loop''s length (2 or more), then that many file numbers');
      end if;
      insert into public.code_graph_cycles (tenant_id, graph_id, n, files)
      values (v_g.tenant_id, v_g.id, v_next, v_flat[v_i + 1 : v_i + v_len]);
      v_next := v_next + 1;
      v_i := v_i + 1 + v_len;
    end loop;
  end if;
  if coalesce((p ->> 'done')::boolean, false) then
    select count(*) into v_g.file_count from public.code_graph_files f where f.tenant_id = v_g.tenant_id and f.graph_id = v_g.id;
    select count(*) into v_bad from public.code_graph_imports i
     where i.tenant_id = v_g.tenant_id and i.graph_id = v_g.id and (i.from_n >= v_g.file_count or i.to_n >= v_g.file_count);
    v_bad := v_bad + (select count(*) from public.code_graph_cycles c
                       where c.tenant_id = v_g.tenant_id and c.graph_id = v_g.id
                         and exists (select 1 from unnest(c.files) x where x >= v_g.file_count));
    if v_bad > 0 or exists (select 1 from public.code_graph_files f
                             where f.tenant_id = v_g.tenant_id and f.graph_id = v_g.id and f.n >= v_g.file_count) then
      perform bullpen.fail('VALIDATION_ERROR',
        format('imports: %s imports or cycles name a file number the upload has no file for (files are numbered 0..%s)', v_bad, v_g.file_count - 1),
        'send every file (offset + position numbers them) before done:true');
    end if;
    select * into v_old from public.code_graphs g
     where g.tenant_id = v_g.tenant_id and g.repository_id = v_g.repository_id and g.status = 'current' for update;
    if v_old.id is not null then
      delete from public.code_graphs g where g.tenant_id = v_old.tenant_id and g.id = v_old.id;
    end if;
    update public.code_graphs g
       set status = 'current', indexed_at = now(), file_count = v_g.file_count,
           import_count = (select count(*) from public.code_graph_imports i where i.tenant_id = g.tenant_id and i.graph_id = g.id),
           cycle_count = (select count(*) from public.code_graph_cycles c where c.tenant_id = g.tenant_id and c.graph_id = g.id),
           languages = (select coalesce(jsonb_object_agg(x.lang, x.c), '{}') from (
                          select bullpen.code_language(f.path) as lang, count(*) as c from public.code_graph_files f
                           where f.tenant_id = g.tenant_id and f.graph_id = g.id group by 1) x)
     where g.tenant_id = v_g.tenant_id and g.id = v_g.id
    returning * into v_g;
    perform bullpen.log('code_graph.indexed', 'repository', v_repo.id, null,
      format('indexed %s/%s%s: %s files, %s imports, %s cycles', v_repo.owner, v_repo.name,
        coalesce(' at ' || left(v_g.commit_sha, 7), ''), v_g.file_count, v_g.import_count, v_g.cycle_count),
      jsonb_build_object('graph_id', v_g.id, 'commit_sha', v_g.commit_sha, 'files', v_g.file_count,
        'imports', v_g.import_count, 'cycles', v_g.cycle_count, 'replaced_graph_id', v_old.id));
  end if;
  return bullpen.idem_finish(p, jsonb_build_object('upload_id', v_g.id, 'files', v_files, 'imports', v_imports,
    'done', v_g.status = 'current', 'graph', case when v_g.status = 'current' then bullpen.code_graph_json(v_g) end));
end
$$;
alter function public.code_graph_upload(jsonb) owner to bullpen_writer;

create or replace function public.code_impact(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_g public.code_graphs;
  v_path text := bullpen.code_path(p ->> 'file_path');
  v_depth int := greatest(1, least(coalesce((p ->> 'max_depth')::int, 3), 10));
  v_n int;
  v_count int;
  v_dep jsonb;
  v_paths text[];
begin
  perform bullpen.require_actor();
  v_g := bullpen.code_graph_for(p);
  select f.n into v_n from public.code_graph_files f where f.tenant_id = v_g.tenant_id and f.graph_id = v_g.id and f.path = v_path;
  if v_n is null then
    perform bullpen.fail('NOT_FOUND', format('file_path: %s is not in the code graph (commit %s)', v_path, coalesce(left(v_g.commit_sha, 7), 'unknown')),
      'paths are relative to the repository root, as indexed; re-index with `bullpen repo index` after adding files');
  end if;
  select count(*)::int,
         coalesce(jsonb_agg(jsonb_build_object('path', x.path, 'distance', x.distance) order by x.distance, x.path)
                    filter (where x.rn <= 200), '[]'),
         array_agg(x.path)
    into v_count, v_dep, v_paths
    from (select f.path, d.distance, row_number() over (order by d.distance, f.path) as rn
            from bullpen.code_dependents(v_g.tenant_id, v_g.id, array[v_n], v_depth) d
            join public.code_graph_files f on f.tenant_id = v_g.tenant_id and f.graph_id = v_g.id and f.n = d.n) x;
  return jsonb_build_object(
    'file_path', v_path, 'max_depth', v_depth, 'dependent_count', v_count, 'risk', bullpen.code_risk(v_count),
    'dependents', v_dep, 'truncated', v_count > 200,
    'tasks', bullpen.code_tasks_touching(v_g.tenant_id, v_g.repository_id, array[v_path] || coalesce(v_paths, '{}'), null, false),
    'graph', bullpen.code_graph_json(v_g));
end
$$;
alter function public.code_impact(jsonb) owner to bullpen_writer;

create or replace function public.code_cycles(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_g public.code_graphs;
  v_limit int := greatest(1, least(coalesce((p ->> 'limit')::int, 20), 200));
begin
  perform bullpen.require_actor();
  v_g := bullpen.code_graph_for(p);
  return jsonb_build_object(
    'cycles', (select coalesce(jsonb_agg(x.loop order by x.len, x.n), '[]') from (
                 select c.n, cardinality(c.files) as len,
                        (select jsonb_agg(f.path order by u.o) from unnest(c.files || c.files[1]) with ordinality u(fn, o)
                           join public.code_graph_files f on f.tenant_id = c.tenant_id and f.graph_id = c.graph_id and f.n = u.fn) as loop
                   from public.code_graph_cycles c
                  where c.tenant_id = v_g.tenant_id and c.graph_id = v_g.id
                  order by cardinality(c.files), c.n limit v_limit) x),
    'total', v_g.cycle_count,
    'graph', bullpen.code_graph_json(v_g));
end
$$;
alter function public.code_cycles(jsonb) owner to bullpen_writer;

create or replace function public.code_critical_files(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_g public.code_graphs;
  v_limit int := greatest(1, least(coalesce((p ->> 'limit')::int, 10), 200));
begin
  perform bullpen.require_actor();
  v_g := bullpen.code_graph_for(p);
  return jsonb_build_object(
    'files', (select coalesce(jsonb_agg(jsonb_build_object('path', x.path, 'dependents', x.dependents,
                                'direct_dependents', (select count(*) from public.code_graph_imports i
                                                       where i.tenant_id = x.tenant_id and i.graph_id = x.graph_id and i.to_n = x.n),
                                'risk', bullpen.code_risk(x.dependents))
                                order by x.dependents desc, x.n), '[]')
                from (select * from public.code_graph_files f
                       where f.tenant_id = v_g.tenant_id and f.graph_id = v_g.id and f.dependents > 0
                       order by f.dependents desc, f.n limit v_limit) x),
    'graph', bullpen.code_graph_json(v_g));
end
$$;
alter function public.code_critical_files(jsonb) owner to bullpen_writer;

/**
 * The board's collision badges: a project's open tasks whose code refs name files, each with the
 * in-progress tasks it collides with (bullpen.task_collisions, as task_claim and task_get warn).
 */
create or replace function public.code_collisions(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_project public.projects;
  v_out jsonb;
begin
  perform bullpen.require_actor();
  v_project := bullpen.resolve_project(p ->> 'project_id');
  select coalesce(jsonb_agg(jsonb_build_object('task', v_project.key || '-' || x.seq, 'task_id', x.id, 'status', x.status,
                                               'collisions', x.c -> 'collisions') order by x.seq), '[]')
    into v_out
    from (select t.id, t.seq, t.status, bullpen.task_collisions(t) as c
            from public.tasks t
           where t.tenant_id = v_project.tenant_id and t.project_id = v_project.id
             and t.status not in ('done', 'cancelled', 'skipped', 'failed')
             and exists (select 1 from public.code_refs r
                          where r.tenant_id = t.tenant_id and r.task_id = t.id and cardinality(r.files) > 0)) x
   where x.c ? 'collisions';
  return jsonb_build_object('tasks', v_out);
end
$$;
alter function public.code_collisions(jsonb) owner to bullpen_writer;

-- ---------------------------------------------------------------------------------------------
-- Grants: the RPCs to the API roles; helpers only to the writer and the server.
-- ---------------------------------------------------------------------------------------------

revoke all on function bullpen.code_path(text) from public, anon, authenticated;
grant execute on function bullpen.code_path(text) to bullpen_writer, service_role;
revoke all on function bullpen.code_language(text) from public, anon, authenticated;
grant execute on function bullpen.code_language(text) to bullpen_writer, service_role;
revoke all on function bullpen.code_graph_json(public.code_graphs) from public, anon, authenticated;
grant execute on function bullpen.code_graph_json(public.code_graphs) to bullpen_writer, service_role;
revoke all on function bullpen.code_graph_for(jsonb) from public, anon, authenticated;
grant execute on function bullpen.code_graph_for(jsonb) to bullpen_writer, service_role;
revoke all on function bullpen.code_dependents(uuid, uuid, int[], int) from public, anon, authenticated;
grant execute on function bullpen.code_dependents(uuid, uuid, int[], int) to bullpen_writer, service_role;
revoke all on function bullpen.code_dependencies(uuid, uuid, int[], int) from public, anon, authenticated;
grant execute on function bullpen.code_dependencies(uuid, uuid, int[], int) to bullpen_writer, service_role;
revoke all on function bullpen.code_risk(int) from public, anon, authenticated;
grant execute on function bullpen.code_risk(int) to bullpen_writer, service_role;
revoke all on function bullpen.code_tasks_touching(uuid, uuid, text[], uuid, boolean) from public, anon, authenticated;
grant execute on function bullpen.code_tasks_touching(uuid, uuid, text[], uuid, boolean) to bullpen_writer, service_role;
revoke all on function bullpen.task_collisions(public.tasks) from public, anon, authenticated;
grant execute on function bullpen.task_collisions(public.tasks) to bullpen_writer, service_role;
revoke all on function public.code_graph_upload(jsonb) from public, anon;
grant execute on function public.code_graph_upload(jsonb) to authenticated, service_role;
revoke all on function public.code_impact(jsonb) from public, anon;
grant execute on function public.code_impact(jsonb) to authenticated, service_role;
revoke all on function public.code_cycles(jsonb) from public, anon;
grant execute on function public.code_cycles(jsonb) to authenticated, service_role;
revoke all on function public.code_critical_files(jsonb) from public, anon;
grant execute on function public.code_critical_files(jsonb) to authenticated, service_role;
revoke all on function public.code_collisions(jsonb) from public, anon;
grant execute on function public.code_collisions(jsonb) to authenticated, service_role;
