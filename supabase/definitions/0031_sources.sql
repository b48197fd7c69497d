-- Document sources: source_sync (begin, put, finish under a per-source lock), source_list,
-- source_get, chunk_get, and the typed search over notes, decisions and chunks that
-- knowledge_search {types} runs. Tables are in supabase/migrations/0031_sources.sql.

/** A source of the caller's workspace by name or uuid; NOT_FOUND names the field. */
create or replace function bullpen.resolve_source(p_ref text, p_field text default 'source') returns public.sources
language plpgsql stable
as $$
declare
  v public.sources;
begin
  select * into v from public.sources s
   where s.tenant_id = (select bullpen.tenant_id())
     and (s.name = p_ref or (p_ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' and s.id = p_ref::uuid));
  if v.id is null then
    perform bullpen.fail('NOT_FOUND', format('%s: no source %s in this workspace', p_field, p_ref),
      'source_list names them; `bullpen knowledge sync PATH --source NAME` creates one');
  end if;
  return v;
end
$$;

create or replace function bullpen.source_json(s public.sources) returns jsonb
language plpgsql stable
as $$
begin
  return jsonb_build_object('id', s.id, 'name', s.name, 'project_id', s.project_id, 'sensitivity', s.sensitivity,
    'project_key', (select pr.key from public.projects pr where pr.tenant_id = s.tenant_id and pr.id = s.project_id),
    'documents', (select count(*) from public.source_documents d where d.tenant_id = s.tenant_id and d.source_id = s.id and d.tombstoned_at is null),
    'tombstoned', (select count(*) from public.source_documents d where d.tenant_id = s.tenant_id and d.source_id = s.id and d.tombstoned_at is not null),
    'chunks', (select count(*) from public.source_chunks c join public.source_documents d on d.tenant_id = c.tenant_id and d.id = c.document_id
                where d.tenant_id = s.tenant_id and d.source_id = s.id),
    'chunks_embedded', (select count(*) from public.source_chunks c join public.source_documents d on d.tenant_id = c.tenant_id and d.id = c.document_id
                where d.tenant_id = s.tenant_id and d.source_id = s.id and c.embedding_status = 'ready'),
    'syncing', s.sync_id is not null and s.sync_expires_at > now(), 'sync_started_at', s.sync_started_at,
    'last_sync_at', s.last_sync_at, 'last_sync', s.last_sync_stats, 'errors', s.last_errors, 'created_at', s.created_at);
end
$$;

create or replace function bullpen.source_document_json(d public.source_documents) returns jsonb
language plpgsql stable
as $$
begin
  return jsonb_build_object('id', d.id, 'source_id', d.source_id,
    'source', (select s.name from public.sources s where s.tenant_id = d.tenant_id and s.id = d.source_id),
    'project_id', (select s.project_id from public.sources s where s.tenant_id = d.tenant_id and s.id = d.source_id),
    'path', d.path, 'title', d.title, 'bytes', d.bytes, 'content_hash', d.content_hash,
    'tombstoned_at', d.tombstoned_at, 'created_at', d.created_at, 'updated_at', d.updated_at);
end
$$;

create or replace function bullpen.source_chunk_json(c public.source_chunks) returns jsonb
language sql stable
as $$
  select jsonb_build_object('id', c.id, 'document_id', c.document_id, 'ord', c.ord, 'heading', c.heading,
    'start_offset', c.start_offset, 'end_offset', c.end_offset, 'text', c.body, 'embedding_status', c.embedding_status)
$$;

/** The running sync of a source, named by sync_id; CONFLICT when it finished or lapsed. */
create or replace function bullpen.source_sync_lock(p jsonb) returns public.sources
language plpgsql
as $$
declare
  v public.sources;
begin
  v := bullpen.resolve_source(p ->> 'source');
  select * into v from public.sources s where s.tenant_id = v.tenant_id and s.id = v.id for update;
  if p ->> 'sync_id' is null or v.sync_id is distinct from (p ->> 'sync_id')::uuid or v.sync_expires_at <= now() then
    perform bullpen.fail('CONFLICT', format('sync_id: not the running sync of source %s (it finished, lapsed or was taken over)', v.name),
      'begin a new sync: source_sync {action: "begin"}');
  end if;
  -- each batch keeps the lock alive
  update public.sources s set sync_expires_at = now() + interval '10 minutes'
   where s.tenant_id = v.tenant_id and s.id = v.id returning * into v;
  return v;
end
$$;

/**
 * One step of a sync. begin takes the source's lock (creating the source) and answers the live
 * documents' hashes, so the caller sends only what changed; put writes documents (a document whose
 * hash is unchanged is left alone, a changed one has its chunks replaced, keeping the embeddings of
 * chunks whose text did not change); finish tombstones the documents not in `paths`, records the
 * stats and errors and releases the lock.
 */
create or replace function public.source_sync(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_action text := p ->> 'action';
  v_src public.sources;
  v_project public.projects;
  v_doc jsonb;
  v_row public.source_documents;
  v_hash text;
  v_written jsonb := '[]';
  v_unchanged int := 0;
  v_gone jsonb;
  v_status text := case when bullpen.memory_vectors_available() then 'pending' else 'unavailable' end;
  v_holder text;
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('source_sync', p);
  if v_replay is not null then
    return v_replay;
  end if;
  if v_action = 'begin' then
    if p ->> 'project_id' is not null then
      v_project := bullpen.resolve_project(p ->> 'project_id');
    end if;
    insert into public.sources (tenant_id, name, project_id, created_by_actor_id)
    values (bullpen.tenant_id(), p ->> 'source', v_project.id, bullpen.actor_id())
    on conflict (tenant_id, name) do nothing;
    select * into v_src from public.sources s where s.tenant_id = (select bullpen.tenant_id()) and s.name = p ->> 'source' for update;
    -- a sensitive source is synced only by a caller who may see what it holds (0035)
    perform bullpen.assert_sensitivity(v_src.sensitivity, format('source %s', v_src.name));
    perform bullpen.assert_sensitivity(p ->> 'sensitivity', 'sensitivity');
    if v_src.sync_id is not null and v_src.sync_expires_at > now() then
      select a.display_name into v_holder from public.actors a where a.tenant_id = v_src.tenant_id and a.id = v_src.sync_actor_id;
      perform bullpen.fail('CONFLICT',
        format('source %s: a sync by %s is running since %s; two syncs of one source never run at once', v_src.name, v_holder,
               to_char(v_src.sync_started_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')),
        format('wait for it to finish, then sync again (its lock lapses at %s if it stopped)',
               to_char(v_src.sync_expires_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')));
    end if;
    if p ->> 'project_id' is not null and v_src.project_id is distinct from v_project.id then
      update public.source_chunks c set project_id = v_project.id
        from public.source_documents d
       where d.tenant_id = v_src.tenant_id and d.source_id = v_src.id and c.tenant_id = d.tenant_id and c.document_id = d.id;
    end if;
    update public.sources s
       set sync_id = gen_random_uuid(), sync_actor_id = bullpen.actor_id(), sync_started_at = now(),
           sync_expires_at = now() + interval '10 minutes', project_id = coalesce(v_project.id, s.project_id),
           sensitivity = coalesce(p ->> 'sensitivity', s.sensitivity)
     where s.tenant_id = v_src.tenant_id and s.id = v_src.id returning * into v_src;
    update public.source_documents d set sensitivity = v_src.sensitivity
     where d.tenant_id = v_src.tenant_id and d.source_id = v_src.id and d.sensitivity <> v_src.sensitivity;
    return bullpen.idem_finish(p, jsonb_build_object('source', bullpen.source_json(v_src), 'sync_id', v_src.sync_id,
      'documents', (select coalesce(jsonb_object_agg(d.path, d.content_hash), '{}'::jsonb) from public.source_documents d
                     where d.tenant_id = v_src.tenant_id and d.source_id = v_src.id and d.tombstoned_at is null)));
  elsif v_action = 'put' then
    v_src := bullpen.source_sync_lock(p);
    for v_doc in select e from jsonb_array_elements(coalesce(p -> 'documents', '[]')) e loop
      v_hash := encode(pg_catalog.sha256(convert_to(v_doc ->> 'body', 'utf8')), 'hex');
      select * into v_row from public.source_documents d
       where d.tenant_id = v_src.tenant_id and d.source_id = v_src.id and d.path = v_doc ->> 'path';
      if v_row.id is not null and v_row.content_hash = v_hash and v_row.tombstoned_at is null and v_row.title = v_doc ->> 'title' then
        v_unchanged := v_unchanged + 1;
        continue;
      end if;
      insert into public.source_documents as d (tenant_id, source_id, path, title, body, bytes, content_hash, sensitivity)
      values (v_src.tenant_id, v_src.id, v_doc ->> 'path', v_doc ->> 'title', v_doc ->> 'body',
              octet_length(v_doc ->> 'body'), v_hash, v_src.sensitivity)
      on conflict (tenant_id, source_id, path) do update
        set title = excluded.title, body = excluded.body, bytes = excluded.bytes, content_hash = excluded.content_hash,
            sensitivity = excluded.sensitivity, tombstoned_at = null, updated_at = now()
      returning * into v_row;
      delete from public.source_chunks c
       where c.tenant_id = v_row.tenant_id and c.document_id = v_row.id
         and c.ord >= jsonb_array_length(coalesce(v_doc -> 'chunks', '[]'));
      -- a chunk whose text is unchanged keeps its vector
      insert into public.source_chunks as c (tenant_id, document_id, project_id, ord, heading, start_offset, end_offset, body, doc_title,
                                             content_hash, embedding_status)
      select v_row.tenant_id, v_row.id, v_src.project_id, (x.i - 1)::int, nullif(x.e ->> 'heading', ''),
             (x.e ->> 'start_offset')::int, (x.e ->> 'end_offset')::int, x.e ->> 'text', v_row.title,
             bullpen.memory_hash(v_row.title || E'\n' || coalesce(x.e ->> 'heading', '') || E'\n' || (x.e ->> 'text')), v_status
        from jsonb_array_elements(coalesce(v_doc -> 'chunks', '[]')) with ordinality as x(e, i)
      on conflict (tenant_id, document_id, ord) do update
        set heading = excluded.heading, start_offset = excluded.start_offset, end_offset = excluded.end_offset,
            body = excluded.body, doc_title = excluded.doc_title, project_id = excluded.project_id,
            content_hash = excluded.content_hash,
            embedding_status = case when c.content_hash = excluded.content_hash then c.embedding_status else excluded.embedding_status end,
            embedding_attempts = case when c.content_hash = excluded.content_hash then c.embedding_attempts else 0 end,
            embedding_retry_at = case when c.content_hash = excluded.content_hash then c.embedding_retry_at end;
      v_written := v_written || to_jsonb(v_row.path);
    end loop;
    if jsonb_array_length(v_written) > 0 then
      perform bullpen.memory_wake();
    end if;
    return bullpen.idem_finish(p, jsonb_build_object('sync_id', v_src.sync_id, 'written', v_written, 'unchanged', v_unchanged));
  elsif v_action = 'finish' then
    v_src := bullpen.source_sync_lock(p);
    with gone as (
      update public.source_documents d set tombstoned_at = now(), updated_at = now()
       where d.tenant_id = v_src.tenant_id and d.source_id = v_src.id and d.tombstoned_at is null
         and not (d.path = any (bullpen.text_array(p -> 'paths')))
      returning d.id, d.path
    ), dropped as (
      delete from public.source_chunks c using gone where c.tenant_id = v_src.tenant_id and c.document_id = gone.id
    )
    select coalesce(jsonb_agg(gone.path order by gone.path), '[]') into v_gone from gone;
    update public.sources s
       set sync_id = null, sync_actor_id = null, sync_expires_at = null, last_sync_at = now(),
           last_errors = coalesce(p -> 'errors', '[]'),
           last_sync_stats = coalesce(p -> 'stats', '{}') || jsonb_build_object('tombstoned', jsonb_array_length(v_gone),
             'files', jsonb_array_length(coalesce(p -> 'paths', '[]')), 'started_at', s.sync_started_at, 'finished_at', now())
     where s.tenant_id = v_src.tenant_id and s.id = v_src.id returning * into v_src;
    perform bullpen.log('source.synced', 'source', v_src.id, v_src.project_id,
      format('source %s: %s files, %s tombstoned, %s errors', v_src.name, jsonb_array_length(coalesce(p -> 'paths', '[]')),
             jsonb_array_length(v_gone), jsonb_array_length(v_src.last_errors)),
      v_src.last_sync_stats);
    return bullpen.idem_finish(p, jsonb_build_object('source', bullpen.source_json(v_src), 'tombstoned', v_gone));
  end if;
  perform bullpen.fail('VALIDATION_ERROR', 'action: begin, put or finish');
  return null;
end
$$;
alter function public.source_sync(jsonb) owner to bullpen_writer;

/** The workspace's sources with their counts, last sync and errors. */
create or replace function public.source_list(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_project uuid;
begin
  perform bullpen.require_actor();
  if p ->> 'project_id' is not null then
    v_project := (bullpen.resolve_project(p ->> 'project_id')).id;
  end if;
  return jsonb_build_object('sources', (select coalesce(jsonb_agg(bullpen.source_json(s) order by s.name), '[]'::jsonb)
    from public.sources s where s.tenant_id = (select bullpen.tenant_id()) and (v_project is null or s.project_id = v_project)));
end
$$;
alter function public.source_list(jsonb) owner to bullpen_writer;

create or replace function bullpen.resolve_source_document(p jsonb, p_field text default 'document_id') returns public.source_documents
language plpgsql stable
as $$
declare
  v public.source_documents;
begin
  select * into v from public.source_documents d where d.tenant_id = (select bullpen.tenant_id()) and d.id = bullpen.uuid_arg(p, p_field);
  if v.id is null then
    perform bullpen.fail('NOT_FOUND', format('%s: no source document %s in this workspace', p_field, p ->> p_field),
      'knowledge_search {types: ["chunk"]} finds documents by their text');
  end if;
  return v;
end
$$;

/** A source document (without its text) and its chunks in order; a tombstoned one has none. */
create or replace function public.source_get(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v public.source_documents;
begin
  perform bullpen.require_actor();
  v := bullpen.resolve_source_document(p);
  return jsonb_build_object('document', bullpen.source_document_json(v),
    'chunks', (select coalesce(jsonb_agg(bullpen.source_chunk_json(c) order by c.ord), '[]'::jsonb)
                 from public.source_chunks c where c.tenant_id = v.tenant_id and c.document_id = v.id));
end
$$;
alter function public.source_get(jsonb) owner to bullpen_writer;

/** A chunk with up to context_chunks neighbours on each side, and its document. */
create or replace function public.chunk_get(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v public.source_chunks;
  v_n int := greatest(0, least(coalesce((p ->> 'context_chunks')::int, 0), 10));
begin
  perform bullpen.require_actor();
  select * into v from public.source_chunks c where c.tenant_id = (select bullpen.tenant_id()) and c.id = bullpen.uuid_arg(p, 'chunk_id');
  if v.id is null then
    perform bullpen.fail('NOT_FOUND', format('chunk_id: no chunk %s in this workspace', p ->> 'chunk_id'),
      'chunk ids change when their document is re-synced: search again');
  end if;
  return jsonb_build_object('chunk', bullpen.source_chunk_json(v),
    'document', (select bullpen.source_document_json(d) from public.source_documents d where d.tenant_id = v.tenant_id and d.id = v.document_id),
    'before', (select coalesce(jsonb_agg(bullpen.source_chunk_json(c) order by c.ord), '[]'::jsonb) from public.source_chunks c
                where c.tenant_id = v.tenant_id and c.document_id = v.document_id and c.ord >= v.ord - v_n and c.ord < v.ord),
    'after', (select coalesce(jsonb_agg(bullpen.source_chunk_json(c) order by c.ord), '[]'::jsonb) from public.source_chunks c
                where c.tenant_id = v.tenant_id and c.document_id = v.document_id and c.ord > v.ord and c.ord <= v.ord + v_n));
end
$$;
alter function public.chunk_get(jsonb) owner to bullpen_writer;

/** A chunk as a search hit: its text, place and document. */
create or replace function bullpen.chunk_hit_json(c public.source_chunks) returns jsonb
language sql stable
as $$
  select jsonb_build_object('type', 'chunk', 'id', c.id, 'document_id', c.document_id, 'project_id', c.project_id,
    'source', s.name, 'path', d.path, 'title', d.title, 'heading', c.heading, 'text', c.body,
    'start_offset', c.start_offset, 'end_offset', c.end_offset)
    from public.source_documents d join public.sources s on s.tenant_id = d.tenant_id and s.id = d.source_id
   where d.tenant_id = c.tenant_id and d.id = c.document_id
$$;

/**
 * Whether a recalled hit is an answer (hybrid and semantic modes): near enough by meaning
 * (min_score), or matched by words that cover two thirds of the query, or by fewer words while
 * within three quarters of min_score. A hit with no vector yet (similarity null) that words found
 * is kept. An unrelated query then returns nothing instead of its nearest neighbours; the
 * thresholds are measured by bench/retrieval.ts (retrieval.says_no).
 */
create or replace function bullpen.search_keeps(p_similarity float8, p_lexical_rank float8, p_coverage float8, p_min_score float8)
returns boolean
language sql immutable
as $$
  select coalesce(p_similarity, 0) >= p_min_score
      or (p_lexical_rank is not null and (p_similarity is null or coalesce(p_coverage, 1) >= 0.66 or p_similarity >= p_min_score * 0.75))
$$;

/**
 * The keep rule of a typed search (knowledge_search {types}), stricter than search_keeps where
 * several kinds compete: a hit that words alone carry (no similarity: outside the vector arm's
 * candidates, or no vector yet), and a decision or chunk below min_score, needs half the query's
 * words. A chunk is a long piece of a document and matches a stray word of any query; measured by
 * bench/retrieval.ts (retrieval.says_no, typed): unrelated queries slipped through on one word of
 * four at similarity 0.32–0.40, while no labelled answer leans on such a match.
 */
create or replace function bullpen.search_keeps_typed(p_type text, p_similarity float8, p_lexical_rank float8, p_coverage float8, p_min_score float8)
returns boolean
language sql immutable
as $$
  select bullpen.search_keeps(p_similarity, p_lexical_rank, p_coverage, p_min_score)
     and (coalesce(p_similarity, 0) >= p_min_score or coalesce(p_coverage, 1) >= 0.5
          or (p_type = 'note' and p_similarity is not null))
$$;

/**
 * knowledge_search {types}: notes (their kinds as note, guideline, pattern), decisions (live ones:
 * proposed and accepted) and source chunks, each recalled by bullpen.memory_fuse and merged into
 * one list by fused score. Each hit must pass bullpen.search_keeps_typed.
 */
create or replace function bullpen.knowledge_search_types(p jsonb, p_project uuid, p_types text[], p_offset int, p_top int, p_min_score float8)
returns jsonb
language plpgsql stable
as $$
declare
  v_tenant uuid := bullpen.tenant_id();
  v_tags text[] := case when p ? 'tags' then bullpen.text_array(p -> 'tags') end;
  v_q jsonb := p || jsonb_build_object('top_k', least(p_offset + p_top + 1, 100));
  v_notes jsonb := '{"results": []}';
  v_decisions jsonb := '{"results": []}';
  v_chunks jsonb := '{"results": []}';
  v_any jsonb;
  v_page jsonb;
begin
  if p_types && array['note', 'guideline', 'pattern'] then
    v_notes := bullpen.memory_fuse('note', v_q || jsonb_build_object('top_k', 100),
      jsonb_build_object('project_id', p_project, 'kind', p ->> 'kind', 'tags', to_jsonb(v_tags)));
    v_any := v_notes;
  end if;
  if 'decision' = any (p_types) then
    v_decisions := bullpen.memory_fuse('decision', v_q, jsonb_build_object('project_id', p_project, 'statuses', '["proposed", "accepted"]'::jsonb));
    v_any := v_decisions;
  end if;
  if 'chunk' = any (p_types) then
    v_chunks := bullpen.memory_fuse('chunk', v_q, jsonb_build_object('project_id', p_project));
    v_any := v_chunks;
  end if;
  -- one fusion over every type: the vector ranks and the word ranks of all candidates together,
  -- so a type's first hit does not outrank another type's better one
  with hits as (
    select 'note' as t, r.* from jsonb_to_recordset(v_notes -> 'results') as r(id uuid, similarity float8, lexical_rank float8, coverage float8)
    union all
    select 'decision', r.* from jsonb_to_recordset(v_decisions -> 'results') as r(id uuid, similarity float8, lexical_rank float8, coverage float8)
    union all
    select 'chunk', r.* from jsonb_to_recordset(v_chunks -> 'results') as r(id uuid, similarity float8, lexical_rank float8, coverage float8)
  ), typed as (
    select h.*, case when h.t = 'note' then (select case when n.kind in ('guideline', 'pattern') then n.kind else 'note' end
                                               from public.knowledge_notes n where n.tenant_id = v_tenant and n.id = h.id)
                     else h.t end as type
      from hits h
     where v_any ->> 'mode' = 'lexical' or bullpen.search_keeps_typed(h.t, h.similarity, h.lexical_rank, h.coverage, p_min_score)
  ), fused as (
    select t.*,
           coalesce(1.0 / (30 + case when t.similarity > 0 then rank() over (partition by t.similarity > 0 order by t.similarity desc) end), 0)
           + coalesce(coalesce(t.coverage, 1) / (30 + case when t.lexical_rank is not null
                        then rank() over (partition by t.lexical_rank is not null order by t.lexical_rank desc) end), 0) as score
      from typed t where t.type = any (p_types)
  ), ranked as (
    select f.*, row_number() over (order by f.score desc, f.similarity desc nulls last, f.id) as o from fused f
  )
  select coalesce(jsonb_agg(
           case r.t when 'note' then (select bullpen.note_json(n) from public.knowledge_notes n where n.tenant_id = v_tenant and n.id = r.id)
                    when 'decision' then (select bullpen.decision_json(d) from public.decisions d where d.tenant_id = v_tenant and d.id = r.id)
                    else (select bullpen.chunk_hit_json(c) from public.source_chunks c where c.tenant_id = v_tenant and c.id = r.id) end
           || jsonb_build_object('type', r.type, 'similarity', round(r.similarity::numeric, 4), 'lexical_rank', r.lexical_rank,
                                 'score', round(r.score::numeric, 6))
           order by r.o), '[]'::jsonb)
    into v_page
    from ranked r where r.o > p_offset and r.o <= p_offset + p_top + 1;
  return jsonb_build_object(
    'results', coalesce((select jsonb_agg(e order by i) from jsonb_array_elements(v_page) with ordinality x(e, i) where i <= p_top), '[]'),
    'mode', coalesce(v_any ->> 'mode', 'lexical'), 'model', v_any -> 'model', 'fallback_reason', v_any -> 'fallback_reason',
    'next_cursor', case when jsonb_array_length(v_page) > p_top then encode(convert_to((p_offset + p_top)::text, 'utf8'), 'base64') end);
end
$$;

revoke all on function public.source_sync(jsonb) from public, anon;
grant execute on function public.source_sync(jsonb) to authenticated, service_role;
revoke all on function public.source_list(jsonb) from public, anon;
grant execute on function public.source_list(jsonb) to authenticated, service_role;
revoke all on function public.source_get(jsonb) from public, anon;
grant execute on function public.source_get(jsonb) to authenticated, service_role;
revoke all on function public.chunk_get(jsonb) from public, anon;
grant execute on function public.chunk_get(jsonb) to authenticated, service_role;

revoke all on function bullpen.resolve_source(text, text) from public, anon, authenticated;
grant execute on function bullpen.resolve_source(text, text) to bullpen_writer, service_role;
revoke all on function bullpen.source_json(public.sources) from public, anon, authenticated;
grant execute on function bullpen.source_json(public.sources) to bullpen_writer, service_role;
revoke all on function bullpen.source_document_json(public.source_documents) from public, anon, authenticated;
grant execute on function bullpen.source_document_json(public.source_documents) to bullpen_writer, service_role;
revoke all on function bullpen.source_chunk_json(public.source_chunks) from public, anon, authenticated;
grant execute on function bullpen.source_chunk_json(public.source_chunks) to bullpen_writer, service_role;
revoke all on function bullpen.source_sync_lock(jsonb) from public, anon, authenticated;
grant execute on function bullpen.source_sync_lock(jsonb) to bullpen_writer, service_role;
revoke all on function bullpen.resolve_source_document(jsonb, text) from public, anon, authenticated;
grant execute on function bullpen.resolve_source_document(jsonb, text) to bullpen_writer, service_role;
revoke all on function bullpen.chunk_hit_json(public.source_chunks) from public, anon, authenticated;
grant execute on function bullpen.chunk_hit_json(public.source_chunks) to bullpen_writer, service_role;
revoke all on function bullpen.search_keeps(float8, float8, float8, float8) from public, anon, authenticated;
grant execute on function bullpen.search_keeps(float8, float8, float8, float8) to bullpen_writer, service_role;
revoke all on function bullpen.search_keeps_typed(text, float8, float8, float8, float8) from public, anon, authenticated;
grant execute on function bullpen.search_keeps_typed(text, float8, float8, float8, float8) to bullpen_writer, service_role;
revoke all on function bullpen.knowledge_search_types(jsonb, uuid, text[], int, int, float8) from public, anon, authenticated;
grant execute on function bullpen.knowledge_search_types(jsonb, uuid, text[], int, int, float8) to bullpen_writer, service_role;

comment on function public.source_sync(jsonb) is 'One step of a document source sync (begin, put, finish) under a per-source lock.';
comment on function public.chunk_get(jsonb) is 'A source chunk with up to ten neighbours on each side, and its document.';
