-- Foundation: claims, errors, the activity log and change feed, idempotency, identity RPCs.
-- Re-applied on every upgrade that changes any definition file: every statement here must be
-- safe to run again (create or replace).

create or replace function bullpen.claims() returns jsonb
language sql stable
as $$
  select coalesce(nullif(current_setting('request.jwt.claims', true), ''), '{}')::jsonb
$$;

create or replace function bullpen.tenant_id() returns uuid
language sql stable
as $$ select nullif(bullpen.claims() ->> 'tenant_id', '')::uuid $$;

create or replace function bullpen.actor_id() returns uuid
language sql stable
as $$ select nullif(bullpen.claims() ->> 'actor_id', '')::uuid $$;

create or replace function bullpen.run_id() returns text
language sql stable
as $$ select nullif(bullpen.claims() ->> 'run_id', '') $$;

-- Errors carry a Bullpen SQLSTATE (class BP) that lib/db/errors.ts maps to an envelope code.
create or replace function bullpen.fail(p_code text, p_message text, p_hint text default null, p_detail jsonb default null)
returns void
language plpgsql
as $$
begin
  raise exception using
    errcode = case p_code
      when 'NOT_FOUND' then 'BPNTF'
      when 'CONFLICT' then 'BPCNF'
      when 'INVALID_TRANSITION' then 'BPTRN'
      when 'GATE_UNMET' then 'BPGAT'
      when 'ALREADY_EXISTS' then 'BPDUP'
      when 'CYCLE_DETECTED' then 'BPCYC'
      when 'LEASE_HELD' then 'BPLSE'
      when 'NOT_CLAIMABLE' then 'BPNCL'
      when 'BUDGET_EXCEEDED' then 'BPBDG'
      when 'IDEMPOTENCY_CONFLICT' then 'BPIDM'
      when 'FORBIDDEN' then 'BPFRB'
      when 'UNAUTHENTICATED' then 'BPAUT'
      else 'BPVAL'
    end,
    message = p_message,
    hint = coalesce(p_hint, ''),
    detail = coalesce(p_detail::text, '');
end
$$;

-- Every RPC starts here: no tenant or actor in the claims means no access at all.
create or replace function bullpen.require_actor() returns uuid
language plpgsql stable
as $$
begin
  if bullpen.tenant_id() is null or bullpen.actor_id() is null then
    perform bullpen.fail('UNAUTHENTICATED', 'no actor in the request claims', 'authenticate with an API key or a console session');
  end if;
  return bullpen.actor_id();
end
$$;

-- Optional uuid from a jsonb field; a malformed value is a validation error that names the field.
create or replace function bullpen.uuid_arg(p jsonb, p_field text) returns uuid
language plpgsql immutable
as $$
declare
  v text := p ->> p_field;
begin
  if v is null then
    return null;
  end if;
  return v::uuid;
exception when invalid_text_representation then
  perform bullpen.fail('VALIDATION_ERROR', format('%s: not a uuid: %s', p_field, v));
  return null;
end
$$;

-- A listing's cursor is opaque: one that does not decode is the caller's input error (not a server
-- fault worth retrying), and the message names the field.
create or replace function bullpen.cursor_arg(p jsonb) returns text
language plpgsql immutable
as $$
begin
  return convert_from(decode(p ->> 'cursor', 'base64'), 'utf8');
exception when invalid_parameter_value or character_not_in_repertoire then
  perform bullpen.fail('VALIDATION_ERROR', 'cursor: not a next_cursor from this listing',
    'pass next_cursor back verbatim, or omit cursor for the first page');
  return null;
end
$$;

-- A listing whose cursor is a JSON array of sort keys (task_query, handoff_query, …). One that does
-- not decode to an array, or (given p_shape, the sort keys' types in order) whose keys do not cast,
-- is the caller's input error, named like any other, instead of a cast failing in the listing.
drop function if exists bullpen.cursor_json(jsonb);
create or replace function bullpen.cursor_json(p jsonb, p_shape text[] default null) returns jsonb
language plpgsql stable
as $$
declare
  v jsonb;
begin
  begin
    v := bullpen.cursor_arg(p)::jsonb;
  exception when invalid_text_representation then
    v := 'null'::jsonb;
  end;
  if v is null then
    return null;
  end if;
  if jsonb_typeof(v) = 'array' and (p_shape is null or jsonb_array_length(v) = cardinality(p_shape)) then
    begin
      for i in 1 .. coalesce(cardinality(p_shape), 0) loop
        if v ->> (i - 1) is null then
          raise invalid_text_representation;
        end if;
        -- p_shape comes from the calling listing, never from the caller
        execute format('select %L::%s', v ->> (i - 1), p_shape[i]);
      end loop;
      return v;
    exception when data_exception then
      null;
    end;
  end if;
  perform bullpen.fail('VALIDATION_ERROR', 'cursor: not a next_cursor from this listing',
    'pass next_cursor back verbatim, or omit cursor for the first page');
  return null;
end
$$;

create or replace function bullpen.text_array(p jsonb) returns text[]
language sql immutable
as $$
  select coalesce(array(select jsonb_array_elements_text(case when jsonb_typeof(p) = 'array' then p else '[]'::jsonb end)), '{}')
$$;

/** The lines of a text list as one text (null and empty list: ''); immutable for generated columns (migration 0038). */
create or replace function bullpen.text_lines(p text[]) returns text
language sql immutable parallel safe
as $$ select coalesce(array_to_string(p, E'\n'), '') $$;

/**
 * Search text as a LIKE / ILIKE pattern that matches it literally: the pattern characters % and _
 * and LIKE's default escape character \ are escaped. Every listing that takes free text (q) builds
 * its pattern here, so a backslash is not a malformed pattern and % is not a wildcard.
 */
create or replace function bullpen.like_escape(p text) returns text
language sql immutable parallel safe
as $$ select replace(replace(replace(p, '\', '\\'), '%', '\%'), '_', '\_') $$;

create or replace function bullpen.touch_updated_at() returns trigger
language plpgsql
as $$
begin
  new.updated_at := now();
  return new;
end
$$;

create or replace trigger actors_touch before update on public.actors
  for each row execute function bullpen.touch_updated_at();

-- The log is evidence: nobody, not even the table owner, rewrites it.
create or replace function bullpen.refuse_mutation() returns trigger
language plpgsql
as $$
begin
  raise exception using errcode = 'BPFRB', message = format('%s is append-only', tg_table_name),
    hint = 'append a new row instead of changing an old one';
end
$$;

create or replace trigger activity_append_only before update or delete on public.activity
  for each row execute function bullpen.refuse_mutation();

-- TRUNCATE fires no row trigger: a statement trigger keeps the log append-only for every role,
-- the table's owner included.
create or replace trigger activity_no_truncate before truncate on public.activity
  for each statement execute function bullpen.refuse_mutation();

-- Every activity row is also a change event: ids only, far below NOTIFY's 8000-byte limit.
create or replace function bullpen.emit_change() returns trigger
language plpgsql
as $$
declare
  v_event jsonb := jsonb_build_object(
    'seq', new.id,
    'tenant_id', new.tenant_id,
    'project_id', new.project_id,
    'object_type', new.object_type,
    'object_id', new.object_id,
    'verb', new.verb,
    'actor_id', new.actor_id,
    'at', new.at
  );
begin
  -- A writer may opt out (set local bullpen.notify = 'off') when its server reads the feed from this
  -- table instead: NOTIFY serialises the commits of every notifying transaction in the database.
  if coalesce(current_setting('bullpen.notify', true), '') <> 'off' then
    perform pg_notify('bullpen_changes', v_event::text);
  end if;
  -- Supabase Realtime keeps broadcasts in realtime.messages; elsewhere there is nothing to send to,
  -- and skipping the guarded block spares every write a subtransaction.
  if to_regclass('realtime.messages') is not null then
    begin
      perform realtime.send(v_event, 'change', 'tenant:' || new.tenant_id::text, true);
    exception when others then
      -- a broadcast failure must never undo the write it reports
      null;
    end;
  end if;
  return null;
end
$$;

create or replace trigger activity_emit_change after insert on public.activity
  for each row execute function bullpen.emit_change();

/** Appends an activity row for the calling actor and run; returns its id (the change seq). */
create or replace function bullpen.log(
  p_verb text,
  p_object_type text,
  p_object_id uuid,
  p_project_id uuid default null,
  p_summary text default '',
  p_metadata jsonb default '{}'
) returns bigint
language plpgsql
as $$
declare
  v_id bigint;
begin
  insert into public.activity (tenant_id, project_id, actor_id, run_id, verb, object_type, object_id, summary, metadata)
  values (bullpen.tenant_id(), p_project_id, bullpen.actor_id(), bullpen.run_id(), p_verb, p_object_type,
          p_object_id, coalesce(p_summary, ''), coalesce(p_metadata, '{}'))
  returning id into v_id;
  -- the first object a call writes is the one its idempotency record watches (see idem_finish)
  if coalesce(current_setting('bullpen.idem_seq', true), '') = '' then
    perform set_config('bullpen.idem_seq', v_id::text, true);
    perform set_config('bullpen.idem_object', coalesce(p_object_id::text, ''), true);
  end if;
  return v_id;
end
$$;

-- Idempotency. A key is reserved by inserting its row; a concurrent caller with the same key waits
-- on that row, then reads the stored result.
-- Explicit keys (the caller's idempotency_key): Stripe's rule for a day: same key and same input
-- replays, same key and other input is IDEMPOTENCY_CONFLICT.
-- Keys the server derives ("auto:…", from tool + input + actor + run) exist to make a retry after a
-- lost response safe. They replay only while the object the first call wrote has no newer activity:
-- once anything changed it, the same input is a deliberate repeat and is applied (A → B → A).
-- A derived call that wrote no activity (a no-op) is simply run again.
create or replace function bullpen.idem_begin(p_tool text, p jsonb) returns jsonb
language plpgsql
as $$
declare
  v_key text := p ->> 'idempotency_key';
  v_hash text;
  v_row public.idempotency_keys;
  v_ttl interval;
  v_derived boolean;
begin
  if v_key is null then
    return null;
  end if;
  perform set_config('bullpen.idem_seq', '', true);
  v_derived := v_key like 'auto:%';
  v_hash := md5(p_tool || ':' || (p - 'idempotency_key')::text);
  v_ttl := case when v_derived
    then coalesce(nullif(current_setting('bullpen.derived_idempotency_window', true), ''), '120 seconds')::interval
    else interval '24 hours' end;
  insert into public.idempotency_keys as k (tenant_id, actor_id, key, tool, request_hash, expires_at)
  values (bullpen.tenant_id(), bullpen.actor_id(), v_key, p_tool, v_hash, now() + v_ttl)
  on conflict (tenant_id, actor_id, key) do update
    set tool = excluded.tool, request_hash = excluded.request_hash, result = null,
        created_at = now(), expires_at = excluded.expires_at, object_id = null, seq = null
    where k.expires_at <= now()
  returning * into v_row;
  if found then
    return null;
  end if;
  select * into v_row from public.idempotency_keys k
   where k.tenant_id = (select bullpen.tenant_id()) and k.actor_id = (select bullpen.actor_id()) and k.key = v_key;
  if v_row.tool <> p_tool or v_row.request_hash <> v_hash then
    perform bullpen.fail('IDEMPOTENCY_CONFLICT',
      format('idempotency_key %s was already used with a different %s call', v_key,
             case when v_row.tool <> p_tool then v_row.tool else p_tool end),
      'use a fresh idempotency_key for a different request, or resend the original input');
  end if;
  if v_derived and (v_row.seq is null or exists (
        select 1 from public.activity a
         where a.tenant_id = v_row.tenant_id and a.object_id = v_row.object_id and a.id > v_row.seq)) then
    update public.idempotency_keys k
       set result = null, created_at = now(), expires_at = now() + v_ttl, object_id = null, seq = null
     where k.tenant_id = v_row.tenant_id and k.actor_id = v_row.actor_id and k.key = v_key;
    return null;
  end if;
  return coalesce(v_row.result, '{}'::jsonb) || '{"idempotent_replay": true}'::jsonb;
end
$$;

create or replace function bullpen.idem_finish(p jsonb, p_result jsonb) returns jsonb
language plpgsql
as $$
begin
  if p ? 'idempotency_key' then
    update public.idempotency_keys
       set result = p_result,
           seq = nullif(current_setting('bullpen.idem_seq', true), '')::bigint,
           object_id = nullif(current_setting('bullpen.idem_object', true), '')::uuid
     where tenant_id = (select bullpen.tenant_id()) and actor_id = (select bullpen.actor_id()) and key = p ->> 'idempotency_key';
  end if;
  return p_result;
end
$$;

create or replace function bullpen.actor_json(a public.actors) returns jsonb
language sql stable
as $$
  select jsonb_build_object(
    'id', a.id, 'kind', a.kind, 'external_ref', a.external_ref, 'display_name', a.display_name,
    'group', a."group", 'role', a.role, 'capabilities', to_jsonb(a.capabilities), 'is_owner', a.is_owner,
    'status', a.status, 'max_concurrent_tasks', a.max_concurrent_tasks,
    'default_model', a.default_model, 'model_provider', a.model_provider,
    'last_seen_at', a.last_seen_at, 'created_at', a.created_at)
$$;

/**
 * What two display names are compared by: lower case, without spaces or invisible joiners. The
 * unique index actors_display_name_key (supabase/migrations/0017_people.sql) writes the same
 * expression out; tests/db/people.test.ts holds the two together.
 */
create or replace function bullpen.name_key(p text) returns text
language sql immutable
as $$ select lower(regexp_replace(p, '[[:space:]\u200b\u200c\u200d\u2060\ufeff]+', '', 'g')) $$;

/**
 * Refuses a display name that reads as another actor of the same kind in the workspace (case and
 * spaces ignored): ALREADY_EXISTS naming the field and the actor that has it.
 */
create or replace function bullpen.assert_display_name_free(p_kind text, p_name text, p_except uuid, p_field text default 'display_name')
returns void
language plpgsql stable
as $$
declare
  v public.actors;
begin
  select * into v from public.actors a
   where a.tenant_id = (select bullpen.tenant_id()) and a.kind = p_kind
     and lower(regexp_replace(a.display_name, '[[:space:]\u200b\u200c\u200d\u2060\ufeff]+', '', 'g')) = bullpen.name_key(p_name)
     and a.id is distinct from p_except
   limit 1;
  if v.id is not null then
    perform bullpen.fail('ALREADY_EXISTS',
      format('%s: "%s" reads as %s %s (%s): display names are unique per kind in a workspace, ignoring case and spaces',
             p_field, p_name, p_kind, v.display_name, v.external_ref),
      'choose another display_name', jsonb_build_object('actor_id', v.id, 'fields', jsonb_build_array(p_field)));
  end if;
end
$$;

-- Resolves an actor id inside the caller's tenant, or fails NOT_FOUND naming the field.
create or replace function bullpen.require_actor_in_tenant(p_actor_id uuid, p_field text) returns uuid
language plpgsql stable
as $$
begin
  if p_actor_id is null then
    return null;
  end if;
  if not exists (select 1 from public.actors where tenant_id = (select bullpen.tenant_id()) and id = p_actor_id) then
    perform bullpen.fail('NOT_FOUND', format('%s: no actor %s in this workspace', p_field, p_actor_id),
      'list actors with actor_query, or pass "me"');
  end if;
  return p_actor_id;
end
$$;

-- Server-side authentication: a key hash in, the claims' identity out. security definer because it
-- runs before any claims exist; it reads one row by an unguessable hash and nothing else.
-- A key authenticates while it is neither revoked nor past its expiry (a rotated key expires when
-- its grace period ends); its scopes travel with the identity so every surface can narrow it.
drop function if exists bullpen.authenticate_key(text);
create or replace function bullpen.authenticate_key(p_key_hash text)
returns table (tenant_id uuid, actor_id uuid, key_id uuid, kind text, display_name text, tenant_slug text,
               scopes text[], expires_at timestamptz)
language sql
security definer
set search_path = ''
as $$
  update public.api_keys k set last_used_at = now()
   where k.key_hash = p_key_hash and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())
     and (k.last_used_at is null or k.last_used_at < now() - interval '1 minute')
  returning null::uuid, null::uuid, null::uuid, null::text, null::text, null::text, null::text[], null::timestamptz;
  select k.tenant_id, k.actor_id, k.id, a.kind, a.display_name, t.slug, k.scopes, k.expires_at
    from public.api_keys k
    join public.actors a on a.tenant_id = k.tenant_id and a.id = k.actor_id
    join public.tenants t on t.id = k.tenant_id
   where k.key_hash = p_key_hash and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())
     and a.status <> 'deactivated'; -- a deactivated actor's keys stop working (lib/server/auth forgets them)
$$;

-- Registration converges on one actor per external_ref. Re-registering an existing actor may
-- change its profile (display name, group, role, capabilities) only when the caller is that actor
-- or a workspace owner; anyone else gets the actor back as it is when the profile matches, and
-- FORBIDDEN when the call would change it. The owner flag is never an input here.
create or replace function public.register_actor(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_me uuid := bullpen.require_actor();
  v_created boolean := false;
  v_actor public.actors;
  v_changes boolean;
  v_status text;
  v_undone jsonb;
begin
  v_replay := bullpen.idem_begin('register_actor', p);
  if v_replay is not null then
    return v_replay;
  end if;
  -- Only people create people: a human (or an email: reference, which a verified sign-in would
  -- link to whoever owns that address) comes from an owner, an invitation or a sign-in.
  if (p ->> 'kind' = 'human' or p ->> 'external_ref' ilike 'email:%')
     and not exists (select 1 from public.actors c where c.tenant_id = (select bullpen.tenant_id()) and c.id = v_me
                        and c.kind = 'human' and c.is_owner) then
    perform bullpen.fail('FORBIDDEN',
      format('%s: only a workspace owner registers people; agents and services never create or change humans or email: actors',
             case when p ->> 'kind' = 'human' then 'kind' else 'external_ref' end),
      'a person joins by invitation (console Agents & keys, or bullpen human invite) or by signing in; register agents with kind "agent"',
      jsonb_build_object('fields', jsonb_build_array(case when p ->> 'kind' = 'human' then 'kind' else 'external_ref' end)));
  end if;
  if not exists (select 1 from public.actors x where x.tenant_id = (select bullpen.tenant_id()) and x.external_ref = p ->> 'external_ref') then
    perform bullpen.assert_display_name_free(p ->> 'kind', coalesce(p ->> 'display_name', p ->> 'external_ref'), null);
  end if;
  if p ->> 'status' = 'deactivated'
     and not exists (select 1 from public.actors x where x.tenant_id = (select bullpen.tenant_id()) and x.external_ref = p ->> 'external_ref') then
    perform bullpen.fail('VALIDATION_ERROR', 'status: a new actor starts active or paused',
      'register it, then deactivate it', jsonb_build_object('fields', jsonb_build_array('status')));
  end if;
  insert into public.actors as a (tenant_id, kind, external_ref, display_name, "group", role, capabilities,
                                  status, max_concurrent_tasks, default_model, model_provider)
  values (bullpen.tenant_id(), p ->> 'kind', p ->> 'external_ref',
          coalesce(p ->> 'display_name', p ->> 'external_ref'), p ->> 'group', p ->> 'role',
          bullpen.text_array(p -> 'capabilities'), coalesce(p ->> 'status', 'active'),
          (p ->> 'max_concurrent_tasks')::int, p ->> 'default_model', p ->> 'model_provider')
  on conflict (tenant_id, external_ref) do nothing
  returning * into v_actor;
  if v_actor.id is not null then
    v_created := true;
    perform bullpen.log('actor.registered', 'actor', v_actor.id, null, v_actor.display_name);
    return bullpen.idem_finish(p, jsonb_build_object('actor', bullpen.actor_json(v_actor), 'created', true));
  end if;
  select * into v_actor from public.actors
   where tenant_id = (select bullpen.tenant_id()) and external_ref = p ->> 'external_ref';
  if v_actor.kind <> p ->> 'kind' then
    perform bullpen.fail('CONFLICT', format('external_ref %s already belongs to an actor of kind %s', p ->> 'external_ref', v_actor.kind),
      'register with the same kind, or choose another external_ref', jsonb_build_object('actor_id', v_actor.id));
  end if;
  v_changes := (p ? 'display_name' and p ->> 'display_name' is distinct from v_actor.display_name)
    or (p ? 'group' and p ->> 'group' is distinct from v_actor."group")
    or (p ? 'role' and p ->> 'role' is distinct from v_actor.role)
    or (p ? 'capabilities' and bullpen.text_array(p -> 'capabilities') is distinct from v_actor.capabilities)
    -- routing (0022): load limit, model and status
    or (p ? 'max_concurrent_tasks' and (p ->> 'max_concurrent_tasks')::int is distinct from v_actor.max_concurrent_tasks)
    or (p ? 'default_model' and p ->> 'default_model' is distinct from v_actor.default_model)
    or (p ? 'model_provider' and p ->> 'model_provider' is distinct from v_actor.model_provider);
  v_status := bullpen.actor_status_check(v_actor, p);
  if v_changes then
    if v_actor.id <> v_me and not bullpen.caller_is_owner() then
      perform bullpen.fail('FORBIDDEN',
        format('actor %s (%s) is not you: only that actor or a workspace owner can change its name, group, role, capabilities, load limit or model',
               v_actor.display_name, v_actor.external_ref),
        'register with the profile it already has (actor_query shows it), or ask a workspace owner',
        jsonb_build_object('actor_id', v_actor.id));
    end if;
    if p ? 'display_name' then
      perform bullpen.assert_display_name_free(v_actor.kind, p ->> 'display_name', v_actor.id);
    end if;
    update public.actors a
       set display_name = coalesce(p ->> 'display_name', a.display_name),
           "group" = case when p ? 'group' then p ->> 'group' else a."group" end,
           role = case when p ? 'role' then p ->> 'role' else a.role end,
           capabilities = case when p ? 'capabilities' then bullpen.text_array(p -> 'capabilities') else a.capabilities end,
           max_concurrent_tasks = case when p ? 'max_concurrent_tasks' then (p ->> 'max_concurrent_tasks')::int else a.max_concurrent_tasks end,
           default_model = case when p ? 'default_model' then p ->> 'default_model' else a.default_model end,
           model_provider = case when p ? 'model_provider' then p ->> 'model_provider' else a.model_provider end
     where a.tenant_id = v_actor.tenant_id and a.id = v_actor.id
    returning * into v_actor;
    perform bullpen.log('actor.updated', 'actor', v_actor.id, null, v_actor.display_name);
  end if;
  if v_status is not null then
    -- waits for a claim of this actor in flight (bullpen.claim_refusal holds its row), then undoes its leases
    update public.actors a set status = v_status, status_changed_at = now()
     where a.tenant_id = v_actor.tenant_id and a.id = v_actor.id
    returning * into v_actor;
    if v_status = 'deactivated' then
      v_undone := bullpen.actor_deactivated(v_actor);
    else
      perform bullpen.log_aside(v_actor.tenant_id, 'actor.' || case v_status when 'paused' then 'paused' else 'activated' end,
        'actor', v_actor.id, null, format('%s is %s', v_actor.display_name, v_status));
    end if;
    if not v_changes then
      perform bullpen.log('actor.updated', 'actor', v_actor.id, null, format('%s: status %s', v_actor.display_name, v_status));
    end if;
  end if;
  return bullpen.idem_finish(p, jsonb_build_object('actor', bullpen.actor_json(v_actor), 'created', v_created)
    || case when v_undone is not null then jsonb_build_object('released_task_ids', v_undone -> 'released',
                                                              'marked_handoff_ids', v_undone -> 'handoffs') else '{}'::jsonb end);
end
$$;
alter function public.register_actor(jsonb) owner to bullpen_writer;

-- Keyset pagination over (lower(display_name), id); the cursor is that pair, base64-encoded.
create or replace function public.actor_query(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_limit int := greatest(1, least(coalesce((p ->> 'limit')::int, 50), 200));
  v_after text := bullpen.cursor_arg(p);
  v_rows jsonb;
  v_last text;
  v_more boolean;
  v_include text[] := coalesce(array(select jsonb_array_elements_text(p -> 'include')), '{}');
  v_work boolean := 'work' = any (v_include);
  v_keys boolean := 'keys' = any (v_include);
begin
  perform bullpen.require_actor();
  -- keys name who may call the workspace: people manage them (the console), agents never read them
  if v_keys and not exists (select 1 from public.actors me where me.tenant_id = (select bullpen.tenant_id())
                                and me.id = bullpen.actor_id() and me.kind = 'human') then
    perform bullpen.fail('FORBIDDEN', 'include: "keys" is for people only: an agent never reads the workspace''s keys',
      'call actor_query without "keys" in include');
  end if;
  with page as (
    select a, lower(a.display_name) || chr(31) || a.id::text as sort_key
      from public.actors a
     where a.tenant_id = (select bullpen.tenant_id())
       and (p ->> 'kind' is null or a.kind = p ->> 'kind')
       and (p ->> 'group' is null or a."group" = p ->> 'group')
       and (p ->> 'capability' is null or (p ->> 'capability') = any (a.capabilities))
       and (p ->> 'q' is null or a.display_name ilike '%' || bullpen.like_escape(p ->> 'q') || '%'
            or a.external_ref ilike '%' || bullpen.like_escape(p ->> 'q') || '%'
            or coalesce(a.role, '') ilike '%' || bullpen.like_escape(p ->> 'q') || '%')
       and (v_after is null or lower(a.display_name) || chr(31) || a.id::text > v_after)
     order by sort_key
     limit v_limit + 1
  ), numbered as (
    select page.*, row_number() over (order by sort_key) as rn from page
  )
  select coalesce(jsonb_agg(bullpen.actor_json(a)
                              || case when v_work then bullpen.actor_work_json(a) else '{}'::jsonb end
                              || case when v_keys then bullpen.actor_keys_json(a) else '{}'::jsonb end
                            order by sort_key) filter (where rn <= v_limit), '[]'::jsonb),
         max(sort_key) filter (where rn = v_limit),
         count(*) > v_limit
    into v_rows, v_last, v_more
    from numbered;
  return jsonb_build_object('actors', v_rows,
    'next_cursor', case when v_more then encode(convert_to(v_last, 'utf8'), 'base64') end);
end
$$;
alter function public.actor_query(jsonb) owner to bullpen_writer;

-- Execute rights, one function at a time: the API roles call RPCs, never helpers.
revoke all on function bullpen.claims() from public, anon;
grant execute on function bullpen.claims() to authenticated, bullpen_writer, service_role;
revoke all on function bullpen.tenant_id() from public, anon;
grant execute on function bullpen.tenant_id() to authenticated, bullpen_writer, service_role;
revoke all on function bullpen.like_escape(text) from public, anon, authenticated;
grant execute on function bullpen.like_escape(text) to bullpen_writer, service_role;
revoke all on function bullpen.require_actor() from public, anon, authenticated;
grant execute on function bullpen.require_actor() to bullpen_writer, service_role;
revoke all on function bullpen.uuid_arg(jsonb, text) from public, anon, authenticated;
grant execute on function bullpen.uuid_arg(jsonb, text) to bullpen_writer, service_role;
revoke all on function bullpen.cursor_arg(jsonb) from public, anon, authenticated;
grant execute on function bullpen.cursor_arg(jsonb) to bullpen_writer, service_role;
revoke all on function bullpen.cursor_json(jsonb, text[]) from public, anon, authenticated;
grant execute on function bullpen.cursor_json(jsonb, text[]) to bullpen_writer, service_role;
revoke all on function bullpen.text_array(jsonb) from public, anon, authenticated;
grant execute on function bullpen.text_array(jsonb) to bullpen_writer, service_role;
revoke all on function bullpen.text_lines(text[]) from public, anon, authenticated;
grant execute on function bullpen.text_lines(text[]) to bullpen_writer, service_role;
revoke all on function bullpen.touch_updated_at() from public, anon, authenticated;
grant execute on function bullpen.touch_updated_at() to bullpen_writer, service_role;
revoke all on function bullpen.refuse_mutation() from public, anon, authenticated;
grant execute on function bullpen.refuse_mutation() to bullpen_writer, service_role;
revoke all on function bullpen.emit_change() from public, anon, authenticated;
grant execute on function bullpen.emit_change() to bullpen_writer, service_role;
revoke all on function bullpen.log(text, text, uuid, uuid, text, jsonb) from public, anon, authenticated;
grant execute on function bullpen.log(text, text, uuid, uuid, text, jsonb) to bullpen_writer, service_role;
revoke all on function bullpen.idem_begin(text, jsonb) from public, anon, authenticated;
grant execute on function bullpen.idem_begin(text, jsonb) to bullpen_writer, service_role;
revoke all on function bullpen.idem_finish(jsonb, jsonb) from public, anon, authenticated;
grant execute on function bullpen.idem_finish(jsonb, jsonb) to bullpen_writer, service_role;
revoke all on function bullpen.actor_json(public.actors) from public, anon, authenticated;
grant execute on function bullpen.actor_json(public.actors) to bullpen_writer, service_role;
revoke all on function bullpen.name_key(text) from public, anon, authenticated;
grant execute on function bullpen.name_key(text) to bullpen_writer, service_role;
revoke all on function bullpen.assert_display_name_free(text, text, uuid, text) from public, anon, authenticated;
grant execute on function bullpen.assert_display_name_free(text, text, uuid, text) to bullpen_writer, service_role;
revoke all on function bullpen.require_actor_in_tenant(uuid, text) from public, anon, authenticated;
grant execute on function bullpen.require_actor_in_tenant(uuid, text) to bullpen_writer, service_role;
revoke all on function bullpen.authenticate_key(text) from public, anon, authenticated;
grant execute on function bullpen.authenticate_key(text) to service_role;
revoke all on function public.register_actor(jsonb) from public, anon;
grant execute on function public.register_actor(jsonb) to authenticated, service_role;
revoke all on function public.actor_query(jsonb) from public, anon;
grant execute on function public.actor_query(jsonb) to authenticated, service_role;
revoke all on function bullpen.actor_id() from public, anon;
grant execute on function bullpen.actor_id() to authenticated, bullpen_writer, service_role;
revoke all on function bullpen.run_id() from public, anon, authenticated;
grant execute on function bullpen.run_id() to bullpen_writer, service_role;
revoke all on function bullpen.fail(text, text, text, jsonb) from public, anon, authenticated;
grant execute on function bullpen.fail(text, text, text, jsonb) to bullpen_writer, service_role;
