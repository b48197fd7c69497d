-- Events and webhooks: event_publish, event_poll, webhook_add, webhook_list, webhook_remove, the
-- fan-out of events to webhooks, and the webhook.deliver job's steps. Tables in
-- migrations/0028_events.sql. Re-applied on every upgrade that changes any definition file.
--
-- An event is a row of public.activity; its type is the row's verb. Agents' own events use verbs
-- outside bullpen.reserved_verb_families() (activity_log's rule); of the server's own verbs, the
-- task.*, handoff.* and decision.* families are events too.

-- ---------------------------------------------------------------------------------------------
-- Helpers
-- ---------------------------------------------------------------------------------------------

/** Whether an activity row is an event: an agent's own verb, or one of the server's event families. */
create or replace function bullpen.event_visible(p_verb text, p_object_type text) returns boolean
language sql immutable
as $$
  select p_object_type <> 'inbox'
     and (not bullpen.reserved_verb(p_verb) or lower(split_part(p_verb, '.', 1)) in ('task', 'handoff', 'decision'))
$$;

/** Whether an event type matches a list of types: exact, "family.*" (a prefix) or "*". */
create or replace function bullpen.event_type_matches(p_verb text, p_types text[]) returns boolean
language sql immutable
as $$
  select p_types is null or exists (
    select 1 from unnest(p_types) t
     where t = '*' or t = p_verb or (right(t, 2) = '.*' and starts_with(p_verb, left(t, -1))))
$$;

/** One event as event_poll and webhook bodies show it. */
create or replace function bullpen.event_json(a public.activity) returns jsonb
language sql stable
as $$
  select jsonb_build_object('seq', a.id, 'event_type', a.verb, 'payload', a.metadata, 'summary', a.summary,
    'actor_id', a.actor_id, 'run_id', a.run_id, 'object_type', a.object_type, 'object_id', a.object_id,
    'project_id', a.project_id, 'at', a.at)
$$;

/** A cursor names a place in one workspace's event order: the transaction and the id after which to read. */
create or replace function bullpen.event_cursor(p_tenant uuid, p_xid xid8, p_id bigint) returns text
language sql immutable
as $$
  select encode(convert_to(format('e1.%s.%s.%s', left(md5(p_tenant::text), 8), p_xid, p_id), 'utf8'), 'base64')
$$;

create or replace function bullpen.webhook_json(w public.webhooks) returns jsonb
language sql stable
as $$
  select jsonb_build_object('id', w.id, 'url', w.url, 'events', to_jsonb(w.events), 'recipient_actor_id', w.recipient_actor_id,
    'status', w.status, 'disabled_reason', w.disabled_reason, 'disabled_at', w.disabled_at, 'failing_since', w.failing_since,
    'last_success_at', w.last_success_at, 'created_by_actor_id', w.created_by_actor_id, 'created_at', w.created_at)
$$;

create or replace function bullpen.require_owner(p_what text) returns void
language plpgsql stable
as $$
begin
  if not bullpen.caller_is_owner() then
    perform bullpen.fail('FORBIDDEN', format('%s: only a workspace owner manages webhooks', p_what),
      'ask an owner of the workspace (whoami shows is_owner)');
  end if;
end
$$;

-- ---------------------------------------------------------------------------------------------
-- event_publish, event_poll
-- ---------------------------------------------------------------------------------------------

/**
 * Publishes an agent's own event: an activity row whose verb is the event type (never a reserved
 * family, the rule activity_log applies) and whose metadata is the payload. Unlike a milestone it
 * is not deduplicated by content: the same event twice is two events (a retry is kept apart by
 * the idempotency key).
 */
create or replace function public.event_publish(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_type text := p ->> 'event_type';
  v_project uuid;
  v_id bigint;
  v_row public.activity;
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('event_publish', p);
  if v_replay is not null then
    return v_replay;
  end if;
  if v_type is null or v_type !~ '^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)+$' or char_length(v_type) > 100 then
    perform bullpen.fail('VALIDATION_ERROR', format('event_type: %s is not family.name (lower case, dots)', coalesce(v_type, 'null')),
      'name events like "deploy.finished" or "build.failed"');
  end if;
  if bullpen.reserved_verb(v_type) then
    perform bullpen.fail('VALIDATION_ERROR',
      format('event_type: %s.* is written by Bullpen itself (reserved: %s)',
             split_part(v_type, '.', 1), array_to_string(bullpen.reserved_verb_families(), ', ')),
      'use a family of your own, e.g. "deploy.finished"; poll the server''s task.*, handoff.*, decision.* with event_poll');
  end if;
  if p ? 'payload' and jsonb_typeof(p -> 'payload') <> 'object' then
    perform bullpen.fail('VALIDATION_ERROR', 'payload: must be a JSON object');
  end if;
  if octet_length(coalesce(p -> 'payload', '{}')::text) > 16384 then
    perform bullpen.fail('VALIDATION_ERROR', 'payload: larger than 16384 bytes', 'send ids and a short summary; put documents in knowledge or attachments');
  end if;
  if p ->> 'project_id' is not null then
    v_project := (bullpen.resolve_project(p ->> 'project_id')).id;
  end if;
  v_id := bullpen.log(v_type, 'event', null, v_project, left(coalesce(p ->> 'summary', ''), 500), coalesce(p -> 'payload', '{}'));
  select * into v_row from public.activity a where a.tenant_id = (select bullpen.tenant_id()) and a.id = v_id;
  return bullpen.idem_finish(p, jsonb_build_object('event', bullpen.event_json(v_row)));
end
$$;
alter function public.event_publish(jsonb) owner to bullpen_writer;

/**
 * Events after a cursor, oldest first: {events, next_cursor, has_more, held_back}. Only rows of
 * transactions older than every transaction still running are read (the snapshot's xmin), in
 * (transaction, id) order, so a row committed late always sorts after every cursor already handed
 * out: nothing is skipped, nothing repeated. held_back: newer events have committed but wait for an
 * older transaction to end; poll again in a moment. Without a cursor the read starts now.
 */
create or replace function public.event_poll(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_tenant uuid;
  v_limit int := greatest(1, least(coalesce((p ->> 'limit')::int, 100), 500));
  v_horizon xid8 := pg_snapshot_xmin(pg_current_snapshot());
  v_before xid8 := ((pg_snapshot_xmin(pg_current_snapshot())::text)::numeric - 1)::text::xid8;
  v_xid xid8;
  v_id bigint := 9223372036854775807;
  v_parts text[];
  v_types text[];
  v_rows jsonb;
  v_n int;
  v_last_xid xid8;
  v_last_id bigint;
  v_held boolean;
begin
  perform bullpen.require_actor();
  v_tenant := bullpen.tenant_id();
  if p ? 'types' then
    v_types := array(select jsonb_array_elements_text(p -> 'types'));
  end if;
  if p ->> 'since_cursor' is not null then
    begin
      v_parts := string_to_array(convert_from(decode(p ->> 'since_cursor', 'base64'), 'utf8'), '.');
    exception when others then
      v_parts := null;
    end;
    if v_parts is null or cardinality(v_parts) <> 4 or v_parts[1] <> 'e1' or v_parts[3] !~ '^[0-9]{1,19}$'
       or v_parts[4] !~ '^[0-9]{1,19}$' then
      perform bullpen.fail('VALIDATION_ERROR', 'since_cursor: not a next_cursor from event_poll',
        'pass next_cursor back verbatim, or omit since_cursor to start from now');
    end if;
    if v_parts[2] <> left(md5(v_tenant::text), 8) then
      perform bullpen.fail('NOT_FOUND', 'since_cursor: not a cursor of this workspace',
        'pass a next_cursor event_poll gave this workspace, or omit since_cursor to start from now');
    end if;
    v_xid := v_parts[3]::xid8;
    v_id := v_parts[4]::bigint;
  else
    v_xid := v_before;
  end if;
  select coalesce(jsonb_agg(bullpen.event_json(x) order by x.xid, x.id), '[]'), count(*),
         (array_agg(x.xid order by x.xid desc, x.id desc))[1], (array_agg(x.id order by x.xid desc, x.id desc))[1]
    into v_rows, v_n, v_last_xid, v_last_id
    from (select * from public.activity ac
           where ac.tenant_id = v_tenant and ac.xid is not null and ac.xid < v_horizon
             and (ac.xid, ac.id) > (v_xid, v_id)
             and bullpen.event_visible(ac.verb, ac.object_type)
             and bullpen.event_type_matches(ac.verb, v_types)
           order by ac.xid, ac.id limit v_limit) x;
  v_held := exists (select 1 from public.activity ac
                     where ac.tenant_id = v_tenant and ac.xid is not null and ac.xid >= v_horizon
                       and bullpen.event_visible(ac.verb, ac.object_type) and bullpen.event_type_matches(ac.verb, v_types));
  return jsonb_build_object('events', v_rows, 'has_more', v_n = v_limit, 'held_back', v_held,
    'next_cursor', case
      when v_n = v_limit then bullpen.event_cursor(v_tenant, v_last_xid, v_last_id)
      -- everything before the horizon has been read: the next read starts there
      when v_before > v_xid or (v_before = v_xid and v_id < 9223372036854775807)
        then bullpen.event_cursor(v_tenant, v_before, 9223372036854775807)
      else bullpen.event_cursor(v_tenant, v_xid, v_id) end);
end
$$;
alter function public.event_poll(jsonb) owner to bullpen_writer;

-- ---------------------------------------------------------------------------------------------
-- Webhooks: webhook_add, webhook_list, webhook_remove (owners only)
-- ---------------------------------------------------------------------------------------------

create or replace function public.webhook_add(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_events text[];
  v_bad text;
  v_recipient uuid;
  v_w public.webhooks;
  v_secret text := 'whsec_' || replace(gen_random_uuid()::text, '-', '') || replace(gen_random_uuid()::text, '-', '');
  v_result jsonb;
begin
  perform bullpen.require_actor();
  perform bullpen.require_owner('webhook_add');
  v_replay := bullpen.idem_begin('webhook_add', p);
  if v_replay is not null then
    return v_replay;
  end if;
  if coalesce(p ->> 'url', '') !~ '^https?://[^\s/?#]+' or char_length(p ->> 'url') > 2000 then
    perform bullpen.fail('VALIDATION_ERROR', 'url: an http(s) URL', 'e.g. https://agent.example.com/hooks/bullpen');
  end if;
  v_events := array(select e from jsonb_array_elements_text(coalesce(p -> 'events', '[]')) with ordinality x(e, n)
                     group by e order by min(n));
  if cardinality(v_events) = 0 then
    perform bullpen.fail('VALIDATION_ERROR', 'events: name at least one event type', 'e.g. ["task.done", "handoff.created"] or ["task.*"]');
  end if;
  select e into v_bad from unnest(v_events) e
   where e <> '*' and e !~ '^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)*(\.\*)?$' limit 1;
  if v_bad is not null then
    perform bullpen.fail('VALIDATION_ERROR', format('events: %s is not an event type, family.* or *', v_bad));
  end if;
  v_recipient := bullpen.require_actor_in_tenant(bullpen.uuid_arg(p, 'recipient'), 'recipient');
  insert into public.webhooks (tenant_id, url, events, recipient_actor_id, secret, created_by_actor_id)
  values (bullpen.tenant_id(), p ->> 'url', v_events, v_recipient, v_secret, bullpen.actor_id())
  returning * into v_w;
  perform bullpen.log('webhook.added', 'webhook', v_w.id, null, format('webhook to %s for %s', v_w.url, array_to_string(v_events, ', ')),
    jsonb_build_object('url', v_w.url, 'events', to_jsonb(v_events)));
  v_result := jsonb_build_object('webhook', bullpen.webhook_json(v_w), 'secret', v_secret);
  -- the secret is shown once: a replay answers without it
  perform bullpen.idem_finish(p, v_result || '{"secret": null}');
  return v_result;
end
$$;
alter function public.webhook_add(jsonb) owner to bullpen_writer;

/** The workspace's webhooks with their delivery counts, and the latest deliveries (of one webhook, or all). */
create or replace function public.webhook_list(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_tenant uuid;
  v_webhook uuid;
  v_limit int := greatest(1, least(coalesce((p ->> 'limit')::int, 50), 200));
begin
  perform bullpen.require_actor();
  perform bullpen.require_owner('webhook_list');
  v_tenant := bullpen.tenant_id();
  v_webhook := bullpen.uuid_arg(p, 'webhook_id');
  if v_webhook is not null and not exists (select 1 from public.webhooks w where w.tenant_id = v_tenant and w.id = v_webhook) then
    perform bullpen.fail('NOT_FOUND', format('webhook_id: no webhook %s in this workspace', v_webhook), 'list webhooks with webhook_list');
  end if;
  return jsonb_build_object(
    'webhooks', coalesce((
      select jsonb_agg(bullpen.webhook_json(w) || jsonb_build_object(
               'delivered', (select count(*) from public.webhook_deliveries d where d.tenant_id = w.tenant_id and d.webhook_id = w.id and d.status = 'delivered'),
               'failed', (select count(*) from public.webhook_deliveries d where d.tenant_id = w.tenant_id and d.webhook_id = w.id and d.status in ('failed', 'dropped')),
               'pending', (select count(*) from public.webhook_deliveries d where d.tenant_id = w.tenant_id and d.webhook_id = w.id and d.status = 'pending'))
             order by w.created_at, w.id)
        from public.webhooks w where w.tenant_id = v_tenant and (v_webhook is null or w.id = v_webhook)), '[]'),
    'deliveries', coalesce((
      select jsonb_agg(jsonb_build_object('id', d.id, 'webhook_id', d.webhook_id, 'seq', d.activity_id, 'event_type', d.event_type,
               'status', d.status, 'attempts', d.attempts, 'response_status', d.response_status, 'last_error', d.last_error,
               'created_at', d.created_at, 'last_attempt_at', d.last_attempt_at, 'delivered_at', d.delivered_at) order by d.id desc)
        from (select * from public.webhook_deliveries d
               where d.tenant_id = v_tenant and (v_webhook is null or d.webhook_id = v_webhook)
               order by d.id desc limit v_limit) d), '[]'));
end
$$;
alter function public.webhook_list(jsonb) owner to bullpen_writer;

create or replace function public.webhook_remove(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_w public.webhooks;
begin
  perform bullpen.require_actor();
  perform bullpen.require_owner('webhook_remove');
  v_replay := bullpen.idem_begin('webhook_remove', p);
  if v_replay is not null then
    return v_replay;
  end if;
  delete from public.webhooks w where w.tenant_id = (select bullpen.tenant_id()) and w.id = bullpen.uuid_arg(p, 'webhook_id')
  returning * into v_w;
  if v_w.id is null then
    perform bullpen.fail('NOT_FOUND', format('webhook_id: no webhook %s in this workspace', p ->> 'webhook_id'), 'list webhooks with webhook_list');
  end if;
  perform bullpen.log('webhook.removed', 'webhook', v_w.id, null, format('webhook to %s removed', v_w.url), jsonb_build_object('url', v_w.url));
  return bullpen.idem_finish(p, jsonb_build_object('removed', true, 'webhook_id', v_w.id));
end
$$;
alter function public.webhook_remove(jsonb) owner to bullpen_writer;

-- ---------------------------------------------------------------------------------------------
-- Fan-out: an event row becomes one delivery (and one webhook.deliver job) per matching webhook,
-- in the writing transaction. Security invoker: an RPC's writer sees its own workspace's webhooks;
-- the server's own connection (jobs) sees the row's.
-- ---------------------------------------------------------------------------------------------

/** Whether an event concerns an actor: a handoff addressed to it, a task assigned to it. */
create or replace function bullpen.event_concerns(a public.activity, p_actor uuid) returns boolean
language sql stable
as $$
  select case
    when a.object_type = 'handoff' then exists (select 1 from public.handoff_recipients r
                                                where r.tenant_id = a.tenant_id and r.handoff_id = a.object_id and r.actor_id = p_actor)
    when a.object_type = 'task' then exists (select 1 from public.tasks t
                                             where t.tenant_id = a.tenant_id and t.id = a.object_id and t.assignee_actor_id = p_actor)
    else false end
$$;

create or replace function bullpen.webhook_fanout() returns trigger
language plpgsql
as $$
declare
  v_w public.webhooks;
  v_d bigint;
begin
  if new.xid is null or new.object_type = 'inbox'
     or not exists (select 1 from public.webhooks w where w.tenant_id = new.tenant_id and w.status = 'active')
     or not bullpen.event_visible(new.verb, new.object_type) then
    return null;
  end if;
  for v_w in select * from public.webhooks w
              where w.tenant_id = new.tenant_id and w.status = 'active' and bullpen.event_type_matches(new.verb, w.events) loop
    if v_w.recipient_actor_id is not null and not bullpen.event_concerns(new, v_w.recipient_actor_id) then
      continue;
    end if;
    insert into public.webhook_deliveries (tenant_id, webhook_id, activity_id, event_type)
    values (new.tenant_id, v_w.id, new.id, new.verb)
    returning id into v_d;
    -- 30 tries, 2 s doubling up to an hour apart: past the day after which a failing webhook is disabled
    insert into bullpen.jobs (tenant_id, kind, payload, max_attempts)
    values (new.tenant_id, 'webhook.deliver', jsonb_build_object('delivery_id', v_d), 30);
  end loop;
  return null;
end
$$;

create or replace trigger activity_webhook_fanout after insert on public.activity
  for each row execute function bullpen.webhook_fanout();

-- ---------------------------------------------------------------------------------------------
-- The webhook.deliver job's steps (the server alone)
-- ---------------------------------------------------------------------------------------------

/** What one delivery sends: the webhook's url, secret and status, and the event. Null when gone. */
create or replace function bullpen.webhook_delivery_load(p_tenant uuid, p_delivery bigint) returns jsonb
language sql stable
set search_path = ''
as $$
  select jsonb_build_object('delivery_id', d.id, 'status', d.status, 'webhook_id', w.id, 'url', w.url, 'secret', w.secret,
           'webhook_status', w.status, 'event', bullpen.event_json(a) || jsonb_build_object('tenant_id', a.tenant_id))
    from public.webhook_deliveries d
    join public.webhooks w on w.tenant_id = d.tenant_id and w.id = d.webhook_id
    join public.activity a on a.tenant_id = d.tenant_id and a.id = d.activity_id
   where d.tenant_id = p_tenant and d.id = p_delivery
$$;

/**
 * Records one attempt. Success clears the webhook's failing streak. A failure starts it (or keeps
 * it); once it is a day old the webhook is disabled, its pending deliveries dropped and the owner who
 * added it notified. p_final: the job has no tries left. Returns {status, disabled}: retry when
 * status is still pending.
 */
create or replace function bullpen.webhook_delivery_record(
  p_tenant uuid, p_delivery bigint, p_ok boolean, p_status int, p_error text, p_final boolean default false
) returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  v_d public.webhook_deliveries;
  v_w public.webhooks;
  v_disabled boolean := false;
begin
  update public.webhook_deliveries d
     set attempts = d.attempts + 1, response_status = p_status, last_error = left(p_error, 1000), last_attempt_at = now(),
         status = case when p_ok then 'delivered' when p_final then 'failed' else 'pending' end,
         delivered_at = case when p_ok then now() end
   where d.tenant_id = p_tenant and d.id = p_delivery and d.status = 'pending'
  returning * into v_d;
  if v_d.id is null then
    return jsonb_build_object('status', 'gone', 'disabled', false);
  end if;
  if p_ok then
    update public.webhooks w set failing_since = null, last_success_at = now()
     where w.tenant_id = p_tenant and w.id = v_d.webhook_id;
  else
    update public.webhooks w set failing_since = coalesce(w.failing_since, now())
     where w.tenant_id = p_tenant and w.id = v_d.webhook_id
    returning * into v_w;
    if v_w.status = 'active' and v_w.failing_since <= now() - interval '1 day' then
      update public.webhooks w
         set status = 'disabled', disabled_at = now(),
             disabled_reason = format('failing since %s (last: %s)', to_char(v_w.failing_since at time zone 'UTC', 'YYYY-MM-DD HH24:MI "UTC"'),
                                      coalesce(left(p_error, 200), 'HTTP ' || p_status))
       where w.tenant_id = p_tenant and w.id = v_w.id;
      update public.webhook_deliveries d set status = case when d.id = v_d.id then 'failed' else 'dropped' end,
             last_error = coalesce(d.last_error, 'webhook disabled')
       where d.tenant_id = p_tenant and d.webhook_id = v_w.id and d.status = 'pending';
      v_disabled := true;
      perform bullpen.log_aside(p_tenant, 'webhook.disabled', 'webhook', v_w.id, null,
        format('webhook to %s disabled: failing for a day', v_w.url), jsonb_build_object('url', v_w.url));
      perform bullpen.notify(p_tenant, v_w.created_by_actor_id, 'webhook.disabled',
        format('Webhook to %s disabled', v_w.url),
        format('Every delivery failed since %s. Add it again with bullpen webhook add once the receiver answers.', v_w.failing_since));
      v_d.status := 'failed';
    end if;
  end if;
  return jsonb_build_object('status', v_d.status, 'disabled', v_disabled);
end
$$;

/** Drops a delivery that will not be sent (its webhook disabled or its URL refused). */
create or replace function bullpen.webhook_delivery_drop(p_tenant uuid, p_delivery bigint, p_reason text) returns void
language sql
set search_path = ''
as $$
  update public.webhook_deliveries d set status = 'dropped', last_error = left(p_reason, 1000), last_attempt_at = now()
   where d.tenant_id = p_tenant and d.id = p_delivery and d.status = 'pending'
$$;

-- ---------------------------------------------------------------------------------------------
-- Grants
-- ---------------------------------------------------------------------------------------------

revoke all on function bullpen.event_visible(text, text) from public, anon, authenticated;
grant execute on function bullpen.event_visible(text, text) to bullpen_writer, service_role;
revoke all on function bullpen.event_type_matches(text, text[]) from public, anon, authenticated;
grant execute on function bullpen.event_type_matches(text, text[]) to bullpen_writer, service_role;
revoke all on function bullpen.event_json(public.activity) from public, anon, authenticated;
grant execute on function bullpen.event_json(public.activity) to bullpen_writer, service_role;
revoke all on function bullpen.event_cursor(uuid, xid8, bigint) from public, anon, authenticated;
grant execute on function bullpen.event_cursor(uuid, xid8, bigint) to bullpen_writer, service_role;
revoke all on function bullpen.webhook_json(public.webhooks) from public, anon, authenticated;
grant execute on function bullpen.webhook_json(public.webhooks) to bullpen_writer, service_role;
revoke all on function bullpen.require_owner(text) from public, anon, authenticated;
grant execute on function bullpen.require_owner(text) to bullpen_writer, service_role;
revoke all on function bullpen.event_concerns(public.activity, uuid) from public, anon, authenticated;
grant execute on function bullpen.event_concerns(public.activity, uuid) to bullpen_writer, service_role;
revoke all on function bullpen.webhook_fanout() from public, anon, authenticated;
grant execute on function bullpen.webhook_fanout() to bullpen_writer, service_role;
revoke all on function public.event_publish(jsonb) from public, anon;
grant execute on function public.event_publish(jsonb) to authenticated, service_role;
revoke all on function public.event_poll(jsonb) from public, anon;
grant execute on function public.event_poll(jsonb) to authenticated, service_role;
revoke all on function public.webhook_add(jsonb) from public, anon;
grant execute on function public.webhook_add(jsonb) to authenticated, service_role;
revoke all on function public.webhook_list(jsonb) from public, anon;
grant execute on function public.webhook_list(jsonb) to authenticated, service_role;
revoke all on function public.webhook_remove(jsonb) from public, anon;
grant execute on function public.webhook_remove(jsonb) to authenticated, service_role;
revoke all on function bullpen.webhook_delivery_load(uuid, bigint) from public, anon, authenticated, bullpen_writer;
grant execute on function bullpen.webhook_delivery_load(uuid, bigint) to service_role;
revoke all on function bullpen.webhook_delivery_record(uuid, bigint, boolean, int, text, boolean) from public, anon, authenticated, bullpen_writer;
grant execute on function bullpen.webhook_delivery_record(uuid, bigint, boolean, int, text, boolean) to service_role;
revoke all on function bullpen.webhook_delivery_drop(uuid, bigint, text) from public, anon, authenticated, bullpen_writer;
grant execute on function bullpen.webhook_delivery_drop(uuid, bigint, text) to service_role;
