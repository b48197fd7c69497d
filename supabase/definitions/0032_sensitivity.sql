-- Sensitivity and the reads behind MCP resources and prompts. The column, the restrictive policy
-- and the activity trigger are in supabase/migrations/0032_sensitivity.sql.

/**
 * Whether the caller may see sensitive items: its claims say `sensitive` (the server sets it for a
 * key with the sensitive scope and for a person's console session). Every sensitivity policy is
 * `sensitivity = 'normal' or (select bullpen.can_see_sensitive())`.
 */
create or replace function bullpen.can_see_sensitive() returns boolean
language sql stable
as $$ select coalesce((bullpen.claims() ->> 'sensitive')::boolean, false) $$;

/** A log line about a sensitive note names no title or tags (the activity log is every key's). */
create or replace function bullpen.activity_sensitive_scrub() returns trigger
language plpgsql
as $$
begin
  if new.object_type = 'note' and new.object_id is not null and exists (
       select 1 from public.knowledge_notes n
        where n.tenant_id = new.tenant_id and n.id = new.object_id and n.sensitivity = 'sensitive') then
    new.summary := 'a sensitive note';
    new.metadata := new.metadata - 'tags';
  elsif new.verb like 'link.%' and new.metadata -> 'to' ->> 'type' = 'note' and exists (
       select 1 from public.knowledge_notes n
        where n.tenant_id = new.tenant_id and n.id = (new.metadata -> 'to' ->> 'id')::uuid and n.sensitivity = 'sensitive') then
    new.summary := format('%s a sensitive note', coalesce(new.metadata ->> 'relation', 'linked to'));
  end if;
  return new;
end
$$;

/** Refuses a write that would make a note sensitive from a caller that may not see it. */
create or replace function bullpen.assert_sensitivity(p_value text, p_field text) returns void
language plpgsql stable
as $$
begin
  if p_value = 'sensitive' and not bullpen.can_see_sensitive() then
    perform bullpen.fail('FORBIDDEN', format('%s: only a key with the sensitive scope (or a person) writes sensitive notes', p_field),
      'omit sensitivity (normal), or ask an owner for a key with the sensitive scope');
  end if;
end
$$;

/**
 * One note by id, as the MCP resources read it (bullpen://note/{id}, bullpen://guideline/{id}:
 * kind names the kind it must be). NOT_FOUND for another workspace's id, an expired note, or a
 * sensitive note the caller may not see (the table's policy hides it).
 */
create or replace function public.note_item(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_note public.knowledge_notes;
begin
  perform bullpen.require_actor();
  v_note := bullpen.resolve_note(p ->> 'id', 'id');
  if p ->> 'kind' is not null and v_note.kind <> p ->> 'kind' then
    perform bullpen.fail('NOT_FOUND', format('id: no %s %s in this workspace (it is a %s)', p ->> 'kind', v_note.id, v_note.kind),
      'read it as bullpen://note/' || v_note.id);
  end if;
  return jsonb_build_object('note', bullpen.note_json(v_note));
end
$$;
alter function public.note_item(jsonb) owner to bullpen_writer;

/** One decision by id, as bullpen://decision/{id} reads it; NOT_FOUND outside the caller's workspace. */
create or replace function public.decision_item(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
begin
  perform bullpen.require_actor();
  return jsonb_build_object('decision', bullpen.decision_json(bullpen.resolve_decision(p ->> 'id', 'id')));
end
$$;
alter function public.decision_item(jsonb) owner to bullpen_writer;

/** One handoff by id, for the handoff_brief prompt: every handoff of the workspace is readable (as handoff_query shows). */
create or replace function public.handoff_item(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform bullpen.require_actor();
  return jsonb_build_object('handoff', bullpen.handoff_json(bullpen.resolve_handoff(p ->> 'id', 'id')));
end
$$;
alter function public.handoff_item(jsonb) owner to bullpen_writer;

/**
 * What a project holds, for the summarize_project prompt: counts by type, top tags, the newest
 * additions, key (accepted) decisions, active patterns and open risks (blocked tasks, proposed
 * decisions, notes tagged risk, contradicting notes). Notes are live ones: not expired, retracted
 * or superseded, and not sensitive unless the caller may see them (the policy again).
 */
create or replace function public.project_summary(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_pr public.projects;
  v_tenant uuid;
begin
  perform bullpen.require_actor();
  v_pr := bullpen.resolve_project(p ->> 'project', 'project');
  v_tenant := v_pr.tenant_id;
  return jsonb_build_object(
    'project', jsonb_build_object('id', v_pr.id, 'key', v_pr.key, 'title', v_pr.title, 'status', v_pr.status),
    'counts', jsonb_build_object(
      'tasks', (select coalesce(jsonb_object_agg(s.status, s.n), '{}') from (
                  select t.status, count(*) as n from public.tasks t
                   where t.tenant_id = v_tenant and t.project_id = v_pr.id group by t.status) s),
      'decisions', (select coalesce(jsonb_object_agg(s.status, s.n), '{}') from (
                  select d.status, count(*) as n from public.decisions d
                   where d.tenant_id = v_tenant and d.project_id = v_pr.id group by d.status) s),
      'notes', (select coalesce(jsonb_object_agg(s.kind, s.n), '{}') from (
                  select n.kind, count(*) as n from public.knowledge_notes n
                   where n.tenant_id = v_tenant and n.project_id = v_pr.id and (n.expires_at is null or n.expires_at > now())
                     and n.retracted_at is null and n.superseded_by is null group by n.kind) s)),
    'top_tags', (select coalesce(jsonb_agg(jsonb_build_object('tag', s.tag, 'count', s.n) order by s.n desc, s.tag), '[]') from (
                  select x.tag, count(*) as n from (
                    select unnest(n.tags) as tag from public.knowledge_notes n
                     where n.tenant_id = v_tenant and n.project_id = v_pr.id and (n.expires_at is null or n.expires_at > now())
                       and n.retracted_at is null and n.superseded_by is null
                    union all
                    select unnest(d.tags) from public.decisions d where d.tenant_id = v_tenant and d.project_id = v_pr.id
                    union all
                    select unnest(t.labels) from public.tasks t where t.tenant_id = v_tenant and t.project_id = v_pr.id) x
                   group by x.tag order by count(*) desc, x.tag limit 10) s),
    'recent', (select coalesce(jsonb_agg(r order by r ->> 'at' desc), '[]') from (
                  select jsonb_build_object('type', x.type, 'id', x.id, 'ref', x.ref, 'title', x.title, 'at', x.at) as r from (
                    (select 'task' as type, t.id, v_pr.key || '-' || t.seq as ref, t.title, t.created_at as at from public.tasks t
                      where t.tenant_id = v_tenant and t.project_id = v_pr.id order by t.created_at desc limit 10)
                    union all
                    (select 'decision', d.id, null, d.title, d.created_at from public.decisions d
                      where d.tenant_id = v_tenant and d.project_id = v_pr.id order by d.created_at desc limit 10)
                    union all
                    (select n.kind, n.id, null, n.title, n.created_at from public.knowledge_notes n
                      where n.tenant_id = v_tenant and n.project_id = v_pr.id and (n.expires_at is null or n.expires_at > now())
                        and n.retracted_at is null and n.superseded_by is null order by n.created_at desc limit 10)) x
                   order by x.at desc limit 10) y),
    'key_decisions', (select coalesce(jsonb_agg(jsonb_build_object('id', d.id, 'title', d.title, 'choice', d.choice) order by d.created_at desc), '[]')
                        from (select * from public.decisions d where d.tenant_id = v_tenant and d.project_id = v_pr.id
                                 and d.status = 'accepted' order by d.created_at desc limit 10) d),
    'patterns', (select coalesce(jsonb_agg(jsonb_build_object('id', n.id, 'title', n.title) order by n.updated_at desc), '[]')
                   from (select * from public.knowledge_notes n where n.tenant_id = v_tenant and n.project_id = v_pr.id
                            and n.kind = 'pattern' and (n.expires_at is null or n.expires_at > now())
                            and n.retracted_at is null and n.superseded_by is null order by n.updated_at desc limit 10) n),
    'risks', jsonb_build_object(
      'blocked_tasks', (select coalesce(jsonb_agg(jsonb_build_object('id', t.id, 'ref', v_pr.key || '-' || t.seq, 'title', t.title) order by t.seq), '[]')
                          from (select * from public.tasks t where t.tenant_id = v_tenant and t.project_id = v_pr.id
                                   and t.status = 'blocked' order by t.seq limit 10) t),
      'proposed_decisions', (select coalesce(jsonb_agg(jsonb_build_object('id', d.id, 'title', d.title) order by d.created_at), '[]')
                               from (select * from public.decisions d where d.tenant_id = v_tenant and d.project_id = v_pr.id
                                        and d.status = 'proposed' order by d.created_at limit 10) d),
      'risk_notes', (select coalesce(jsonb_agg(jsonb_build_object('id', n.id, 'title', n.title) order by n.updated_at desc), '[]')
                       from (select * from public.knowledge_notes n where n.tenant_id = v_tenant and n.project_id = v_pr.id
                                and n.tags && array['risk', 'risks'] and (n.expires_at is null or n.expires_at > now())
                                and n.retracted_at is null and n.superseded_by is null order by n.updated_at desc limit 10) n),
      'contradictions', (select coalesce(jsonb_agg(jsonb_build_object('a', a.title, 'b', b.title, 'link_id', l.id) order by l.created_at), '[]')
                           from public.links l
                           join public.knowledge_notes a on a.tenant_id = l.tenant_id and a.id = l.from_id
                           join public.knowledge_notes b on b.tenant_id = l.tenant_id and b.id = l.to_id
                          where l.tenant_id = v_tenant and l.relation = 'contradicts' and l.from_type = 'note' and l.to_type = 'note'
                            and (a.project_id = v_pr.id or b.project_id = v_pr.id))));
end
$$;
alter function public.project_summary(jsonb) owner to bullpen_writer;

revoke all on function bullpen.can_see_sensitive() from public, anon;
grant execute on function bullpen.can_see_sensitive() to authenticated, bullpen_writer, service_role;
revoke all on function bullpen.activity_sensitive_scrub() from public, anon, authenticated;
revoke all on function bullpen.assert_sensitivity(text, text) from public, anon, authenticated;
grant execute on function bullpen.assert_sensitivity(text, text) to bullpen_writer, service_role;
revoke all on function public.note_item(jsonb) from public, anon;
grant execute on function public.note_item(jsonb) to authenticated, service_role;
revoke all on function public.decision_item(jsonb) from public, anon;
grant execute on function public.decision_item(jsonb) to authenticated, service_role;
revoke all on function public.handoff_item(jsonb) from public, anon;
grant execute on function public.handoff_item(jsonb) to authenticated, service_role;
revoke all on function public.project_summary(jsonb) from public, anon;
grant execute on function public.project_summary(jsonb) to authenticated, service_role;

comment on function public.note_item(jsonb) is 'One note by id, as the MCP resources read it; sensitive notes only for callers that may see them.';
comment on function public.decision_item(jsonb) is 'One decision by id, as the MCP resources read it.';
comment on function public.handoff_item(jsonb) is 'One handoff by id, as the handoff_brief prompt reads it.';
comment on function public.project_summary(jsonb) is 'Counts by type, top tags, recent additions, key decisions, active patterns and open risks of one project (the summarize_project prompt).';
