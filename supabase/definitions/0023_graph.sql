-- Memory as a graph: link_add, link_remove, find_related, guidelines_get and knowledge_retract.
-- Tables and the trigger that forgets a deleted object's links are in
-- supabase/migrations/0023_graph.sql.

create or replace function bullpen.links_forget() returns trigger
language plpgsql
as $$
begin
  delete from public.links l
   where l.tenant_id = old.tenant_id
     and ((l.from_id = old.id and l.from_type = tg_argv[0]) or (l.to_id = old.id and l.to_type = tg_argv[0]));
  return old;
end
$$;

/**
 * One object of the caller's workspace as a graph node: {type, id, label, project_id, status,
 * tags}, or null when there is none (gone, expired, another workspace's).
 */
create or replace function bullpen.link_object(p_type text, p_id uuid) returns jsonb
language plpgsql stable
as $$
declare
  v_tenant uuid := bullpen.tenant_id();
begin
  -- one small statement per type, each planned once per session
  if p_type = 'task' then
    return (select jsonb_build_object('type', 'task', 'id', t.id, 'label', pr.key || '-' || t.seq || ' ' || t.title,
                        'project_id', t.project_id, 'status', t.status, 'tags', to_jsonb(t.labels))
                        from public.tasks t join public.projects pr on pr.tenant_id = t.tenant_id and pr.id = t.project_id
                       where t.tenant_id = v_tenant and t.id = p_id);
  elsif p_type = 'project' then
    return (select jsonb_build_object('type', 'project', 'id', pr.id, 'label', pr.key || ' ' || pr.title,
                           'project_id', pr.id, 'status', pr.status, 'tags', '[]'::jsonb)
                           from public.projects pr where pr.tenant_id = v_tenant and pr.id = p_id);
  elsif p_type = 'decision' then
    return (select jsonb_build_object('type', 'decision', 'id', d.id, 'label', d.title,
                            'project_id', d.project_id, 'status', d.status, 'tags', to_jsonb(d.tags))
                            from public.decisions d where d.tenant_id = v_tenant and d.id = p_id);
  elsif p_type = 'note' then
    return (select jsonb_build_object('type', 'note', 'id', n.id, 'label', n.title, 'project_id', n.project_id,
                        'status', case when n.retracted_at is not null then 'retracted'
                                       when n.superseded_by is not null then 'superseded' else n.kind end,
                        'tags', to_jsonb(n.tags))
                        from public.knowledge_notes n
                       where n.tenant_id = v_tenant and n.id = p_id and (n.expires_at is null or n.expires_at > now()));
  elsif p_type = 'handoff' then
    return (select jsonb_build_object('type', 'handoff', 'id', h.id, 'label', h.title,
                           'project_id', h.related_project_id, 'status', h.status, 'tags', '[]'::jsonb)
                           from public.handoffs h where h.tenant_id = v_tenant and h.id = p_id);
  elsif p_type = 'skill' then
    return (select jsonb_build_object('type', 'skill', 'id', s.id, 'label', s.slug, 'project_id', s.project_id,
                         'status', s.status, 'tags', to_jsonb(s.tags))
                         from public.skills s where s.tenant_id = v_tenant and s.id = p_id);
  elsif p_type = 'run' then
    return (select jsonb_build_object('type', 'run', 'id', r.id, 'label', coalesce(r.label, r.run_key), 'project_id', null,
                       'status', r.status, 'tags', '[]'::jsonb)
                       from public.runs r where r.tenant_id = v_tenant and r.id = p_id);
  elsif p_type = 'code_ref' then
    return (select jsonb_build_object('type', 'code_ref', 'id', c.id,
                            'label', coalesce(c.title, c.ref_type || ' ' || coalesce(c.sha, c.branch, c.tag, c.pr_number::text, '')),
                            'project_id', c.project_id, 'status', c.pr_state, 'tags', '[]'::jsonb)
                            from public.code_refs c where c.tenant_id = v_tenant and c.id = p_id);
  elsif p_type = 'attachment' then
    return (select jsonb_build_object('type', 'attachment', 'id', a.id, 'label', coalesce(a.title, a.filename, a.kind),
                              'project_id', null, 'status', null, 'tags', '[]'::jsonb)
                              from public.attachments a where a.tenant_id = v_tenant and a.id = p_id);
  elsif p_type = 'source' then
    return (select jsonb_build_object('type', 'source', 'id', d.id, 'label', d.title || ' (' || d.path || ')', 'project_id', s.project_id,
                          'status', case when d.tombstoned_at is null then 'live' else 'tombstoned' end, 'tags', '[]'::jsonb)
                          from public.source_documents d join public.sources s on s.tenant_id = d.tenant_id and s.id = d.source_id
                         where d.tenant_id = v_tenant and d.id = p_id);
  end if;
  return null;
end
$$;

/** An end of a link, {type, id}: tasks take KEY-N, projects their key, runs their run key; NOT_FOUND names the field. */
create or replace function bullpen.link_end(p jsonb, p_field text) returns jsonb
language plpgsql stable
as $$
declare
  v_type text := p ->> 'type';
  v_ref text := p ->> 'id';
  v_id uuid;
  v_obj jsonb;
begin
  if v_type is null or v_ref is null then
    perform bullpen.fail('VALIDATION_ERROR', format('%s: needs {type, id}', p_field));
  end if;
  if v_type in ('task', 'project', 'run') then
    v_id := (bullpen.resolve_object(v_type, v_ref, p_field || '.id') ->> 'object_id')::uuid;
  elsif v_ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    v_id := v_ref::uuid;
  else
    perform bullpen.fail('VALIDATION_ERROR', format('%s.id: a %s is named by its uuid', p_field, v_type));
  end if;
  v_obj := bullpen.link_object(v_type, v_id);
  if v_obj is null then
    perform bullpen.fail('NOT_FOUND', format('%s: no %s %s in this workspace', p_field, v_type, v_ref),
      format('look the %s up with its query tool', v_type));
  end if;
  return v_obj;
end
$$;

create or replace function bullpen.link_json(l public.links) returns jsonb
language sql stable
as $$
  select jsonb_build_object('id', l.id, 'from', jsonb_build_object('type', l.from_type, 'id', l.from_id),
    'to', jsonb_build_object('type', l.to_type, 'id', l.to_id), 'relation', l.relation, 'strength', round(l.strength::numeric, 3),
    'note', l.note, 'created_by_actor_id', l.created_by_actor_id, 'created_at', l.created_at, 'updated_at', l.updated_at)
$$;

/** Links two objects; the same pair and relation again updates the strength and note. */
create or replace function public.link_add(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_from jsonb;
  v_to jsonb;
  v_rel text := coalesce(p ->> 'relation', 'relates_to');
  v_strength real := coalesce((p ->> 'strength')::real, 1);
  v_link public.links;
  v_created boolean;
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('link_add', p);
  if v_replay is not null then
    return v_replay;
  end if;
  v_from := bullpen.link_end(p -> 'from', 'from');
  v_to := bullpen.link_end(p -> 'to', 'to');
  if v_rel = 'depends_on' and v_from ->> 'type' = 'task' and v_to ->> 'type' = 'task' then
    perform bullpen.fail('VALIDATION_ERROR', 'relation: depends_on between two tasks is a task dependency, kept by task_link',
      'call task_link {task_id, add_depends_on: [...]}: it checks cycles and readiness');
  end if;
  if v_from ->> 'id' = v_to ->> 'id' then
    perform bullpen.fail('VALIDATION_ERROR', 'to: an object is not linked to itself');
  end if;
  insert into public.links as l (tenant_id, from_type, from_id, to_type, to_id, relation, strength, note, created_by_actor_id)
  values (bullpen.tenant_id(), v_from ->> 'type', (v_from ->> 'id')::uuid, v_to ->> 'type', (v_to ->> 'id')::uuid, v_rel,
          v_strength, p ->> 'note', bullpen.actor_id())
  on conflict (tenant_id, from_type, from_id, to_type, to_id, relation) do update
    set strength = excluded.strength, note = coalesce(excluded.note, l.note), updated_at = now()
  returning l.id, (l.xmax = 0) into v_link.id, v_created;
  select * into v_link from public.links l where l.tenant_id = (select bullpen.tenant_id()) and l.id = v_link.id;
  perform bullpen.log(case when v_created then 'link.added' else 'link.updated' end, v_link.from_type, v_link.from_id,
    coalesce((v_from ->> 'project_id')::uuid, (v_to ->> 'project_id')::uuid),
    format('%s %s %s', v_from ->> 'label', v_rel, v_to ->> 'label'),
    jsonb_build_object('link_id', v_link.id, 'to', jsonb_build_object('type', v_link.to_type, 'id', v_link.to_id),
                       'relation', v_rel, 'strength', v_link.strength));
  return bullpen.idem_finish(p, jsonb_build_object('link', bullpen.link_json(v_link), 'created', v_created,
    'from', v_from, 'to', v_to));
end
$$;
alter function public.link_add(jsonb) owner to bullpen_writer;

/** Removes a link by id, or the links between a pair (of one relation, when named). */
create or replace function public.link_remove(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_from jsonb;
  v_to jsonb;
  v_removed jsonb;
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('link_remove', p);
  if v_replay is not null then
    return v_replay;
  end if;
  if p ->> 'link_id' is not null then
    if not exists (select 1 from public.links l where l.tenant_id = (select bullpen.tenant_id()) and l.id = (p ->> 'link_id')::uuid) then
      perform bullpen.fail('NOT_FOUND', format('link_id: no link %s in this workspace', p ->> 'link_id'),
        'find links with find_related');
    end if;
    with gone as (delete from public.links l where l.tenant_id = (select bullpen.tenant_id()) and l.id = (p ->> 'link_id')::uuid returning l.*)
    select coalesce(jsonb_agg(bullpen.link_json(g)), '[]') into v_removed from gone g;
  else
    if p -> 'from' is null or p -> 'to' is null then
      perform bullpen.fail('VALIDATION_ERROR', 'link_id: name the link, or both from and to');
    end if;
    v_from := bullpen.link_end(p -> 'from', 'from');
    v_to := bullpen.link_end(p -> 'to', 'to');
    with gone as (
      delete from public.links l
       where l.tenant_id = (select bullpen.tenant_id()) and l.from_type = v_from ->> 'type' and l.from_id = (v_from ->> 'id')::uuid
         and l.to_type = v_to ->> 'type' and l.to_id = (v_to ->> 'id')::uuid
         and (p ->> 'relation' is null or l.relation = p ->> 'relation')
      returning l.*)
    select coalesce(jsonb_agg(bullpen.link_json(g)), '[]') into v_removed from gone g;
  end if;
  if jsonb_array_length(v_removed) > 0 then
    perform bullpen.log('link.removed', v_removed -> 0 -> 'from' ->> 'type', (v_removed -> 0 -> 'from' ->> 'id')::uuid, null,
      format('%s link(s) removed', jsonb_array_length(v_removed)), jsonb_build_object('links', v_removed));
  end if;
  return bullpen.idem_finish(p, jsonb_build_object('removed', v_removed));
end
$$;
alter function public.link_remove(jsonb) owner to bullpen_writer;

-- find_related builds its paths in its own statement now
drop function if exists bullpen.link_path(jsonb, text);

/**
 * The neighbourhood of an object: every object within `depth` links (either direction), each with
 * its distance, the path of relations that first reached it (the strongest at that distance), the
 * product of the strengths along it, and the tags it shares with the start. Walked breadth-first,
 * one statement per level, each level keeping at most 1,000 new nodes (the strongest).
 */
create or replace function public.find_related(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
-- the per-level statements' row estimates are guesses; a JIT compile would cost more than the walk
set jit = off
as $$
declare
  v_tenant uuid;
  v_root jsonb;
  v_root_id uuid;
  v_depth int := greatest(1, least(coalesce((p ->> 'depth')::int, 1), 3));
  v_limit int := greatest(1, least(coalesce((p ->> 'limit')::int, 20), 200));
  v_rels text[] := case when jsonb_typeof(p -> 'relations') = 'array' then bullpen.text_array(p -> 'relations') end;
  v_out jsonb;
begin
  perform bullpen.require_actor();
  v_tenant := bullpen.tenant_id();
  v_root := bullpen.link_end(jsonb_build_object('type', p ->> 'type', 'id', p ->> 'id'), 'id');
  v_root_id := (v_root ->> 'id')::uuid;
  -- Breadth-first in one statement, a CTE per level: each level's frontier joins the links both
  -- ways (links_from_idx, links_to_idx), drops what an earlier level reached (hash anti-joins),
  -- keeps each node's strongest way in (its `via`), and at most 1,000 new nodes (the strongest).
  -- Profiled (bench/graph.ts): the earlier walk kept the reached set in a jsonb object and spent
  -- most of a depth-3 call aggregating and probing it; rows and joins are what Postgres is fast at.
  -- A node an earlier level reached keeps that level: one sort over the earlier levels and the new
  -- candidates, not an anti-join, whose estimates (a root has a few links) made it a nested loop
  -- over a dense graph's 10,000 third-level links (30× slower).
  with
  nb1 as (
    select l.to_type as type, l.to_id as id, l.relation, l.strength, l.id as link_id, 'out' as direction
      from public.links l
     where l.tenant_id = v_tenant and l.from_id = v_root_id and l.from_type = v_root ->> 'type' and (v_rels is null or l.relation = any (v_rels))
    union all
    select l.from_type, l.from_id, l.relation, l.strength, l.id, 'in'
      from public.links l
     where l.tenant_id = v_tenant and l.to_id = v_root_id and l.to_type = v_root ->> 'type' and (v_rels is null or l.relation = any (v_rels))
  ),
  lv1 as materialized (
    select * from (
      select distinct on (nb.id) 1 as dist, nb.type, nb.id, nb.relation, nb.strength, nb.link_id, nb.direction,
             nb.strength::float8 as total, v_root_id as src_id
        from nb1 nb
       where nb.id <> v_root_id
         -- a note the caller may not see (sensitive: the table's policy hides it) is no step on a path
         and (nb.type <> 'note' or exists (select 1 from public.knowledge_notes n where n.tenant_id = v_tenant and n.id = nb.id))
       order by nb.id, nb.strength desc, nb.type) b
     order by b.total desc, b.id limit 1000
  ),
  nb2 as (
    select f.id as src_id, f.total * l.strength as total, l.to_type as type, l.to_id as id, l.relation, l.strength, l.id as link_id, 'out' as direction
      from lv1 f join public.links l on l.tenant_id = v_tenant and l.from_id = f.id and l.from_type = f.type
     where v_depth >= 2 and (v_rels is null or l.relation = any (v_rels))
    union all
    select f.id, f.total * l.strength, l.from_type, l.from_id, l.relation, l.strength, l.id, 'in'
      from lv1 f join public.links l on l.tenant_id = v_tenant and l.to_id = f.id and l.to_type = f.type
     where v_depth >= 2 and (v_rels is null or l.relation = any (v_rels))
  ),
  lv2 as materialized (
    select * from (
      select distinct on (u.id) u.* from (
        select * from lv1
        union all
        select 2, nb.type, nb.id, nb.relation, nb.strength, nb.link_id, nb.direction, nb.total, nb.src_id
          from nb2 nb
         where nb.id <> v_root_id) u
       order by u.id, u.dist, u.total desc, u.type) b
     -- a hidden note is dropped once per node, not once per link that reaches it
     where b.dist = 2
       and (b.type <> 'note' or exists (select 1 from public.knowledge_notes n where n.tenant_id = v_tenant and n.id = b.id))
     order by b.total desc, b.id limit 1000
  ),
  nb3 as (
    select f.id as src_id, f.total * l.strength as total, l.to_type as type, l.to_id as id, l.relation, l.strength, l.id as link_id, 'out' as direction
      from lv2 f join public.links l on l.tenant_id = v_tenant and l.from_id = f.id and l.from_type = f.type
     where v_depth >= 3 and (v_rels is null or l.relation = any (v_rels))
    union all
    select f.id, f.total * l.strength, l.from_type, l.from_id, l.relation, l.strength, l.id, 'in'
      from lv2 f join public.links l on l.tenant_id = v_tenant and l.to_id = f.id and l.to_type = f.type
     where v_depth >= 3 and (v_rels is null or l.relation = any (v_rels))
  ),
  lv3 as materialized (
    select * from (
      select distinct on (u.id) u.* from (
        select * from lv1
        union all
        select * from lv2
        union all
        select 3, nb.type, nb.id, nb.relation, nb.strength, nb.link_id, nb.direction, nb.total, nb.src_id
          from nb3 nb
         where nb.id <> v_root_id) u
       order by u.id, u.dist, u.total desc, u.type) b
     -- a hidden note is dropped once per node, not once per link that reaches it
     where b.dist = 3
       and (b.type <> 'note' or exists (select 1 from public.knowledge_notes n where n.tenant_id = v_tenant and n.id = b.id))
     order by b.total desc, b.id limit 1000
  ),
  reached as (
    select * from lv1 union all select * from lv2 union all select * from lv3
  ),
  ranked as (
    select r.*, jsonb_build_object('relation', r.relation, 'direction', r.direction, 'strength', round(r.strength::numeric, 3), 'link_id', r.link_id) as via,
           row_number() over (order by r.dist, r.total desc, r.id::text) as rn
      from reached r
  ),
  -- describe only the nodes that make the page (a node gone meanwhile is skipped), once each
  page as materialized (
    select k.*, bullpen.link_object(k.type, k.id) as obj from ranked k where k.rn <= v_limit + 20
  ),
  shown as (
    select g.*, row_number() over (order by g.rn) as pos from page g where g.obj is not null
  )
  select jsonb_build_object(
           'nodes', coalesce(jsonb_agg(g.obj || jsonb_build_object('distance', g.dist, 'strength', round(g.total::numeric, 4),
               -- the links from the root, in order: each node's way in, then its source's, then that one's
               'path', case g.dist
                         when 1 then jsonb_build_array(g.via)
                         when 2 then jsonb_build_array(s1.via, g.via)
                         else jsonb_build_array(s1b.via, s1.via, g.via) end,
               'shared_tags', to_jsonb(array(select jsonb_array_elements_text(g.obj -> 'tags')
                                             intersect select jsonb_array_elements_text(v_root -> 'tags'))))
             order by g.rn) filter (where g.pos <= v_limit), '[]'),
           'total', (select count(*)::int from reached))
    into v_out
    from shown g
    left join ranked s1 on s1.dist = g.dist - 1 and s1.id = g.src_id
    left join ranked s1b on s1b.dist = 1 and s1b.id = s1.src_id and g.dist = 3;
  return jsonb_build_object('root', v_root, 'nodes', coalesce(v_out -> 'nodes', '[]'), 'total', coalesce((v_out ->> 'total')::int, 0), 'depth', v_depth);
end
$$;
alter function public.find_related(jsonb) owner to bullpen_writer;

/**
 * The guidelines in force: a project's own first, then the workspace's shared ones that no project
 * guideline shadows (same language, category and title, case-insensitive).
 */
create or replace function public.guidelines_get(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_project uuid;
  v_shared boolean := coalesce((p ->> 'include_shared')::boolean, true);
  v_lang text := p ->> 'language';
  v_cat text := p ->> 'category';
begin
  perform bullpen.require_actor();
  if p ->> 'project_id' is not null then
    v_project := (bullpen.resolve_project(p ->> 'project_id')).id;
  end if;
  return jsonb_build_object('guidelines', (
    with g as (
      select n.id, n.title, n.language, n.category, case when n.project_id is null then 'shared' else 'project' end as scope,
             lower(coalesce(n.language, '')) || '|' || lower(coalesce(n.category, '')) || '|' || lower(n.title) as k
        from public.knowledge_notes n
       where n.tenant_id = (select bullpen.tenant_id()) and n.kind = 'guideline'
         and (n.expires_at is null or n.expires_at > now()) and n.retracted_at is null and n.superseded_by is null
         and (v_lang is null or lower(n.language) = lower(v_lang))
         and (v_cat is null or lower(n.category) = lower(v_cat))
         and ((v_project is not null and n.project_id = v_project) or n.project_id is null)
    ), kept as (
      select g.*, (select s.id from g s where g.scope = 'project' and s.scope = 'shared' and s.k = g.k limit 1) as shadows
        from g
       where g.scope = 'project' or (v_shared and not exists (select 1 from g pr where pr.scope = 'project' and pr.k = g.k))
    )
    select coalesce(jsonb_agg(bullpen.note_json(n) || jsonb_build_object('scope', kept.scope, 'shadows', kept.shadows)
             order by (kept.scope = 'project') desc, kept.language nulls first, kept.category nulls first, kept.title, kept.id), '[]'::jsonb)
      from kept join public.knowledge_notes n on n.tenant_id = (select bullpen.tenant_id()) and n.id = kept.id),
    'project_id', v_project);
end
$$;
alter function public.guidelines_get(jsonb) owner to bullpen_writer;

/** Marks a note retracted: readable by id, gone from search; the reason is kept. */
create or replace function public.knowledge_retract(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_note public.knowledge_notes;
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('knowledge_retract', p);
  if v_replay is not null then
    return v_replay;
  end if;
  v_note := bullpen.resolve_note(p ->> 'note_id');
  if nullif(btrim(p ->> 'reason'), '') is null then
    perform bullpen.fail('VALIDATION_ERROR', 'reason: say why the note is retracted');
  end if;
  if v_note.retracted_at is null then
    update public.knowledge_notes n
       set retracted_at = now(), retracted_reason = p ->> 'reason', retracted_by_actor_id = bullpen.actor_id(),
           updated_by_actor_id = bullpen.actor_id(), updated_at = now(), version = n.version + 1
     where n.tenant_id = v_note.tenant_id and n.id = v_note.id
    returning * into v_note;
    perform bullpen.log('note.retracted', 'note', v_note.id, v_note.project_id, v_note.title,
      jsonb_build_object('reason', v_note.retracted_reason));
  end if;
  return bullpen.idem_finish(p, jsonb_build_object('note', bullpen.note_json(v_note)));
end
$$;
alter function public.knowledge_retract(jsonb) owner to bullpen_writer;

revoke all on function public.link_add(jsonb) from public, anon;
grant execute on function public.link_add(jsonb) to authenticated, service_role;
revoke all on function public.link_remove(jsonb) from public, anon;
grant execute on function public.link_remove(jsonb) to authenticated, service_role;
revoke all on function public.find_related(jsonb) from public, anon;
grant execute on function public.find_related(jsonb) to authenticated, service_role;
revoke all on function public.guidelines_get(jsonb) from public, anon;
grant execute on function public.guidelines_get(jsonb) to authenticated, service_role;
revoke all on function public.knowledge_retract(jsonb) from public, anon;
grant execute on function public.knowledge_retract(jsonb) to authenticated, service_role;

revoke all on function bullpen.links_forget() from public, anon, authenticated;
revoke all on function bullpen.link_object(text, uuid) from public, anon, authenticated;
grant execute on function bullpen.link_object(text, uuid) to bullpen_writer, service_role;
revoke all on function bullpen.link_end(jsonb, text) from public, anon, authenticated;
grant execute on function bullpen.link_end(jsonb, text) to bullpen_writer, service_role;
revoke all on function bullpen.link_json(public.links) from public, anon, authenticated;
grant execute on function bullpen.link_json(public.links) to bullpen_writer, service_role;

comment on function public.link_add(jsonb) is 'Links two objects of the workspace with a typed relation and a strength; the same pair and relation again updates it.';
comment on function public.find_related(jsonb) is 'The neighbourhood of an object over typed links, up to depth 3, ranked by distance then by the product of strengths.';
