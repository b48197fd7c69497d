-- Memory, the vector arm (pgvector only; lib/db/migrate.ts skips this file without it).
-- Re-applied on every upgrade that changes any definition file: every statement here must be
-- safe to run again (create or replace).

/**
 * Makes sure a model's vectors have their HNSW index: a partial index over a cast to the model's
 * dimension. Called by the server (not the API roles) when it first embeds with a model.
 */
create or replace function bullpen.memory_vector_index(p_model text, p_dims int) returns text
language plpgsql
as $$
declare
  v_name text := 'memory_embeddings_hnsw_' || substr(md5(p_model || ':' || p_dims), 1, 12);
begin
  if p_model = 'universal-sentence-encoder-lite' and p_dims = 512 then
    return 'memory_embeddings_hnsw_use_lite';
  end if;
  if p_dims > 2000 then
    -- HNSW indexes vectors of up to 2000 dimensions; larger ones are searched exactly
    return null;
  end if;
  if to_regclass('public.' || v_name) is null then
    execute format('create index if not exists %I on public.memory_embeddings using hnsw ((embedding::public.vector(%s)) public.vector_cosine_ops) where model = %L',
      v_name, p_dims, p_model);
  end if;
  return v_name;
end
$$;

/**
 * The vector arm of recall: up to p_depth objects nearest to the query embedding, as
 * [{id, similarity}] with similarity = 1 - cosine distance, best first. Only vectors of the query's
 * model count (a model change leaves old rows to the full-text arm until they are re-embedded).
 * The workspace, project and other filters are applied during the scan: a filtered set small
 * enough to scan exactly is ranked exactly (filter first, then rank); a larger one walks the HNSW
 * index with pgvector's iterative scan, which keeps reading the graph until enough rows pass the
 * filters instead of returning the few that survive a post-filter.
 */
create or replace function bullpen.memory_vector_candidates(p_type text, p_embedding jsonb, p_model text, p_depth int, p_filter jsonb)
returns jsonb
language plpgsql stable
as $$
declare
  -- the workspace, read once: not a claims parse per row scanned
  v_tenant uuid := bullpen.tenant_id();
  v_dims int := jsonb_array_length(p_embedding);
  v_vec text := p_embedding::text;
  v_small int;
  v_order text;
  v_exact boolean;
  v_out jsonb;
  v_statuses text[] := bullpen.text_array(p_filter -> 'statuses');
  v_tags text[] := case when jsonb_typeof(p_filter -> 'tags') = 'array' then bullpen.text_array(p_filter -> 'tags') end;
begin
  if p_model is null or v_dims = 0 then
    return '[]'::jsonb;
  end if;
  -- how many vectors could match, counted up to the point where an index walk pays off: the
  -- workspace's vectors of this model (an index-only count); when filters narrow the set, the rows
  -- that pass them
  select count(*) into v_small from (
    select 1 from public.memory_embeddings e
     where e.tenant_id = v_tenant and e.model = p_model and e.object_type = p_type limit 2000) x;
  if v_small >= 2000 and p_type = 'note' and (p_filter ->> 'project_id' is not null or p_filter ->> 'kind' is not null or cardinality(v_tags) > 0) then
    select count(*) into v_small from (
      select 1 from public.memory_embeddings e
        join public.knowledge_notes n on n.tenant_id = e.tenant_id and n.id = e.note_id
       where e.tenant_id = v_tenant and e.model = p_model and e.object_type = 'note'
         and bullpen.note_matches(n, (p_filter ->> 'project_id')::uuid, p_filter ->> 'kind', v_tags)
       limit 2000) x;
  elsif v_small >= 2000 and p_type = 'decision' and (p_filter ->> 'project_id' is not null or p_filter ->> 'since' is not null or p_filter ->> 'task_id' is not null) then
    select count(*) into v_small from (
      select 1 from public.memory_embeddings e
        join public.decisions d on d.tenant_id = e.tenant_id and d.id = e.decision_id
       where e.tenant_id = v_tenant and e.model = p_model and e.object_type = 'decision'
         and bullpen.decision_matches(d, (p_filter ->> 'project_id')::uuid, v_statuses,
                                      (p_filter ->> 'since')::timestamptz, (p_filter ->> 'task_id')::uuid)
       limit 2000) x;
  end if;
  v_exact := v_small < 2000 or v_dims > 2000;
  if v_exact then
    v_order := format('(e.embedding operator(public.<=>) %L::public.vector)', v_vec);
  else
    v_order := format('(e.embedding::public.vector(%s) operator(public.<=>) %L::public.vector(%s))', v_dims, v_vec, v_dims);
    perform set_config('hnsw.iterative_scan', 'relaxed_order', true);
    perform set_config('hnsw.ef_search', greatest(40, least(p_depth * 2, 1000))::text, true);
    perform set_config('hnsw.max_scan_tuples', '50000', true);
  end if;
  if p_type = 'note' then
    execute format($q$
      select coalesce(jsonb_agg(jsonb_build_object('id', x.id, 'similarity', x.similarity) order by x.similarity desc, x.id), '[]'::jsonb)
        from (select n.id, 1 - %1$s as similarity
                from public.memory_embeddings e
                join public.knowledge_notes n on n.tenant_id = e.tenant_id and n.id = e.note_id
               where e.tenant_id = $6 and e.model = $1 and e.object_type = 'note'
                 and bullpen.note_matches(n, $2, $3, $4)
               order by %1$s limit $5) x $q$, v_order)
      into v_out using p_model, (p_filter ->> 'project_id')::uuid, p_filter ->> 'kind', v_tags, p_depth, v_tenant;
  elsif p_type = 'chunk' then
    -- source chunks (0031_sources)
    execute format($q$
      select coalesce(jsonb_agg(jsonb_build_object('id', x.id, 'similarity', x.similarity) order by x.similarity desc, x.id), '[]'::jsonb)
        from (select e.object_id as id, 1 - %1$s as similarity
                from public.memory_embeddings e
                join public.source_chunks c on c.tenant_id = e.tenant_id and c.id = e.chunk_id
               where e.tenant_id = $4 and e.model = $1 and e.object_type = 'chunk'
                 and ($2::uuid is null or c.project_id = $2)
               order by %1$s limit $3) x $q$, v_order)
      into v_out using p_model, (p_filter ->> 'project_id')::uuid, p_depth, v_tenant;
  else
    execute format($q$
      select coalesce(jsonb_agg(jsonb_build_object('id', x.id, 'similarity', x.similarity) order by x.similarity desc, x.id), '[]'::jsonb)
        from (select d.id, 1 - %1$s as similarity
                from public.memory_embeddings e
                join public.decisions d on d.tenant_id = e.tenant_id and d.id = e.decision_id
               where e.tenant_id = $7 and e.model = $1 and e.object_type = 'decision'
                 and bullpen.decision_matches(d, $2, $3, $4, $5)
               order by %1$s limit $6) x $q$, v_order)
      into v_out using p_model, (p_filter ->> 'project_id')::uuid, v_statuses, (p_filter ->> 'since')::timestamptz,
                       (p_filter ->> 'task_id')::uuid, p_depth, v_tenant;
  end if;
  return v_out;
end
$$;

/** Exact similarity of the query to some objects (those the full-text arm found), as [{id, similarity}]. */
create or replace function bullpen.memory_similarities(p_type text, p_embedding jsonb, p_model text, p_ids uuid[])
returns jsonb
language plpgsql stable
as $$
declare
  v_tenant uuid := bullpen.tenant_id();
  -- parsed once, not once per row
  v_query public.vector := (p_embedding::text)::public.vector;
  v_out jsonb;
begin
  select coalesce(jsonb_agg(jsonb_build_object('id', e.object_id, 'similarity', 1 - (e.embedding operator(public.<=>) v_query))), '[]'::jsonb)
    into v_out
    from public.memory_embeddings e
   where e.tenant_id = v_tenant and e.object_type = p_type and e.model = p_model and e.object_id = any (p_ids)
     and public.vector_dims(e.embedding) = jsonb_array_length(p_embedding);
  return v_out;
end
$$;

/**
 * The share (0–1) of the filtered objects that have a vector of this model: 1 in steady state,
 * less while a new model is being rolled out. Both counts stop at 2000, a bounded index walk.
 */
create or replace function bullpen.memory_vector_coverage(p_type text, p_model text, p_filter jsonb)
returns float8
language plpgsql stable
as $$
declare
  v_tenant uuid := bullpen.tenant_id();
  v_tags text[] := case when jsonb_typeof(p_filter -> 'tags') = 'array' then bullpen.text_array(p_filter -> 'tags') end;
  v_statuses text[] := bullpen.text_array(p_filter -> 'statuses');
  v_objects int;
  v_vectors int;
begin
  -- in steady state nothing waits for an embedding, and every vector is of the current model
  if p_type = 'note' and not exists (select 1 from public.knowledge_notes n where n.tenant_id = v_tenant
                                       and n.embedding_status in ('pending', 'unavailable')) then
    return 1;
  elsif p_type = 'decision' and not exists (select 1 from public.decisions d where d.tenant_id = v_tenant
                                              and d.embedding_status in ('pending', 'unavailable')) then
    return 1;
  elsif p_type = 'chunk' then
    if not exists (select 1 from public.source_chunks c where c.tenant_id = v_tenant and c.embedding_status in ('pending', 'unavailable')) then
      return 1;
    end if;
    select count(*) into v_objects from (select 1 from public.source_chunks c
      where c.tenant_id = v_tenant and ((p_filter ->> 'project_id') is null or c.project_id = (p_filter ->> 'project_id')::uuid) limit 2000) x;
    select count(*) into v_vectors from (select 1 from public.memory_embeddings e
      join public.source_chunks c on c.tenant_id = e.tenant_id and c.id = e.chunk_id
      where e.tenant_id = v_tenant and e.model = p_model and e.object_type = 'chunk'
        and ((p_filter ->> 'project_id') is null or c.project_id = (p_filter ->> 'project_id')::uuid) limit 2000) x;
    return case when v_objects = 0 then 1 else least(1, v_vectors::float8 / v_objects) end;
  end if;
  if p_type = 'note' then
    select count(*) into v_objects from (select 1 from public.knowledge_notes n
      where n.tenant_id = v_tenant and bullpen.note_matches(n, (p_filter ->> 'project_id')::uuid, p_filter ->> 'kind', v_tags)
      limit 2000) x;
    select count(*) into v_vectors from (select 1 from public.memory_embeddings e
      join public.knowledge_notes n on n.tenant_id = e.tenant_id and n.id = e.note_id
      where e.tenant_id = v_tenant and e.model = p_model and e.object_type = 'note'
        and bullpen.note_matches(n, (p_filter ->> 'project_id')::uuid, p_filter ->> 'kind', v_tags)
      limit 2000) x;
  else
    select count(*) into v_objects from (select 1 from public.decisions d
      where d.tenant_id = v_tenant
        and bullpen.decision_matches(d, (p_filter ->> 'project_id')::uuid, v_statuses, (p_filter ->> 'since')::timestamptz, (p_filter ->> 'task_id')::uuid)
      limit 2000) x;
    select count(*) into v_vectors from (select 1 from public.memory_embeddings e
      join public.decisions d on d.tenant_id = e.tenant_id and d.id = e.decision_id
      where e.tenant_id = v_tenant and e.model = p_model and e.object_type = 'decision'
        and bullpen.decision_matches(d, (p_filter ->> 'project_id')::uuid, v_statuses, (p_filter ->> 'since')::timestamptz, (p_filter ->> 'task_id')::uuid)
      limit 2000) x;
  end if;
  return case when v_objects = 0 then 1 else least(1, v_vectors::float8 / v_objects) end;
end
$$;

revoke all on function bullpen.memory_vector_coverage(text, text, jsonb) from public, anon, authenticated;
grant execute on function bullpen.memory_vector_coverage(text, text, jsonb) to bullpen_writer, service_role;
revoke all on function bullpen.memory_vector_index(text, int) from public, anon, authenticated;
grant execute on function bullpen.memory_vector_index(text, int) to service_role;
revoke all on function bullpen.memory_vector_candidates(text, jsonb, text, int, jsonb) from public, anon, authenticated;
grant execute on function bullpen.memory_vector_candidates(text, jsonb, text, int, jsonb) to bullpen_writer, service_role;
revoke all on function bullpen.memory_similarities(text, jsonb, text, uuid[]) from public, anon, authenticated;
grant execute on function bullpen.memory_similarities(text, jsonb, text, uuid[]) to bullpen_writer, service_role;
