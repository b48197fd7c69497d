-- Comments: comment_add and comment_query.
-- Re-applied on every upgrade that changes any definition file: every statement here must be
-- safe to run again (create or replace).

/**
 * The object a thread hangs on, inside the caller's workspace: {object_type, object_id,
 * project_id, label}, or NOT_FOUND naming object_id. Tasks by uuid or KEY-N, projects by uuid or
 * key; decisions, notes (live ones) and handoffs by uuid. work_request is another name for handoff.
 */
create or replace function bullpen.comment_target(p_type text, p_ref text) returns jsonb
language plpgsql stable
as $$
declare
  v jsonb;
begin
  if p_type is null or p_type not in ('task', 'project', 'decision', 'note', 'handoff', 'work_request') then
    perform bullpen.fail('VALIDATION_ERROR', format('object_type: %s is not an object with a thread', coalesce(p_type, 'null')),
      'comment on a task, project, decision, note or handoff');
  end if;
  if p_type = 'note' then
    perform bullpen.resolve_note(p_ref, 'object_id'); -- an expired note takes no more comments
  end if;
  v := bullpen.resolve_object(case when p_type = 'work_request' then 'handoff' else p_type end, p_ref, 'object_id');
  if p_type in ('task', 'project') then
    return v; -- labelled PAY-12 and PAY already
  end if;
  return v || jsonb_build_object('label', format('%s "%s"', v ->> 'object_type', left(v ->> 'label', 80)));
end
$$;

/**
 * Who a comment mentions: the ids it names explicitly and every actor of the workspace whose
 * "@Display Name" appears in its body, each once, in that order.
 */
create or replace function bullpen.comment_mentions(p_tenant uuid, p_body text, p_explicit uuid[]) returns uuid[]
language sql stable
as $$
  select coalesce(array_agg(m.id order by m.o, m.n), '{}') from (
    select distinct on (x.id) x.id, x.o, x.n from (
      select e.id, 0 as o, e.n from unnest(coalesce(p_explicit, '{}')) with ordinality e(id, n)
      union all
      select a.id, 1, row_number() over (order by lower(a.display_name), a.id)
        from public.actors a
       where position('@' in p_body) > 0 and a.tenant_id = p_tenant
         and p_body ~* ('(^|[^[:alnum:]_])@'
                        || regexp_replace(a.display_name, '([^[:alnum:][:space:]])', '\\\1', 'g')
                        || '($|[^[:alnum:]_])')) x
     order by x.id, x.o, x.n) m
$$;

/**
 * Writes a comment the one way every surface does (comment_add, task_release's note, a review's
 * requested changes): the row with its resolved mentions (the comments_notify trigger tells each
 * one), and a comment.added row on the activity log, which is the change event the live thread
 * listens for. p_aside: the call's own activity row comes first (see bullpen.log), so this one is
 * written beside it and the call's idempotency record keeps watching its own object.
 */
-- p_kind, p_tags and p_meta arrived with comment kinds (migration 0021): the old five-argument
-- signature is dropped so one function answers every caller (the new arguments have defaults)
drop function if exists bullpen.comment_write(jsonb, text, uuid, uuid[], boolean);
create or replace function bullpen.comment_write(p_target jsonb, p_body text, p_parent uuid, p_mentions uuid[],
                                                 p_aside boolean default false, p_kind text default 'message',
                                                 p_tags text[] default '{}', p_meta jsonb default '{}')
returns public.comments
language plpgsql
as $$
declare
  v_comment public.comments;
  v_summary text;
  v_meta jsonb;
begin
  insert into public.comments (tenant_id, object_type, object_id, parent_comment_id, author_actor_id, body, mentions,
                               kind, tags, meta)
  values (bullpen.tenant_id(), p_target ->> 'object_type', (p_target ->> 'object_id')::uuid, p_parent, bullpen.actor_id(),
          p_body, bullpen.comment_mentions(bullpen.tenant_id(), p_body, p_mentions),
          coalesce(p_kind, 'message'), coalesce(p_tags, '{}'), coalesce(p_meta, '{}'))
  returning * into v_comment;
  v_summary := format('on %s: %s', p_target ->> 'label', left(regexp_replace(v_comment.body, '\s+', ' ', 'g'), 140));
  v_meta := jsonb_build_object('comment_id', v_comment.id, 'mentions', to_jsonb(v_comment.mentions))
    || case when v_comment.kind <> 'message' then jsonb_build_object('kind', v_comment.kind) else '{}'::jsonb end;
  if p_aside then
    perform bullpen.log_aside(v_comment.tenant_id, 'comment.added', v_comment.object_type, v_comment.object_id,
      (p_target ->> 'project_id')::uuid, v_summary, v_meta);
  else
    perform bullpen.log('comment.added', v_comment.object_type, v_comment.object_id, (p_target ->> 'project_id')::uuid,
      v_summary, v_meta);
  end if;
  return v_comment;
end
$$;

create or replace function public.comment_add(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_type text := p ->> 'object_type';
  v_target jsonb;
  v_object uuid;
  v_project_id uuid;
  v_label text;
  v_parent public.comments;
  v_mentions uuid[] := '{}';
  v_mention text;
  v_comment public.comments;
  v_author public.actors;
  i int := 0;
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('comment_add', p);
  if v_replay is not null then
    return v_replay;
  end if;
  v_target := bullpen.comment_target(v_type, p ->> 'object_id');
  v_type := v_target ->> 'object_type';
  v_object := (v_target ->> 'object_id')::uuid;
  v_project_id := (v_target ->> 'project_id')::uuid;
  v_label := v_target ->> 'label';
  if p ->> 'parent_comment_id' is not null then
    select * into v_parent from public.comments
     where tenant_id = (select bullpen.tenant_id()) and id = bullpen.uuid_arg(p, 'parent_comment_id');
    if v_parent.id is null then
      perform bullpen.fail('NOT_FOUND', format('parent_comment_id: no comment %s in this workspace', p ->> 'parent_comment_id'),
        'reply to a comment listed by task_get');
    end if;
    if v_parent.object_id <> v_object then
      perform bullpen.fail('VALIDATION_ERROR', 'parent_comment_id: that comment belongs to another thread',
        'reply within the same object''s thread');
    end if;
  end if;
  for v_mention in select jsonb_array_elements_text(coalesce(p -> 'mentions', '[]')) loop
    v_mentions := v_mentions || bullpen.require_actor_in_tenant(
      bullpen.uuid_arg(jsonb_build_object(format('mentions[%s]', i), v_mention), format('mentions[%s]', i)),
      format('mentions[%s]', i));
    i := i + 1;
  end loop;
  if p ? 'tags' and (jsonb_typeof(p -> 'tags') <> 'array' or jsonb_array_length(p -> 'tags') > 32) then
    perform bullpen.fail('VALIDATION_ERROR', 'tags: a list of at most 32 strings', 'send tags as ["build", "ci"]');
  end if;
  if coalesce(p ->> 'kind', 'message') not in ('message', 'note', 'log') then
    perform bullpen.fail('VALIDATION_ERROR', format('kind: %s is not a comment kind', p ->> 'kind'), 'use message, note or log');
  end if;
  v_comment := bullpen.comment_write(v_target, p ->> 'body', v_parent.id, v_mentions, false,
    coalesce(p ->> 'kind', 'message'), bullpen.text_array(p -> 'tags'), bullpen.meta_arg(p -> 'meta', 'meta'));
  select * into v_author from public.actors where tenant_id = v_comment.tenant_id and id = v_comment.author_actor_id;
  return bullpen.idem_finish(p, jsonb_build_object(
    'comment_id', v_comment.id,
    'comment', jsonb_build_object('id', v_comment.id, 'object_type', v_comment.object_type, 'object_id', v_comment.object_id,
      'author_actor_id', v_comment.author_actor_id, 'author', v_author.display_name, 'author_kind', v_author.kind,
      'body', v_comment.body, 'parent_comment_id', v_comment.parent_comment_id, 'mentions', to_jsonb(v_comment.mentions),
      'kind', v_comment.kind, 'tags', to_jsonb(v_comment.tags), 'meta', v_comment.meta,
      'created_at', v_comment.created_at)));
end
$$;
alter function public.comment_add(jsonb) owner to bullpen_writer;

/** The thread on one object, oldest first, keyset-paginated by (created_at, id). */
create or replace function public.comment_query(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_type text := p ->> 'object_type';
  v_target jsonb;
  v_object uuid;
  v_limit int := greatest(1, least(coalesce((p ->> 'limit')::int, 100), 500));
  v_cursor text := bullpen.cursor_arg(p);
  v_rows jsonb;
  v_more boolean;
  v_last text;
begin
  perform bullpen.require_actor();
  v_target := bullpen.comment_target(v_type, p ->> 'object_id');
  v_type := v_target ->> 'object_type';
  v_object := (v_target ->> 'object_id')::uuid;
  with page as (
    select c, a.display_name as author, a.kind as author_kind,
           to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') || ' ' || c.id::text as sort_key
      from public.comments c
      join public.actors a on a.tenant_id = c.tenant_id and a.id = c.author_actor_id
     where c.tenant_id = (select bullpen.tenant_id()) and c.object_id = v_object
       and (p ->> 'kind' is null or c.kind = p ->> 'kind')
       -- tags: comments that carry every tag asked for
       and (p -> 'tags' is null or c.tags @> bullpen.text_array(p -> 'tags'))
       and (v_cursor is null or to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') || ' ' || c.id::text > v_cursor)
     order by c.created_at, c.id
     limit v_limit + 1
  ), numbered as (
    select page.*, row_number() over (order by sort_key) as rn from page
  )
  select coalesce(jsonb_agg(jsonb_build_object('id', (c).id, 'author_actor_id', (c).author_actor_id, 'author', author,
           'author_kind', author_kind, 'body', (c).body, 'parent_comment_id', (c).parent_comment_id,
           'mentions', to_jsonb((c).mentions), 'kind', (c).kind, 'tags', to_jsonb((c).tags), 'meta', (c).meta,
           'created_at', (c).created_at)
           -- an argument of a debate carries the position it argued for
           || case when (c).kind = 'argument' then jsonb_build_object('position', (c).position) else '{}'::jsonb end
           order by sort_key) filter (where rn <= v_limit), '[]'),
         max(sort_key) filter (where rn = v_limit),
         count(*) > v_limit
    into v_rows, v_last, v_more
    from numbered;
  return jsonb_build_object('object_type', v_type, 'object_id', v_object, 'comments', v_rows,
    'next_cursor', case when v_more then encode(convert_to(v_last, 'utf8'), 'base64') end);
end
$$;
alter function public.comment_query(jsonb) owner to bullpen_writer;

-- Execute rights, one function at a time: the API roles call RPCs, never helpers.
revoke all on function bullpen.comment_target(text, text) from public, anon, authenticated;
grant execute on function bullpen.comment_target(text, text) to bullpen_writer, service_role;
revoke all on function bullpen.comment_mentions(uuid, text, uuid[]) from public, anon, authenticated;
grant execute on function bullpen.comment_mentions(uuid, text, uuid[]) to bullpen_writer, service_role;
revoke all on function bullpen.comment_write(jsonb, text, uuid, uuid[], boolean, text, text[], jsonb) from public, anon, authenticated;
grant execute on function bullpen.comment_write(jsonb, text, uuid, uuid[], boolean, text, text[], jsonb) to bullpen_writer, service_role;
revoke all on function public.comment_add(jsonb) from public, anon;
grant execute on function public.comment_add(jsonb) to authenticated, service_role;
revoke all on function public.comment_query(jsonb) from public, anon;
grant execute on function public.comment_query(jsonb) to authenticated, service_role;
