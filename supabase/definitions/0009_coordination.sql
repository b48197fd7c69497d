-- Coordination: handoffs, the inbox (ack after act), notifications, the review on-ramp and gate,
-- and the room hooks task_get, project_brief and whoami call.
-- Re-applied on every upgrade that changes any definition file: every statement here must be
-- safe to run again (create or replace).
--
-- How the inbox is woken: whatever lands in an actor's inbox also writes an activity row with
-- object_type 'inbox' and object_id = that actor. The row is the change event the waiting calls
-- (inbox and task_claim with wait_seconds, lib/core/wait.ts) route on, without a query per waiter.
-- It says only that an actor's inbox changed; what changed stays in the private notification.

-- ---------------------------------------------------------------------------------------------
-- Small helpers
-- ---------------------------------------------------------------------------------------------

/** {id, display_name, kind} of an actor, or null. */
create or replace function bullpen.handoff_actor(p_tenant uuid, p_actor uuid) returns jsonb
language plpgsql stable
as $$
#variable_conflict use_column
begin
  return (
    select jsonb_build_object('id', a.id, 'display_name', a.display_name, 'kind', a.kind)
        from public.actors a where a.tenant_id = p_tenant and a.id = p_actor
  );
end
$$;

create or replace function bullpen.coord_actor_name(p_tenant uuid, p_actor uuid) returns text
language plpgsql stable
as $$
#variable_conflict use_column
begin
  return (
    select coalesce((select a.display_name from public.actors a where a.tenant_id = p_tenant and a.id = p_actor), 'someone')
  );
end
$$;

/** KEY-N of a task. */
create or replace function bullpen.coord_task_ref(t public.tasks) returns text
language plpgsql stable
as $$
#variable_conflict use_column
begin
  return (
    select pr.key || '-' || t.seq from public.projects pr where pr.tenant_id = t.tenant_id and pr.id = t.project_id
  );
end
$$;

/**
 * An activity row that is not the call's main write: it never becomes the object a derived
 * idempotency key watches (bullpen.log would make the first row written in a call that object).
 */
create or replace function bullpen.log_aside(
  p_tenant uuid, p_verb text, p_object_type text, p_object_id uuid, p_project_id uuid, p_summary text,
  p_metadata jsonb default '{}'
) returns void
language sql
as $$
  insert into public.activity (tenant_id, project_id, actor_id, run_id, verb, object_type, object_id, summary, metadata)
  values (p_tenant, p_project_id, bullpen.actor_id(), bullpen.run_id(), p_verb, p_object_type, p_object_id,
          coalesce(p_summary, ''), coalesce(p_metadata, '{}'))
$$;

/** Announces on the change feed that an actor's inbox changed (see the header of this file). */
create or replace function bullpen.inbox_touch(p_tenant uuid, p_recipient uuid, p_reason text) returns void
language sql
as $$
  select bullpen.log_aside(p_tenant, 'inbox.changed', 'inbox', p_recipient, null, p_reason, jsonb_build_object('reason', p_reason))
$$;

/**
 * Notifies one actor (never the actor doing the write: nobody needs telling what they just did).
 * The row is readable by its recipient alone; the feed learns only that the inbox changed.
 */
create or replace function bullpen.notify(
  p_tenant uuid, p_recipient uuid, p_kind text, p_title text, p_body text default '',
  p_project_id uuid default null, p_task_id uuid default null, p_handoff_id uuid default null, p_comment_id uuid default null
) returns void
language plpgsql
as $$
begin
  if p_recipient is null or p_recipient is not distinct from bullpen.actor_id() then
    return;
  end if;
  insert into public.notifications (tenant_id, recipient_actor_id, kind, title, body, actor_id, project_id, task_id,
                                    handoff_id, comment_id)
  values (p_tenant, p_recipient, p_kind, left(p_title, 1000), left(coalesce(p_body, ''), 2000), bullpen.actor_id(),
          p_project_id, p_task_id, p_handoff_id, p_comment_id);
  perform bullpen.inbox_touch(p_tenant, p_recipient, p_kind);
end
$$;

-- ---------------------------------------------------------------------------------------------
-- Handoffs
-- ---------------------------------------------------------------------------------------------

create or replace function bullpen.handoff_json(h public.handoffs) returns jsonb
language plpgsql stable
as $$
#variable_conflict use_column
begin
  return (
    select (to_jsonb(h) - 'tenant_id' - 'response_settled') || jsonb_build_object(
        'from', bullpen.handoff_actor(h.tenant_id, h.from_actor_id),
        'to', coalesce((select jsonb_agg(jsonb_build_object('id', a.id, 'display_name', a.display_name, 'kind', a.kind,
                                                            'deactivated_at', r.deactivated_at)
                                         order by a.display_name, a.id)
                          from public.handoff_recipients r
                          join public.actors a on a.tenant_id = r.tenant_id and a.id = r.actor_id
                         where r.tenant_id = h.tenant_id and r.handoff_id = h.id), '[]'),
        'claimed_by', case when h.claimed_by_actor_id is not null then bullpen.handoff_actor(h.tenant_id, h.claimed_by_actor_id) end,
        'responded_by', case when h.responded_by_actor_id is not null then bullpen.handoff_actor(h.tenant_id, h.responded_by_actor_id) end,
        'related_task_ref', (select pr.key || '-' || t.seq from public.tasks t
                               join public.projects pr on pr.tenant_id = t.tenant_id and pr.id = t.project_id
                              where t.tenant_id = h.tenant_id and t.id = h.related_task_id))
  );
end
$$;

/**
 * Keeps the inbox reads bounded (migration 0015): once a handoff can no longer wait for a
 * recipient (answered, resolved, or claimed by another) that recipient's row is settled, and once
 * the answer can no longer wait for the sender (resolved by the sender, or self-answered) the
 * handoff's response is settled; the sender's ack settles it too (inbox_ack). Statuses only
 * move forward, so a flag once set stays right.
 */
create or replace function bullpen.handoffs_settle() returns trigger
language plpgsql
as $$
begin
  if new.status in ('responded', 'resolved') then
    update public.handoff_recipients set settled = true
     where tenant_id = new.tenant_id and handoff_id = new.id and not settled;
  elsif new.status = 'claimed' then
    update public.handoff_recipients set settled = true
     where tenant_id = new.tenant_id and handoff_id = new.id and actor_id <> new.claimed_by_actor_id and not settled;
  end if;
  if new.responded_at is not null and not new.response_settled
     and (new.responded_by_actor_id = new.from_actor_id
          or (new.status = 'resolved' and new.resolved_by_actor_id = new.from_actor_id)) then
    new.response_settled := true;
  end if;
  return new;
end
$$;

-- only a move of status or claim can settle anything: answering and resolving both move the status
create or replace trigger handoffs_settle before update on public.handoffs
  for each row when (old.status is distinct from new.status or old.claimed_by_actor_id is distinct from new.claimed_by_actor_id)
  execute function bullpen.handoffs_settle();

/** A handoff of the caller's workspace by id; NOT_FOUND (naming the field) otherwise. */
create or replace function bullpen.resolve_handoff(p_ref text, p_field text default 'handoff_id', p_lock boolean default false)
returns public.handoffs
language plpgsql
as $$
declare
  v public.handoffs;
  v_id uuid := bullpen.uuid_arg(jsonb_build_object(p_field, p_ref), p_field);
begin
  if v_id is null then
    perform bullpen.fail('VALIDATION_ERROR', format('%s is required', p_field));
  end if;
  if p_lock then
    select * into v from public.handoffs where tenant_id = (select bullpen.tenant_id()) and id = v_id for update;
  else
    select * into v from public.handoffs where tenant_id = (select bullpen.tenant_id()) and id = v_id;
  end if;
  if v.id is null then
    perform bullpen.fail('NOT_FOUND', format('%s: no handoff %s in this workspace', p_field, p_ref),
      'list handoffs with handoff_query or inbox');
  end if;
  return v;
end
$$;

create or replace function bullpen.handoff_is_recipient(h public.handoffs, p_actor uuid) returns boolean
language sql stable
as $$
  select exists (select 1 from public.handoff_recipients r
                  where r.tenant_id = h.tenant_id and r.handoff_id = h.id and r.actor_id = p_actor)
$$;

create or replace function bullpen.handoff_recipient_names(h public.handoffs) returns text
language sql stable
as $$
  select coalesce(string_agg(a.display_name, ', ' order by a.display_name), 'nobody')
    from public.handoff_recipients r join public.actors a on a.tenant_id = r.tenant_id and a.id = r.actor_id
   where r.tenant_id = h.tenant_id and r.handoff_id = h.id
$$;

/**
 * Opens a handoff, or finds the live one with the same fingerprint: {handoff_id, deduped}.
 * The fingerprint is the caller's, or derived from sender, sorted recipients, kind, normalised
 * title and related object. A live duplicate is found through the partial unique index, so
 * concurrent identical creates make one row. p_side: the write is a side effect of another call
 * (the review on-ramp), so its activity must not become that call's idempotency object.
 */
create or replace function bullpen.handoff_open(
  p_tenant uuid, p_from uuid, p_kind text, p_title text, p_body text, p_options text[], p_allow_free_text boolean,
  p_due_at timestamptz, p_task_id uuid, p_project_id uuid, p_to uuid[], p_fingerprint text, p_side boolean
) returns jsonb
language plpgsql
as $$
declare
  v_to uuid[] := array(select distinct x from unnest(p_to) x order by x);
  v_fp text := p_fingerprint;
  v_h public.handoffs;
  v_r uuid;
  v_summary text;
  v_from text := bullpen.coord_actor_name(p_tenant, p_from);
begin
  if v_fp is null then
    v_fp := 'auto:' || md5(concat_ws('|', p_from::text, array_to_string(v_to, ','), p_kind,
                                     lower(regexp_replace(btrim(p_title), '\s+', ' ', 'g')),
                                     coalesce(p_task_id::text, p_project_id::text, '')));
  end if;
  insert into public.handoffs (tenant_id, kind, title, body, options, allow_free_text, due_at, related_task_id,
                               related_project_id, from_actor_id, fingerprint)
  values (p_tenant, p_kind, p_title, coalesce(p_body, ''), coalesce(p_options, '{}'), coalesce(p_allow_free_text, true),
          p_due_at, p_task_id, p_project_id, p_from, v_fp)
  on conflict (tenant_id, fingerprint) where status <> 'resolved' do nothing
  returning * into v_h;
  if v_h.id is null then
    select * into v_h from public.handoffs
     where tenant_id = p_tenant and fingerprint = v_fp and status <> 'resolved';
    return jsonb_build_object('handoff_id', v_h.id, 'deduped', true);
  end if;
  insert into public.handoff_recipients (tenant_id, handoff_id, actor_id)
  select p_tenant, v_h.id, x from unnest(v_to) x;
  v_summary := format('%s to %s: %s', p_kind, bullpen.handoff_recipient_names(v_h), p_title);
  if p_side then
    perform bullpen.log_aside(p_tenant, 'handoff.created', 'handoff', v_h.id, p_project_id, v_summary,
      jsonb_build_object('kind', p_kind, 'to', to_jsonb(v_to)));
  else
    perform bullpen.log('handoff.created', 'handoff', v_h.id, p_project_id, v_summary,
      jsonb_build_object('kind', p_kind, 'to', to_jsonb(v_to)));
  end if;
  foreach v_r in array v_to loop
    if v_r = bullpen.actor_id() then
      -- addressed to oneself: nothing to notify, but a waiting inbox still wakes
      perform bullpen.inbox_touch(p_tenant, v_r, 'handoff.received');
    else
      perform bullpen.notify(p_tenant, v_r,
        case when p_kind = 'review' then 'review.requested' else 'handoff.received' end,
        case when p_kind = 'review' then format('%s asks for your review: %s', v_from, p_title)
             else format('%s from %s: %s', initcap(p_kind), v_from, p_title) end,
        left(coalesce(p_body, ''), 2000), p_project_id, p_task_id, v_h.id);
    end if;
  end loop;
  return jsonb_build_object('handoff_id', v_h.id, 'deduped', false);
end
$$;

/** Resolves a handoff as a side effect of another write (the review on-ramp). */
create or replace function bullpen.handoff_close_side(h public.handoffs, p_resolution text, p_note text) returns void
language plpgsql
as $$
begin
  update public.handoffs
     set status = 'resolved', resolution = p_resolution, resolution_note = p_note,
         resolved_by_actor_id = bullpen.actor_id(), resolved_at = now(), updated_at = now()
   where tenant_id = h.tenant_id and id = h.id and status <> 'resolved';
  if found then
    perform bullpen.log_aside(h.tenant_id, 'handoff.resolved', 'handoff', h.id, h.related_project_id,
      format('%s: %s', p_resolution, p_note), jsonb_build_object('resolution', p_resolution));
  end if;
end
$$;

-- ---------------------------------------------------------------------------------------------
-- The review on-ramp and gate
-- ---------------------------------------------------------------------------------------------

create or replace function bullpen.review_fingerprint(p_task_id uuid, p_reviewer uuid) returns text
language sql immutable
as $$ select 'review:' || p_task_id::text || ':' || p_reviewer::text $$;

/** The live review handoff the on-ramp opened for (task, reviewer), if any. */
create or replace function bullpen.review_live(p_tenant uuid, p_task_id uuid, p_reviewer uuid) returns public.handoffs
language sql stable
as $$
  select h.* from public.handoffs h
   where h.tenant_id = p_tenant and h.fingerprint = bullpen.review_fingerprint(p_task_id, p_reviewer)
     and h.status <> 'resolved'
$$;

/**
 * The review that decides the gate: the newest review handoff about the task addressed to its
 * current reviewer and not cancelled, live ones first.
 */
create or replace function bullpen.review_latest(t public.tasks) returns public.handoffs
language sql stable
as $$
  select h.* from public.handoffs h
   where h.tenant_id = t.tenant_id and h.related_task_id = t.id and h.kind = 'review'
     and h.resolution is distinct from 'cancelled'
     and exists (select 1 from public.handoff_recipients r
                  where r.tenant_id = h.tenant_id and r.handoff_id = h.id and r.actor_id = t.reviewer_actor_id)
   order by (h.status <> 'resolved') desc, h.created_at desc, h.id desc
   limit 1
$$;

/**
 * The review as a reader sees it: null without a reviewer, else
 * {state: not_requested | waiting | changes_requested | approved, reviewer_actor_id, reviewer, handoff_id, …}.
 */
create or replace function bullpen.review_state(t public.tasks) returns jsonb
language plpgsql stable
as $$
declare
  v_h public.handoffs;
begin
  if t.reviewer_actor_id is null then
    return null;
  end if;
  v_h := bullpen.review_latest(t);
  return jsonb_build_object(
    'state', case when v_h.id is null then 'not_requested'
                  when v_h.response ->> 'chosen_option' = 'approve' then 'approved'
                  when v_h.response ->> 'chosen_option' = 'request_changes' then 'changes_requested'
                  else 'waiting' end,
    'reviewer_actor_id', t.reviewer_actor_id,
    'reviewer', bullpen.coord_actor_name(t.tenant_id, t.reviewer_actor_id),
    'handoff_id', v_h.id,
    'text', v_h.response ->> 'text',
    'responded_at', v_h.responded_at);
end
$$;

/** The actors that claimed a task: its lease holder and the task.claimed rows of the log. */
create or replace function bullpen.task_claimers(t public.tasks) returns uuid[]
language sql stable
as $$
  select array(
    select w from (
      select t.lease_actor_id as w
      union select ac.actor_id from public.activity ac
             where ac.tenant_id = t.tenant_id and ac.object_id = t.id and t.id is not null
               and ac.verb in ('task.claimed', 'task.lease_extended')) x
     where w is not null)
$$;

/** Who does a task's work, and so may not review it: its assignee and every actor that claimed it. */
create or replace function bullpen.task_workers(t public.tasks) returns uuid[]
language sql stable
as $$
  select array_remove(t.assignee_actor_id || bullpen.task_claimers(t), null)
$$;

/**
 * A review is someone else's: refuses FORBIDDEN when a call names as reviewer (p_field) an actor
 * that does the task's work: its assignee before or after the call (p_assignee), its lease holder
 * or one that claimed it. t is null for a task being created.
 */
create or replace function bullpen.review_guard(t public.tasks, p_assignee uuid, p_reviewer uuid, p_field text) returns void
language plpgsql
as $$
declare
  v_tenant uuid := bullpen.tenant_id();
begin
  if p_reviewer is null then
    return;
  end if;
  if p_reviewer = p_assignee or (t.id is not null and p_reviewer = any (bullpen.task_workers(t))) then
    perform bullpen.fail('FORBIDDEN',
      format('%s: a review is someone else''s: %s %s this task and cannot review it', p_field,
             case when p_reviewer = bullpen.actor_id() then 'you' else bullpen.coord_actor_name(v_tenant, p_reviewer) end,
             case when p_reviewer = bullpen.actor_id() then 'do the work on (assignee or claimer) of' else 'does the work on (assignee or claimer) of' end),
      'name another actor as reviewer (actor_query lists them), or leave reviewer_actor_id out',
      jsonb_build_object('reviewer_actor_id', p_reviewer, 'rule', 'reviewer_not_worker'));
  end if;
end
$$;

/** The review check of the done gate (registered below). Null when the task has no reviewer. */
create or replace function bullpen.done_gate_review(t public.tasks) returns jsonb
language plpgsql stable
as $$
declare
  v_h public.handoffs;
  v_name text;
begin
  if t.reviewer_actor_id is null then
    return null;
  end if;
  v_name := bullpen.coord_actor_name(t.tenant_id, t.reviewer_actor_id);
  v_h := bullpen.review_latest(t);
  if v_h.id is null then
    return jsonb_build_object('met', false, 'summary', 'review not requested',
      'message', format('review by %s not requested yet', v_name),
      'hint', format('move the task to in_review: that asks %s for a review, answered with handoff_respond', v_name),
      'reviewer_actor_id', t.reviewer_actor_id);
  end if;
  if v_h.response ->> 'chosen_option' = 'approve' and v_h.responded_by_actor_id = any (bullpen.task_workers(t)) then
    -- a review is someone else's: an approval by one who did the work does not count
    return jsonb_build_object('met', false,
      'summary', format('approved by %s, who did the work', bullpen.coord_actor_name(t.tenant_id, v_h.responded_by_actor_id)),
      'message', format('a review is someone else''s: %s approved, but did the work on this task (assignee or claimer)',
                        bullpen.coord_actor_name(t.tenant_id, v_h.responded_by_actor_id)),
      'hint', 'name another actor as reviewer with task_update patch.reviewer_actor_id; their approve (handoff_respond) counts',
      'reviewer_actor_id', t.reviewer_actor_id, 'handoff_id', v_h.id);
  end if;
  if v_h.response ->> 'chosen_option' = 'approve' then
    return jsonb_build_object('met', true, 'summary', format('approved by %s', v_name), 'handoff_id', v_h.id);
  end if;
  if v_h.response ->> 'chosen_option' = 'request_changes' then
    return jsonb_build_object('met', false, 'summary', format('changes requested by %s', v_name),
      'message', format('%s requested changes: %s', v_name, left(coalesce(v_h.response ->> 'text', ''), 300)),
      'hint', 'make the changes, then move the task to in_review: that asks for a new review',
      'reviewer_actor_id', t.reviewer_actor_id, 'handoff_id', v_h.id);
  end if;
  return jsonb_build_object('met', false, 'summary', format('waiting for %s', v_name),
    'message', format('review by %s not answered yet (handoff %s is %s)', v_name, v_h.id, v_h.status),
    'hint', format('%s approves with handoff_respond {"handoff_id": "%s", "response": {"chosen_option": "approve"}}',
                   v_name, v_h.id),
    'reviewer_actor_id', t.reviewer_actor_id, 'handoff_id', v_h.id);
end
$$;

insert into bullpen.done_gates (name, position, check_fn, satisfied_by, description)
values ('review', 30, 'bullpen.done_gate_review', 'handoff_respond',
        'the task''s reviewer answered its review handoff with approve')
on conflict (name) do update
  set position = excluded.position, check_fn = excluded.check_fn, satisfied_by = excluded.satisfied_by,
      description = excluded.description;

/**
 * Keeps a task's review handoff in step with the task. Runs after every update that moves the
 * status or changes the reviewer:
 * - a replaced or removed reviewer's live review is cancelled (clearing the reviewer lifts the gate);
 * - done resolves the live review (processed), cancelled or failed cancels it;
 * - in_progress or in_review with a reviewer opens the review if none is live (deduped by
 *   fingerprint). It opens when work starts, not only at in_review, because done is reachable from
 *   in_progress: a refused done rolls its own transaction back, so the review it waits on must
 *   already exist; the refusal then names it.
 * - entering in_review after the reviewer requested changes resolves that answer and asks again.
 */
create or replace function bullpen.review_sync(n public.tasks, o public.tasks) returns void
language plpgsql
as $$
declare
  v_live public.handoffs;
  v_ref text;
begin
  if o.reviewer_actor_id is not null and n.reviewer_actor_id is distinct from o.reviewer_actor_id then
    v_live := bullpen.review_live(n.tenant_id, n.id, o.reviewer_actor_id);
    if v_live.id is not null then
      perform bullpen.handoff_close_side(v_live, 'cancelled',
        case when n.reviewer_actor_id is null then 'the reviewer was removed from the task' else 'the reviewer was replaced' end);
    end if;
  end if;
  if n.reviewer_actor_id is null then
    return;
  end if;
  if n.status in ('done', 'cancelled', 'failed', 'skipped') then
    if n.status is distinct from o.status then
      v_live := bullpen.review_live(n.tenant_id, n.id, n.reviewer_actor_id);
      if v_live.id is not null then
        perform bullpen.handoff_close_side(v_live, case when n.status = 'done' then 'processed' else 'cancelled' end,
          format('the task is %s', n.status));
      end if;
    end if;
    return;
  end if;
  if n.status not in ('in_progress', 'in_review')
     or (n.status is not distinct from o.status and n.reviewer_actor_id is not distinct from o.reviewer_actor_id) then
    return;
  end if;
  v_live := bullpen.review_live(n.tenant_id, n.id, n.reviewer_actor_id);
  if v_live.id is not null and n.status = 'in_review' and o.status is distinct from 'in_review'
     and v_live.response ->> 'chosen_option' = 'request_changes' then
    perform bullpen.handoff_close_side(v_live, 'processed', 'resubmitted for review');
    v_live := null;
  end if;
  if v_live.id is null then
    v_ref := bullpen.coord_task_ref(n);
    perform bullpen.handoff_open(n.tenant_id,
      coalesce(bullpen.actor_id(), n.assignee_actor_id, n.created_by_actor_id, n.reviewer_actor_id), 'review',
      format('Review %s: %s', v_ref, n.title),
      format('%s needs your review before it can be done. Answer with `handoff_respond`: `approve` lets it close; '
             '`request_changes` (say what in `response.text`) sends it back to its assignee and adds your text as a comment.', v_ref),
      array['approve', 'request_changes'], true, null, n.id, n.project_id, array[n.reviewer_actor_id],
      bullpen.review_fingerprint(n.id, n.reviewer_actor_id), true);
  end if;
end
$$;

/** Tells the assignees of the tasks this one was the last open blocker of (wake-on-resolved). */
create or replace function bullpen.wake_dependents(n public.tasks) returns void
language plpgsql
as $$
declare
  v public.tasks;
  v_ref text := bullpen.coord_task_ref(n);
begin
  for v in
    select dt.* from public.task_dependencies d
      join public.tasks dt on dt.tenant_id = d.tenant_id and dt.id = d.task_id
     where d.tenant_id = n.tenant_id and d.depends_on_task_id = n.id
       and dt.assignee_actor_id is not null and dt.status not in ('done', 'cancelled', 'failed', 'skipped')
       and not bullpen.task_waiting(dt.tenant_id, dt.id)
  loop
    perform bullpen.notify(v.tenant_id, v.assignee_actor_id, 'task.unblocked',
      format('%s is unblocked: its last blocker %s is %s', bullpen.coord_task_ref(v), v_ref, n.status),
      v.title, v.project_id, v.id);
  end loop;
end
$$;

create or replace function bullpen.notify_assigned(n public.tasks) returns void
language plpgsql
as $$
begin
  perform bullpen.notify(n.tenant_id, n.assignee_actor_id, 'task.assigned',
    format('%s assigned you %s: %s', bullpen.coord_actor_name(n.tenant_id, bullpen.actor_id()), bullpen.coord_task_ref(n), n.title),
    '', n.project_id, n.id);
end
$$;

/** After a task is written: assignment notices, the review on-ramp, wake-on-resolved. */
create or replace function bullpen.tasks_coordination() returns trigger
language plpgsql
as $$
begin
  -- claiming or taking a task oneself is not news (and the claim path stays free of lookups)
  if tg_op = 'INSERT' then
    if new.assignee_actor_id is distinct from bullpen.actor_id() then
      perform bullpen.notify_assigned(new);
    end if;
    return null;
  end if;
  if new.assignee_actor_id is distinct from old.assignee_actor_id and new.assignee_actor_id is not null
     and new.assignee_actor_id is distinct from bullpen.actor_id() then
    perform bullpen.notify_assigned(new);
  end if;
  perform bullpen.review_sync(new, old);
  if new.status in ('done', 'skipped') and old.status not in ('done', 'skipped') then
    perform bullpen.wake_dependents(new);
  end if;
  return null;
end
$$;

create or replace trigger tasks_coordination_insert after insert on public.tasks
  for each row when (new.assignee_actor_id is not null)
  execute function bullpen.tasks_coordination();

create or replace trigger tasks_coordination after update on public.tasks
  for each row when (old.assignee_actor_id is distinct from new.assignee_actor_id
                     or old.status is distinct from new.status
                     or old.reviewer_actor_id is distinct from new.reviewer_actor_id)
  execute function bullpen.tasks_coordination();

/** @mentions: the comment's mentions[] and every "@Display Name" in its body. */
create or replace function bullpen.comments_notify() returns trigger
language plpgsql
as $$
declare
  v_targets uuid[] := coalesce(new.mentions, '{}');
  v_where text;
  v_sensitive boolean := false;
  v_project uuid;
  v_task uuid;
  v_r uuid;
  v_author text := bullpen.coord_actor_name(new.tenant_id, new.author_actor_id);
begin
  if position('@' in new.body) > 0 then
    v_targets := v_targets || array(
      select a.id from public.actors a
       where a.tenant_id = new.tenant_id
         and new.body ~* ('(^|[^[:alnum:]_])@'
                          || regexp_replace(a.display_name, '([^[:alnum:][:space:]])', '\\\1', 'g')
                          || '($|[^[:alnum:]_])'));
  end if;
  if cardinality(v_targets) = 0 then
    return null;
  end if;
  if new.object_type = 'task' then
    select t.project_id, t.id, bullpen.coord_task_ref(t) into v_project, v_task, v_where
      from public.tasks t where t.tenant_id = new.tenant_id and t.id = new.object_id;
  elsif new.object_type = 'project' then
    select pr.id, pr.key into v_project, v_where from public.projects pr
     where pr.tenant_id = new.tenant_id and pr.id = new.object_id;
  elsif new.object_type = 'decision' then
    select d.project_id, format('decision "%s"', left(d.title, 80)) into v_project, v_where from public.decisions d
     where d.tenant_id = new.tenant_id and d.id = new.object_id;
  elsif new.object_type = 'note' then
    -- a sensitive note's mention names neither the note nor the comment: the recipient may read
    -- its inbox with a key that may not see it (supabase/migrations/0032_sensitivity.sql)
    select n.project_id, case when n.sensitivity = 'sensitive' then 'a sensitive note' else format('note "%s"', left(n.title, 80)) end,
           n.sensitivity = 'sensitive'
      into v_project, v_where, v_sensitive from public.knowledge_notes n
     where n.tenant_id = new.tenant_id and n.id = new.object_id;
  elsif new.object_type = 'handoff' then
    select h.related_project_id, h.related_task_id, format('%s "%s"', h.kind, left(h.title, 80)) into v_project, v_task, v_where
      from public.handoffs h where h.tenant_id = new.tenant_id and h.id = new.object_id;
  end if;
  for v_r in select distinct x from unnest(v_targets) x loop
    perform bullpen.notify(new.tenant_id, v_r, 'comment.mentioned',
      format('%s mentioned you on %s', v_author, coalesce(v_where, new.object_type)),
      case when v_sensitive then 'read the comment with a key that has the sensitive scope, or in the console' else left(new.body, 2000) end,
      v_project, v_task, null, new.id);
  end loop;
  return null;
end
$$;

create or replace trigger comments_notify after insert on public.comments
  for each row execute function bullpen.comments_notify();

-- ---------------------------------------------------------------------------------------------
-- The inbox
-- ---------------------------------------------------------------------------------------------

-- Notifications that mirror a handoff item of the inbox: the handoff itself is the item, and
-- acknowledging it reads them.
create or replace function bullpen.inbox_mirror_kinds() returns text[]
language sql immutable
as $$ select array['handoff.received', 'review.requested', 'handoff.responded'] $$;

create or replace function bullpen.notification_json(n public.notifications) returns jsonb
language plpgsql stable
as $$
#variable_conflict use_column
begin
  return (
    select jsonb_build_object('id', n.id, 'kind', n.kind, 'title', n.title, 'body', n.body,
        'actor_id', n.actor_id, 'actor', case when n.actor_id is not null then bullpen.coord_actor_name(n.tenant_id, n.actor_id) end,
        'project_id', n.project_id, 'task_id', n.task_id,
        'task_ref', (select pr.key || '-' || t.seq from public.tasks t
                       join public.projects pr on pr.tenant_id = t.tenant_id and pr.id = t.project_id
                      where t.tenant_id = n.tenant_id and t.id = n.task_id),
        'handoff_id', n.handoff_id, 'comment_id', n.comment_id, 'created_at', n.created_at, 'read_at', n.read_at)
  );
end
$$;

/**
 * What waits for an actor: {items (oldest first, up to p_limit, of p_kinds), total, counts}.
 * handoff: open handoffs addressed to it (or claimed by it and not yet answered);
 * response: answers to handoffs it sent; notification: its unread notifications (except the ones
 * a handoff item stands for). Acknowledged items never come back.
 */
create or replace function bullpen.inbox_collect(p_actor uuid, p_kinds text[], p_limit int) returns jsonb
language plpgsql stable
as $$
#variable_conflict use_column
declare
  -- read once: bullpen.tenant_id() written in a statement parses the claims again for every row
  v_tenant uuid := bullpen.tenant_id();
  v_h_ids uuid[];
  v_h_at timestamptz[];
  v_h_rank int[];
  v_r_ids uuid[];
  v_r_at timestamptz[];
  v_n_ids uuid[] := '{}';
  v_n_at timestamptz[] := '{}';
  v_h_count int;
  v_r_count int;
  v_n_count bigint;
  v_items jsonb;
begin
  -- One statement per item kind, each with a plan the session keeps: the single statement that
  -- joined the kinds, the page and the counts was planned on every call (its generic plan scanned
  -- every handoff and notification). An actor's open handoffs and unanswered responses are few,
  -- so those come whole (their count is the array's length); unread notifications can pile up, so
  -- they are counted on the partial index and only the first page's worth is read.
  select coalesce(array_agg(h.id order by h.created_at, h.id), '{}'),
         coalesce(array_agg(h.created_at order by h.created_at, h.id), '{}'),
         coalesce(array_agg(array_position(array['urgent', 'high', 'normal', 'low'], h.priority) order by h.created_at, h.id), '{}')
    into v_h_ids, v_h_at, v_h_rank
    from public.handoff_recipients r
    join public.handoffs h on h.tenant_id = r.tenant_id and h.id = r.handoff_id
   where r.tenant_id = v_tenant and r.actor_id = p_actor and not r.settled
     and (h.status = 'open' or (h.status = 'claimed' and h.claimed_by_actor_id = p_actor))
     and not exists (select 1 from public.handoff_acks k
                      where k.tenant_id = v_tenant and k.actor_id = p_actor and k.handoff_id = h.id and k.item = 'handoff');
  select coalesce(array_agg(h.id order by h.responded_at, h.id), '{}'),
         coalesce(array_agg(h.responded_at order by h.responded_at, h.id), '{}')
    into v_r_ids, v_r_at
    from public.handoffs h
   where h.tenant_id = v_tenant and h.from_actor_id = p_actor and h.responded_at is not null and not h.response_settled
     and h.responded_by_actor_id <> p_actor
     and (h.status = 'responded' or h.resolved_by_actor_id is distinct from p_actor)
     and not exists (select 1 from public.handoff_acks k
                      where k.tenant_id = v_tenant and k.actor_id = p_actor and k.handoff_id = h.id and k.item = 'response');
  v_h_count := cardinality(v_h_ids);
  v_r_count := cardinality(v_r_ids);
  select count(*) into v_n_count
    from public.notifications n
   where n.tenant_id = v_tenant and n.recipient_actor_id = p_actor and n.read_at is null
     and not (n.kind = any (bullpen.inbox_mirror_kinds()));
  if v_n_count > 0 and 'notification' = any (p_kinds) then
    select coalesce(array_agg(x.id order by x.created_at, x.id), '{}'),
           coalesce(array_agg(x.created_at order by x.created_at, x.id), '{}')
      into v_n_ids, v_n_at
      from (select n.id, n.created_at from public.notifications n
             where n.tenant_id = v_tenant and n.recipient_actor_id = p_actor and n.read_at is null
               and not (n.kind = any (bullpen.inbox_mirror_kinds()))
             order by n.created_at, n.id
             limit p_limit) x;
  end if;
  if not 'handoff' = any (p_kinds) then
    v_h_ids := '{}'; v_h_at := '{}'; v_h_rank := '{}';
  end if;
  if not 'response' = any (p_kinds) then
    v_r_ids := '{}'; v_r_at := '{}';
  end if;
  -- the page: the oldest p_limit of the kinds asked for, its JSON built by primary key
  select coalesce(jsonb_agg(case
      when pg.kind = 'notification' then jsonb_build_object('id', pg.id, 'kind', pg.kind, 'at', pg.at, 'summary', n.title,
        'notification', bullpen.notification_json(n))
      when pg.kind = 'response' then jsonb_build_object('id', pg.id, 'kind', pg.kind, 'at', pg.at,
        'summary', format('%s answered "%s": %s', bullpen.coord_actor_name(h.tenant_id, h.responded_by_actor_id), h.title,
                          coalesce(h.response ->> 'chosen_option', left(h.response ->> 'text', 120), 'see response')),
        'handoff', bullpen.handoff_json(h))
      else jsonb_build_object('id', pg.id, 'kind', pg.kind, 'at', pg.at,
        'summary', format('%s from %s: %s', h.kind, bullpen.coord_actor_name(h.tenant_id, h.from_actor_id), h.title),
        'handoff', bullpen.handoff_json(h))
    end order by pg.rank, pg.at, pg.id), '[]')
    into v_items
    -- by priority (a handoff's own: urgent 1 … low 4; answers and notifications rank as normal), then age
    from (select e.id, e.kind, e.at, e.rank from (
            select u.id, 'handoff'::text as kind, u.at, u.rank from unnest(v_h_ids, v_h_at, v_h_rank) as u(id, at, rank)
            union all
            select u.id, 'response'::text, u.at, 3 from unnest(v_r_ids, v_r_at) as u(id, at)
            union all
            select u.id, 'notification'::text, u.at, 3 from unnest(v_n_ids, v_n_at) as u(id, at)) e
          order by e.rank, e.at, e.id
          limit p_limit) pg
    left join public.handoffs h on pg.kind <> 'notification' and h.tenant_id = v_tenant and h.id = pg.id
    left join public.notifications n on pg.kind = 'notification' and n.tenant_id = v_tenant and n.id = pg.id;
  return jsonb_build_object(
    'items', v_items,
    'total', (case when 'handoff' = any (p_kinds) then v_h_count else 0 end)
           + (case when 'response' = any (p_kinds) then v_r_count else 0 end)
           + (case when 'notification' = any (p_kinds) then v_n_count else 0 end),
    'counts', jsonb_build_object('handoff', v_h_count, 'response', v_r_count, 'notification', v_n_count));
end
$$;

/**
 * Acknowledges one inbox item of the caller; returns how many items it newly acknowledged (0 for
 * a repeat). A notification is read; a handoff is acked as the item(s) it is for the caller.
 */
create or replace function bullpen.inbox_ack(p_actor uuid, p_id uuid, p_field text) returns int
language plpgsql
as $$
declare
  v_h public.handoffs;
  v_n int := 0;
  v_c int;
begin
  -- the caller's own notifications are the only ones it can see, here as in the API
  update public.notifications set read_at = now()
   where tenant_id = (select bullpen.tenant_id()) and id = p_id and recipient_actor_id = p_actor and read_at is null;
  get diagnostics v_c = row_count;
  if v_c > 0 or exists (select 1 from public.notifications
                         where tenant_id = (select bullpen.tenant_id()) and id = p_id and recipient_actor_id = p_actor) then
    return v_c;
  end if;
  select * into v_h from public.handoffs where tenant_id = (select bullpen.tenant_id()) and id = p_id;
  if v_h.id is null then
    perform bullpen.fail('NOT_FOUND', format('%s: no inbox item %s of yours', p_field, p_id),
      'ack the ids inbox returned to you');
  end if;
  if not bullpen.handoff_is_recipient(v_h, p_actor) and v_h.from_actor_id <> p_actor then
    perform bullpen.fail('FORBIDDEN',
      format('%s: handoff %s is not in your inbox: it is from %s to %s', p_field, p_id,
             bullpen.coord_actor_name(v_h.tenant_id, v_h.from_actor_id), bullpen.handoff_recipient_names(v_h)),
      'only its recipients and its sender have a handoff in their inbox');
  end if;
  if bullpen.handoff_is_recipient(v_h, p_actor) then
    insert into public.handoff_acks (tenant_id, actor_id, handoff_id, item)
    values (v_h.tenant_id, p_actor, v_h.id, 'handoff') on conflict do nothing;
    get diagnostics v_c = row_count;
    v_n := v_n + v_c;
    update public.notifications set read_at = now()
     where tenant_id = v_h.tenant_id and recipient_actor_id = p_actor and handoff_id = v_h.id and read_at is null
       and kind in ('handoff.received', 'review.requested');
  end if;
  if v_h.from_actor_id = p_actor and v_h.responded_at is not null then
    insert into public.handoff_acks (tenant_id, actor_id, handoff_id, item)
    values (v_h.tenant_id, p_actor, v_h.id, 'response') on conflict do nothing;
    get diagnostics v_c = row_count;
    v_n := v_n + v_c;
    if v_c > 0 then
      update public.handoffs set response_settled = true
       where tenant_id = v_h.tenant_id and id = v_h.id and not response_settled;
    end if;
    update public.notifications set read_at = now()
     where tenant_id = v_h.tenant_id and recipient_actor_id = p_actor and handoff_id = v_h.id and read_at is null
       and kind = 'handoff.responded';
  end if;
  return v_n;
end
$$;

-- ---------------------------------------------------------------------------------------------
-- RPCs
-- ---------------------------------------------------------------------------------------------

create or replace function public.handoff_create(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_me uuid := bullpen.require_actor();
  v_replay jsonb;
  v_to uuid[] := '{}';
  v_ref text;
  i int := 0;
  v_kind text := coalesce(p ->> 'kind', 'handoff');
  v_options text[] := bullpen.text_array(p -> 'options');
  v_free boolean := coalesce((p ->> 'allow_free_text')::boolean, true);
  v_task public.tasks;
  v_project public.projects;
  v_res jsonb;
  v_h public.handoffs;
begin
  v_replay := bullpen.idem_begin('handoff_create', p);
  if v_replay is not null then
    return v_replay;
  end if;
  for v_ref in select jsonb_array_elements_text(coalesce(p -> 'to_actor_ids', '[]')) loop
    v_to := v_to || bullpen.require_actor_in_tenant(
      bullpen.uuid_arg(jsonb_build_object(format('to_actor_ids[%s]', i), v_ref), format('to_actor_ids[%s]', i)),
      format('to_actor_ids[%s]', i));
    i := i + 1;
  end loop;
  -- routing (0022): to_capabilities adds every active agent (but the sender) that has all of them,
  -- fixed now; the response's "to" lists who they are
  if jsonb_array_length(coalesce(p -> 'to_capabilities', '[]')) > 0 then
    v_to := v_to || array(select a.id from public.actors a
                           where a.tenant_id = (select bullpen.tenant_id()) and a.kind = 'agent' and a.status = 'active' and a.id <> v_me
                             and a.capabilities @> bullpen.text_array(p -> 'to_capabilities')
                             and not (a.id = any (v_to))
                           order by a.id);
  end if;
  if cardinality(v_to) = 0 then
    perform bullpen.fail('VALIDATION_ERROR',
      case when p ? 'to_capabilities'
           then format('to_capabilities: no active agent but you has all of %s, and a handoff needs at least one recipient',
                       array_to_string(bullpen.text_array(p -> 'to_capabilities'), ', '))
           else 'to_actor_ids: name at least one recipient (or to_capabilities)' end,
      'find actors with actor_query (capability filters), or pass "me"',
      jsonb_build_object('fields', jsonb_build_array(case when p ? 'to_capabilities' then 'to_capabilities' else 'to_actor_ids' end)));
  end if;
  if p ->> 'related_task_id' is not null then
    v_task := bullpen.resolve_task(p ->> 'related_task_id', 'related_task_id');
  end if;
  if p ->> 'related_project_id' is not null then
    v_project := bullpen.resolve_project(p ->> 'related_project_id', 'related_project_id');
    if v_task.id is not null and v_task.project_id <> v_project.id then
      perform bullpen.fail('VALIDATION_ERROR', 'related_project_id: the related task belongs to another project',
        'give the task alone; its project is implied');
    end if;
  end if;
  if cardinality(v_options) = 0 then
    v_options := case v_kind when 'review' then array['approve', 'request_changes']
                             when 'approval' then array['approve', 'reject'] else '{}'::text[] end;
  end if;
  if (select count(distinct o) from unnest(v_options) o) <> cardinality(v_options) then
    perform bullpen.fail('VALIDATION_ERROR', 'options: each option must be listed once');
  end if;
  if not v_free and cardinality(v_options) = 0 then
    perform bullpen.fail('VALIDATION_ERROR', 'allow_free_text: a handoff without options must allow a free-text answer',
      'give options, or allow free text');
  end if;
  v_res := bullpen.handoff_open(bullpen.tenant_id(), v_me, v_kind, p ->> 'title', p ->> 'body', v_options, v_free,
    (p ->> 'due_at')::timestamptz, v_task.id, coalesce(v_project.id, v_task.project_id), v_to, p ->> 'fingerprint', false);
  select * into v_h from public.handoffs where tenant_id = (select bullpen.tenant_id()) and id = (v_res ->> 'handoff_id')::uuid;
  if not (v_res ->> 'deduped')::boolean and (p ? 'priority' or p ? 'tags' or p ? 'to_capabilities') then -- routing (0022)
    update public.handoffs set priority = coalesce(p ->> 'priority', 'normal'), tags = bullpen.text_array(p -> 'tags'),
           to_capabilities = bullpen.text_array(p -> 'to_capabilities')
     where tenant_id = v_h.tenant_id and id = v_h.id
    returning * into v_h;
  end if;
  return bullpen.idem_finish(p, jsonb_build_object('handoff', bullpen.handoff_json(v_h), 'handoff_id', v_h.id,
    'deduped', (v_res ->> 'deduped')::boolean));
end
$$;
alter function public.handoff_create(jsonb) owner to bullpen_writer;

-- The claim is a compare-and-swap on status = 'open': of racing recipients exactly one update
-- finds the row still open; the others re-read it and learn who holds it.
create or replace function public.handoff_claim(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_me uuid := bullpen.require_actor();
  v_replay jsonb;
  v_h public.handoffs;
  v_won public.handoffs;
begin
  v_replay := bullpen.idem_begin('handoff_claim', p);
  if v_replay is not null then
    return v_replay;
  end if;
  v_h := bullpen.resolve_handoff(p ->> 'handoff_id');
  if not bullpen.handoff_is_recipient(v_h, v_me) then
    perform bullpen.fail('FORBIDDEN',
      format('only a recipient claims a handoff: %s is addressed to %s', v_h.id, bullpen.handoff_recipient_names(v_h)),
      'inbox and handoff_query direction:"to_me" list the handoffs you may claim');
  end if;
  update public.handoffs set status = 'claimed', claimed_by_actor_id = v_me, claimed_at = now(), updated_at = now()
   where tenant_id = v_h.tenant_id and id = v_h.id and status = 'open'
  returning * into v_won;
  if v_won.id is null then
    select * into v_h from public.handoffs where tenant_id = v_h.tenant_id and id = v_h.id;
    if v_h.status = 'claimed' and v_h.claimed_by_actor_id = v_me then
      return bullpen.idem_finish(p, jsonb_build_object('handoff', bullpen.handoff_json(v_h), 'claimed', true, 'already_yours', true));
    elsif v_h.status = 'resolved' then
      perform bullpen.fail('INVALID_TRANSITION', format('handoff is resolved (%s); only an open handoff can be claimed', v_h.resolution),
        'nothing left to do on it', jsonb_build_object('status', v_h.status, 'resolution', v_h.resolution));
    elsif v_h.claimed_by_actor_id = v_me then
      perform bullpen.fail('INVALID_TRANSITION', 'you already answered this handoff',
        'its sender reads your answer; resolve it with handoff_resolve when done', jsonb_build_object('status', v_h.status));
    else
      perform bullpen.fail('CONFLICT',
        format('handoff already claimed by %s since %s', bullpen.coord_actor_name(v_h.tenant_id, v_h.claimed_by_actor_id),
               to_char(v_h.claimed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')),
        'another recipient is on it: take other work from your inbox',
        jsonb_build_object('status', v_h.status, 'claimed_by_actor_id', v_h.claimed_by_actor_id,
          'claimed_by', bullpen.coord_actor_name(v_h.tenant_id, v_h.claimed_by_actor_id), 'claimed_at', v_h.claimed_at));
    end if;
  end if;
  perform bullpen.log('handoff.claimed', 'handoff', v_won.id, v_won.related_project_id,
    format('%s claimed: %s', bullpen.coord_actor_name(v_won.tenant_id, v_me), v_won.title));
  return bullpen.idem_finish(p, jsonb_build_object('handoff', bullpen.handoff_json(v_won), 'claimed', true, 'already_yours', false));
end
$$;
alter function public.handoff_claim(jsonb) owner to bullpen_writer;

create or replace function public.handoff_respond(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_me uuid := bullpen.require_actor();
  v_replay jsonb;
  v_h public.handoffs;
  v_resp jsonb := p -> 'response';
  v_choice text;
  v_text text;
  v_task public.tasks;
  v_me_name text;
  v_moved boolean := false;
begin
  v_replay := bullpen.idem_begin('handoff_respond', p);
  if v_replay is not null then
    return v_replay;
  end if;
  v_h := bullpen.resolve_handoff(p ->> 'handoff_id', 'handoff_id', true);
  v_me_name := bullpen.coord_actor_name(v_h.tenant_id, v_me);
  if not bullpen.handoff_is_recipient(v_h, v_me) then
    perform bullpen.fail('FORBIDDEN',
      format('only a recipient answers a handoff: %s is addressed to %s', v_h.id, bullpen.handoff_recipient_names(v_h)),
      'its sender reads answers with handoff_query direction:"from_me"');
  end if;
  if v_h.status = 'resolved' then
    perform bullpen.fail('INVALID_TRANSITION', format('handoff is resolved (%s); it takes no more answers', v_h.resolution),
      'ask again with a new handoff_create', jsonb_build_object('status', v_h.status));
  elsif v_h.status = 'responded' then
    perform bullpen.fail('INVALID_TRANSITION',
      format('handoff was already answered by %s at %s', bullpen.coord_actor_name(v_h.tenant_id, v_h.responded_by_actor_id),
             to_char(v_h.responded_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')),
      'its sender reads the answer with handoff_query; a new question needs a new handoff',
      jsonb_build_object('status', v_h.status, 'responded_by_actor_id', v_h.responded_by_actor_id));
  elsif v_h.status = 'claimed' and v_h.claimed_by_actor_id <> v_me then
    perform bullpen.fail('CONFLICT',
      format('handoff is claimed by %s since %s; only they answer it', bullpen.coord_actor_name(v_h.tenant_id, v_h.claimed_by_actor_id),
             to_char(v_h.claimed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')),
      'another recipient is on it: take other work from your inbox',
      jsonb_build_object('status', v_h.status, 'claimed_by_actor_id', v_h.claimed_by_actor_id, 'claimed_at', v_h.claimed_at));
  end if;
  if v_resp is null or jsonb_typeof(v_resp) <> 'object' then
    perform bullpen.fail('VALIDATION_ERROR', 'response: an object like {"chosen_option": "…", "text": "…"} is required');
  end if;
  v_choice := v_resp ->> 'chosen_option';
  v_text := nullif(btrim(v_resp ->> 'text'), '');
  if v_choice is not null and cardinality(v_h.options) = 0 then
    perform bullpen.fail('VALIDATION_ERROR', 'response.chosen_option: this handoff offers no options; answer with response.text');
  end if;
  if v_choice is not null and not (v_choice = any (v_h.options)) then
    perform bullpen.fail('VALIDATION_ERROR',
      format('response.chosen_option: "%s" is not one of %s', v_choice, array_to_string(v_h.options, ', ')),
      'choose one of the handoff''s options', jsonb_build_object('options', to_jsonb(v_h.options)));
  end if;
  if v_text is not null and not v_h.allow_free_text then
    perform bullpen.fail('VALIDATION_ERROR',
      format('response.text: this handoff takes no free text; choose one of %s', array_to_string(v_h.options, ', ')),
      'answer with response.chosen_option alone', jsonb_build_object('options', to_jsonb(v_h.options)));
  end if;
  if v_choice is null and cardinality(v_h.options) > 0 and (not v_h.allow_free_text or v_h.kind in ('review', 'approval')) then
    perform bullpen.fail('VALIDATION_ERROR',
      format('response.chosen_option: required, one of %s', array_to_string(v_h.options, ', ')),
      'answer with response.chosen_option', jsonb_build_object('options', to_jsonb(v_h.options)));
  end if;
  if v_choice is null and v_text is null and (v_resp - 'chosen_option' - 'text') = '{}'::jsonb then
    perform bullpen.fail('VALIDATION_ERROR', 'response: empty; give response.text, response.chosen_option or a result_ref');
  end if;
  if v_h.kind = 'review' and v_choice = 'approve' and v_h.related_task_id is not null then
    select * into v_task from public.tasks where tenant_id = v_h.tenant_id and id = v_h.related_task_id;
    if v_me = any (bullpen.task_workers(v_task)) then
      perform bullpen.fail('FORBIDDEN',
        format('response.chosen_option: a review is someone else''s: you do the work on %s (assignee or claimer) and cannot approve its review',
               bullpen.coord_task_ref(v_task)),
        'leave the review to another actor; the task''s reviewer is set with task_update patch.reviewer_actor_id',
        jsonb_build_object('task_id', v_task.id, 'rule', 'reviewer_not_worker'));
    end if;
    v_task := null;
  end if;
  if v_h.kind = 'review' and v_choice = 'request_changes' and v_text is null then
    perform bullpen.fail('VALIDATION_ERROR', 'response.text: say what to change; it becomes a comment on the task');
  end if;
  update public.handoffs
     set status = 'responded', response = v_resp, responded_by_actor_id = v_me, responded_at = now(),
         claimed_by_actor_id = coalesce(claimed_by_actor_id, v_me), claimed_at = coalesce(claimed_at, now()), updated_at = now()
   where tenant_id = v_h.tenant_id and id = v_h.id
  returning * into v_h;
  -- the answer's words join the handoff's thread as comment_add would write them (mentions,
  -- comment.added, the live thread); written aside, before the call's own row
  if v_text is not null then
    perform bullpen.comment_write(bullpen.comment_target('handoff', v_h.id::text), left(v_text, 20000), null, '{}', true);
  end if;
  perform bullpen.log('handoff.responded', 'handoff', v_h.id, v_h.related_project_id,
    format('%s answered "%s": %s', v_me_name, v_h.title, coalesce(v_choice, left(v_text, 140), 'see response')),
    jsonb_build_object('chosen_option', v_choice));
  perform bullpen.notify(v_h.tenant_id, v_h.from_actor_id, 'handoff.responded',
    format('%s answered "%s": %s', v_me_name, v_h.title, coalesce(v_choice, left(v_text, 140), 'see response')),
    coalesce(v_text, ''), v_h.related_project_id, v_h.related_task_id, v_h.id);
  if v_h.from_actor_id = v_me then
    -- answering one's own handoff: the sender's inbox (this actor's) still learns of it
    perform bullpen.inbox_touch(v_h.tenant_id, v_me, 'handoff.responded');
  end if;
  -- A review answers for its task: request_changes hands the task back to its assignee with the
  -- reviewer's text as a comment; either answer tells the assignee (the sender already knows).
  if v_h.kind = 'review' and v_h.related_task_id is not null then
    select * into v_task from public.tasks where tenant_id = v_h.tenant_id and id = v_h.related_task_id for update;
    if v_choice = 'request_changes' then
      perform bullpen.comment_write(bullpen.comment_target('task', v_task.id::text),
        left(format('Changes requested: %s', v_text), 20000), null, '{}', true);
      if v_task.status = 'in_review' then
        -- in_review → in_progress is two legal moves of the state machine
        update public.tasks set status = 'todo' where tenant_id = v_task.tenant_id and id = v_task.id;
        update public.tasks set status = 'in_progress' where tenant_id = v_task.tenant_id and id = v_task.id
        returning * into v_task;
        v_moved := true;
        perform bullpen.log_aside(v_task.tenant_id, 'task.status_changed', 'task', v_task.id, v_task.project_id,
          'in_review → in_progress (changes requested)',
          jsonb_build_object('from', 'in_review', 'to', 'in_progress', 'reason', 'changes_requested', 'handoff_id', v_h.id));
      end if;
    end if;
    if v_task.assignee_actor_id is distinct from v_h.from_actor_id and v_choice in ('approve', 'request_changes') then
      perform bullpen.notify(v_task.tenant_id, v_task.assignee_actor_id,
        case v_choice when 'approve' then 'review.approved' else 'review.changes_requested' end,
        case v_choice when 'approve' then format('%s approved %s: %s', v_me_name, bullpen.coord_task_ref(v_task), v_task.title)
             else format('%s requested changes on %s: %s', v_me_name, bullpen.coord_task_ref(v_task), v_task.title) end,
        coalesce(v_text, ''), v_task.project_id, v_task.id, v_h.id);
    end if;
  end if;
  return bullpen.idem_finish(p, jsonb_build_object('handoff', bullpen.handoff_json(v_h))
    || case when v_task.id is not null
         then jsonb_build_object('task', bullpen.task_json(v_task), 'task_moved', v_moved) else '{}'::jsonb end);
end
$$;
alter function public.handoff_respond(jsonb) owner to bullpen_writer;

create or replace function public.handoff_resolve(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_me uuid := bullpen.require_actor();
  v_replay jsonb;
  v_h public.handoffs;
  v_resolution text := coalesce(p ->> 'resolution', 'processed');
begin
  v_replay := bullpen.idem_begin('handoff_resolve', p);
  if v_replay is not null then
    return v_replay;
  end if;
  v_h := bullpen.resolve_handoff(p ->> 'handoff_id', 'handoff_id', true);
  if v_h.from_actor_id <> v_me and v_h.claimed_by_actor_id is distinct from v_me then
    perform bullpen.fail('FORBIDDEN',
      format('only the sender (%s) or the recipient who claimed it (%s) resolves handoff %s',
             bullpen.coord_actor_name(v_h.tenant_id, v_h.from_actor_id),
             case when v_h.claimed_by_actor_id is null then 'nobody yet'
                  else bullpen.coord_actor_name(v_h.tenant_id, v_h.claimed_by_actor_id) end, v_h.id),
      case when bullpen.handoff_is_recipient(v_h, v_me) and v_h.status = 'open'
           then 'claim it first with handoff_claim' else 'ask its sender to resolve it' end);
  end if;
  if v_h.status = 'resolved' then
    perform bullpen.fail('INVALID_TRANSITION',
      format('handoff was already resolved (%s) by %s', v_h.resolution, bullpen.coord_actor_name(v_h.tenant_id, v_h.resolved_by_actor_id)),
      'nothing left to do on it', jsonb_build_object('status', v_h.status, 'resolution', v_h.resolution));
  end if;
  update public.handoffs
     set status = 'resolved', resolution = v_resolution, resolution_note = p ->> 'note',
         resolved_by_actor_id = v_me, resolved_at = now(), updated_at = now()
   where tenant_id = v_h.tenant_id and id = v_h.id
  returning * into v_h;
  perform bullpen.log('handoff.resolved', 'handoff', v_h.id, v_h.related_project_id,
    format('%s: %s%s', v_resolution, v_h.title, coalesce(' — ' || (p ->> 'note'), '')),
    jsonb_build_object('resolution', v_resolution));
  return bullpen.idem_finish(p, jsonb_build_object('handoff', bullpen.handoff_json(v_h)));
end
$$;
alter function public.handoff_resolve(jsonb) owner to bullpen_writer;

-- Newest first, keyset-paginated by (created_at, id); the cursor is that pair as JSON, base64.
create or replace function public.handoff_query(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_me uuid := bullpen.require_actor();
  v_dir text := coalesce(p ->> 'direction', 'any');
  v_limit int := greatest(1, least(coalesce((p ->> 'limit')::int, 50), 200));
  v_cursor jsonb := bullpen.cursor_json(p, array['timestamptz', 'uuid']);
  v_status text[] := nullif(bullpen.text_array(p -> 'status'), '{}');
  v_types text[] := nullif(bullpen.text_array(p -> 'type'), '{}');
  v_task uuid;
  v_project uuid;
  v_rows jsonb;
  v_n int;
begin
  if p ->> 'related_task_id' is not null then
    v_task := (bullpen.resolve_task(p ->> 'related_task_id', 'related_task_id')).id;
  end if;
  if p ->> 'related_project_id' is not null then
    v_project := (bullpen.resolve_project(p ->> 'related_project_id', 'related_project_id')).id;
  end if;
  select coalesce(jsonb_agg(bullpen.handoff_json(x) order by x.created_at desc, x.id desc), '[]'), count(*)
    into v_rows, v_n
    from (
      select h.* from public.handoffs h
       where h.tenant_id = (select bullpen.tenant_id())
         and (v_dir = 'any'
              or (v_dir = 'from_me' and h.from_actor_id = v_me)
              or (v_dir = 'to_me' and exists (select 1 from public.handoff_recipients r
                                                where r.tenant_id = h.tenant_id and r.handoff_id = h.id and r.actor_id = v_me)))
         and (v_status is null or h.status = any (v_status))
         and (v_types is null or h.kind = any (v_types))
         and (p -> 'priority' is null or h.priority = any (bullpen.text_array(p -> 'priority')))
         and (p -> 'tags' is null or h.tags @> bullpen.text_array(p -> 'tags'))
         and (v_task is null or h.related_task_id = v_task)
         and (v_project is null or h.related_project_id = v_project)
         and (v_cursor is null or (h.created_at, h.id) < ((v_cursor ->> 0)::timestamptz, (v_cursor ->> 1)::uuid))
       order by h.created_at desc, h.id desc
       limit v_limit + 1
    ) x;
  if v_n > v_limit then
    v_rows := v_rows - v_limit;
    return jsonb_build_object('handoffs', v_rows, 'next_cursor',
      encode(convert_to(jsonb_build_array(v_rows -> (v_limit - 1) -> 'created_at', v_rows -> (v_limit - 1) -> 'id')::text, 'utf8'), 'base64'));
  end if;
  return jsonb_build_object('handoffs', v_rows, 'next_cursor', null);
end
$$;
alter function public.handoff_query(jsonb) owner to bullpen_writer;

create or replace function public.inbox(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_me uuid := bullpen.require_actor();
  v_replay jsonb;
  v_kinds text[] := coalesce(nullif(bullpen.text_array(p -> 'kinds'), '{}'), array['handoff', 'response', 'notification']);
  v_limit int := greatest(1, least(coalesce((p ->> 'limit')::int, 50), 200));
  v_acked int := 0;
  v_ids jsonb := '[]';
  v_id text;
  v_uuid uuid;
  i int := 0;
  v_out jsonb;
begin
  v_replay := bullpen.idem_begin('inbox', p);
  if v_replay is not null then
    return v_replay;
  end if;
  for v_id in select jsonb_array_elements_text(coalesce(p -> 'ack', '[]')) loop
    v_uuid := bullpen.uuid_arg(jsonb_build_object(format('ack[%s]', i), v_id), format('ack[%s]', i));
    v_acked := v_acked + bullpen.inbox_ack(v_me, v_uuid, format('ack[%s]', i));
    v_ids := v_ids || to_jsonb(v_uuid);
    i := i + 1;
  end loop;
  if v_acked > 0 then
    perform bullpen.log('inbox.acked', 'inbox', v_me, null, format('%s item%s acknowledged', v_acked, case when v_acked = 1 then '' else 's' end),
      jsonb_build_object('ids', v_ids));
  end if;
  v_out := bullpen.inbox_collect(v_me, v_kinds, v_limit);
  return bullpen.idem_finish(p, v_out || jsonb_build_object('acked', v_acked,
    'hint', case when jsonb_array_length(v_out -> 'items') = 0
                 then 'nothing waiting; pass wait_seconds (up to 60) to hold until something arrives'
                 else 'act on each item, then pass its id in ack on your next inbox call: unacked items come back' end));
end
$$;
alter function public.inbox(jsonb) owner to bullpen_writer;

create or replace function public.notification_query(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_me uuid := bullpen.require_actor();
  v_limit int := greatest(1, least(coalesce((p ->> 'limit')::int, 50), 200));
  v_cursor jsonb := bullpen.cursor_json(p, array['timestamptz', 'uuid']);
  v_unread boolean := coalesce((p ->> 'unread_only')::boolean, false);
  v_rows jsonb;
  v_n int;
  v_last jsonb;
begin
  select coalesce(jsonb_agg(bullpen.notification_json(x) order by x.created_at desc, x.id desc), '[]'), count(*)
    into v_rows, v_n
    from (
      select n.* from public.notifications n
       where n.tenant_id = (select bullpen.tenant_id()) and n.recipient_actor_id = v_me
         and (not v_unread or n.read_at is null)
         and (v_cursor is null or (n.created_at, n.id) < ((v_cursor ->> 0)::timestamptz, (v_cursor ->> 1)::uuid))
       order by n.created_at desc, n.id desc
       limit v_limit + 1
    ) x;
  if v_n > v_limit then
    v_rows := v_rows - v_limit;
    v_last := v_rows -> (v_limit - 1);
  end if;
  return jsonb_build_object('notifications', v_rows,
    'unread_count', (select count(*) from public.notifications n
                      where n.tenant_id = (select bullpen.tenant_id()) and n.recipient_actor_id = v_me and n.read_at is null),
    'next_cursor', case when v_last is not null
      then encode(convert_to(jsonb_build_array(v_last -> 'created_at', v_last -> 'id')::text, 'utf8'), 'base64') end);
end
$$;
alter function public.notification_query(jsonb) owner to bullpen_writer;

create or replace function public.notification_mark_read(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_me uuid := bullpen.require_actor();
  v_replay jsonb;
  v_id text;
  v_uuid uuid;
  v_ids uuid[] := '{}';
  i int := 0;
  v_marked int := 0;
begin
  v_replay := bullpen.idem_begin('notification_mark_read', p);
  if v_replay is not null then
    return v_replay;
  end if;
  if coalesce((p ->> 'all')::boolean, false) then
    update public.notifications set read_at = now()
     where tenant_id = (select bullpen.tenant_id()) and recipient_actor_id = v_me and read_at is null;
    get diagnostics v_marked = row_count;
  else
    for v_id in select jsonb_array_elements_text(coalesce(p -> 'ids', '[]')) loop
      v_uuid := bullpen.uuid_arg(jsonb_build_object(format('ids[%s]', i), v_id), format('ids[%s]', i));
      -- RLS shows the caller its own notifications only: another actor's id reads as missing
      if not exists (select 1 from public.notifications
                      where tenant_id = (select bullpen.tenant_id()) and id = v_uuid and recipient_actor_id = v_me) then
        perform bullpen.fail('NOT_FOUND', format('ids[%s]: no notification %s of yours', i, v_id),
          'list yours with notification_query');
      end if;
      v_ids := v_ids || v_uuid;
      i := i + 1;
    end loop;
    if cardinality(v_ids) = 0 then
      perform bullpen.fail('VALIDATION_ERROR', 'ids: name at least one notification, or pass all: true');
    end if;
    update public.notifications set read_at = now()
     where tenant_id = (select bullpen.tenant_id()) and recipient_actor_id = v_me and id = any (v_ids) and read_at is null;
    get diagnostics v_marked = row_count;
  end if;
  if v_marked > 0 then
    perform bullpen.log('notification.read', 'inbox', v_me, null,
      format('%s notification%s read', v_marked, case when v_marked = 1 then '' else 's' end));
  end if;
  return bullpen.idem_finish(p, jsonb_build_object('marked', v_marked,
    'unread_count', (select count(*) from public.notifications n
                      where n.tenant_id = (select bullpen.tenant_id()) and n.recipient_actor_id = v_me and n.read_at is null)));
end
$$;
alter function public.notification_mark_read(jsonb) owner to bullpen_writer;

-- ---------------------------------------------------------------------------------------------
-- Room hooks (called by the tasks room's RPCs in 0003_tasks.sql)
-- ---------------------------------------------------------------------------------------------

/** task_get: the open handoffs about the task and its review state. */
create or replace function bullpen.task_related_coordination(t public.tasks) returns jsonb
language plpgsql stable
as $$
#variable_conflict use_column
begin
  return (
    select jsonb_build_object(
        'handoffs', coalesce((select jsonb_agg(bullpen.handoff_json(h) order by h.created_at desc, h.id desc)
                                from public.handoffs h
                               where h.tenant_id = t.tenant_id and h.related_task_id = t.id and h.status <> 'resolved'), '[]'),
        'review', bullpen.review_state(t))
  );
end
$$;

/** project_brief: the open handoffs about the project (and its tasks), newest first. */
create or replace function bullpen.brief_coordination(pr public.projects, p jsonb) returns jsonb
language plpgsql stable
as $$
#variable_conflict use_column
begin
  return (
    select jsonb_build_object(
        'open_handoffs', coalesce((select jsonb_agg(bullpen.handoff_json(x) order by x.created_at desc, x.id desc) from (
            select h.* from public.handoffs h
             where h.tenant_id = pr.tenant_id and h.related_project_id = pr.id and h.status <> 'resolved'
             order by h.created_at desc, h.id desc limit 10) x), '[]'))
  );
end
$$;

/**
 * whoami's inbox: the top items, the count of everything waiting, counts by kind, and next: the
 * handoff to claim (or to answer) when one waits for this actor.
 */
create or replace function bullpen.whoami_inbox(p_actor_id uuid) returns jsonb
language plpgsql stable
as $$
declare
  v jsonb := bullpen.inbox_collect(p_actor_id, array['handoff', 'response', 'notification'], 5);
  -- a variable, not bullpen.tenant_id() in the statement: the call in the filter made the plan
  -- cache price the generic plan above a custom one, so this lookup was planned on every call
  v_tenant uuid := bullpen.tenant_id();
  v_h public.handoffs;
  v_next jsonb;
begin
  select h.* into v_h
    from public.handoff_recipients r
    join public.handoffs h on h.tenant_id = r.tenant_id and h.id = r.handoff_id
   where r.tenant_id = v_tenant and r.actor_id = p_actor_id and not r.settled
     and (h.status = 'open' or (h.status = 'claimed' and h.claimed_by_actor_id = p_actor_id))
   order by (h.status = 'claimed') desc, h.due_at nulls last, h.created_at, h.id
   limit 1;
  if v_h.id is not null and v_h.status = 'claimed' then
    v_next := jsonb_build_object('tool', 'handoff_respond',
      'arguments', jsonb_build_object('handoff_id', v_h.id, 'response',
        case when cardinality(v_h.options) > 0 then jsonb_build_object('chosen_option', v_h.options[1])
             else jsonb_build_object('text', '…') end),
      'why', format('you claimed %s "%s" from %s; answer it', v_h.kind, v_h.title, bullpen.coord_actor_name(v_h.tenant_id, v_h.from_actor_id)));
  elsif v_h.id is not null then
    v_next := jsonb_build_object('tool', 'handoff_claim', 'arguments', jsonb_build_object('handoff_id', v_h.id),
      'why', format('%s from %s waits for you: "%s"; claim it, answer with handoff_respond, then ack it in inbox',
                    v_h.kind, bullpen.coord_actor_name(v_h.tenant_id, v_h.from_actor_id), v_h.title));
  elsif (v -> 'counts' ->> 'response')::int > 0 then
    v_next := jsonb_build_object('tool', 'inbox', 'arguments', jsonb_build_object('kinds', jsonb_build_array('response')),
      'why', 'answers to handoffs you sent are waiting; read them, act, then ack them');
  end if;
  return jsonb_build_object('inbox', v -> 'items', 'inbox_count', (v ->> 'total')::int, 'inbox_counts', v -> 'counts',
    'next', v_next);
end
$$;

-- ---------------------------------------------------------------------------------------------
-- Execute rights, one function at a time: the API roles call RPCs, never helpers.
-- ---------------------------------------------------------------------------------------------

revoke all on function bullpen.handoff_actor(uuid, uuid) from public, anon, authenticated;
grant execute on function bullpen.handoff_actor(uuid, uuid) to bullpen_writer, service_role;
revoke all on function bullpen.coord_actor_name(uuid, uuid) from public, anon, authenticated;
grant execute on function bullpen.coord_actor_name(uuid, uuid) to bullpen_writer, service_role;
revoke all on function bullpen.coord_task_ref(public.tasks) from public, anon, authenticated;
grant execute on function bullpen.coord_task_ref(public.tasks) to bullpen_writer, service_role;
revoke all on function bullpen.log_aside(uuid, text, text, uuid, uuid, text, jsonb) from public, anon, authenticated;
grant execute on function bullpen.log_aside(uuid, text, text, uuid, uuid, text, jsonb) to bullpen_writer, service_role;
revoke all on function bullpen.inbox_touch(uuid, uuid, text) from public, anon, authenticated;
grant execute on function bullpen.inbox_touch(uuid, uuid, text) to bullpen_writer, service_role;
revoke all on function bullpen.notify(uuid, uuid, text, text, text, uuid, uuid, uuid, uuid) from public, anon, authenticated;
grant execute on function bullpen.notify(uuid, uuid, text, text, text, uuid, uuid, uuid, uuid) to bullpen_writer, service_role;
revoke all on function bullpen.handoffs_settle() from public, anon, authenticated;
grant execute on function bullpen.handoffs_settle() to bullpen_writer, service_role;
revoke all on function bullpen.handoff_json(public.handoffs) from public, anon, authenticated;
grant execute on function bullpen.handoff_json(public.handoffs) to bullpen_writer, service_role;
revoke all on function bullpen.resolve_handoff(text, text, boolean) from public, anon, authenticated;
grant execute on function bullpen.resolve_handoff(text, text, boolean) to bullpen_writer, service_role;
revoke all on function bullpen.handoff_is_recipient(public.handoffs, uuid) from public, anon, authenticated;
grant execute on function bullpen.handoff_is_recipient(public.handoffs, uuid) to bullpen_writer, service_role;
revoke all on function bullpen.handoff_recipient_names(public.handoffs) from public, anon, authenticated;
grant execute on function bullpen.handoff_recipient_names(public.handoffs) to bullpen_writer, service_role;
revoke all on function bullpen.handoff_open(uuid, uuid, text, text, text, text[], boolean, timestamptz, uuid, uuid, uuid[], text, boolean) from public, anon, authenticated;
grant execute on function bullpen.handoff_open(uuid, uuid, text, text, text, text[], boolean, timestamptz, uuid, uuid, uuid[], text, boolean) to bullpen_writer, service_role;
revoke all on function bullpen.handoff_close_side(public.handoffs, text, text) from public, anon, authenticated;
grant execute on function bullpen.handoff_close_side(public.handoffs, text, text) to bullpen_writer, service_role;
revoke all on function bullpen.review_fingerprint(uuid, uuid) from public, anon, authenticated;
grant execute on function bullpen.review_fingerprint(uuid, uuid) to bullpen_writer, service_role;
revoke all on function bullpen.review_live(uuid, uuid, uuid) from public, anon, authenticated;
grant execute on function bullpen.review_live(uuid, uuid, uuid) to bullpen_writer, service_role;
revoke all on function bullpen.review_latest(public.tasks) from public, anon, authenticated;
grant execute on function bullpen.review_latest(public.tasks) to bullpen_writer, service_role;
revoke all on function bullpen.review_state(public.tasks) from public, anon, authenticated;
grant execute on function bullpen.review_state(public.tasks) to bullpen_writer, service_role;
revoke all on function bullpen.task_claimers(public.tasks) from public, anon, authenticated;
grant execute on function bullpen.task_claimers(public.tasks) to bullpen_writer, service_role;
revoke all on function bullpen.task_workers(public.tasks) from public, anon, authenticated;
grant execute on function bullpen.task_workers(public.tasks) to bullpen_writer, service_role;
revoke all on function bullpen.review_guard(public.tasks, uuid, uuid, text) from public, anon, authenticated;
grant execute on function bullpen.review_guard(public.tasks, uuid, uuid, text) to bullpen_writer, service_role;
revoke all on function bullpen.done_gate_review(public.tasks) from public, anon, authenticated;
grant execute on function bullpen.done_gate_review(public.tasks) to bullpen_writer, service_role;
revoke all on function bullpen.review_sync(public.tasks, public.tasks) from public, anon, authenticated;
grant execute on function bullpen.review_sync(public.tasks, public.tasks) to bullpen_writer, service_role;
revoke all on function bullpen.wake_dependents(public.tasks) from public, anon, authenticated;
grant execute on function bullpen.wake_dependents(public.tasks) to bullpen_writer, service_role;
revoke all on function bullpen.notify_assigned(public.tasks) from public, anon, authenticated;
grant execute on function bullpen.notify_assigned(public.tasks) to bullpen_writer, service_role;
revoke all on function bullpen.tasks_coordination() from public, anon, authenticated;
grant execute on function bullpen.tasks_coordination() to bullpen_writer, service_role;
revoke all on function bullpen.comments_notify() from public, anon, authenticated;
grant execute on function bullpen.comments_notify() to bullpen_writer, service_role;
revoke all on function bullpen.inbox_mirror_kinds() from public, anon, authenticated;
grant execute on function bullpen.inbox_mirror_kinds() to bullpen_writer, service_role;
revoke all on function bullpen.notification_json(public.notifications) from public, anon, authenticated;
grant execute on function bullpen.notification_json(public.notifications) to bullpen_writer, service_role;
revoke all on function bullpen.inbox_collect(uuid, text[], int) from public, anon, authenticated;
grant execute on function bullpen.inbox_collect(uuid, text[], int) to bullpen_writer, service_role;
revoke all on function bullpen.inbox_ack(uuid, uuid, text) from public, anon, authenticated;
grant execute on function bullpen.inbox_ack(uuid, uuid, text) to bullpen_writer, service_role;
revoke all on function public.handoff_create(jsonb) from public, anon;
grant execute on function public.handoff_create(jsonb) to authenticated, service_role;
revoke all on function public.handoff_claim(jsonb) from public, anon;
grant execute on function public.handoff_claim(jsonb) to authenticated, service_role;
revoke all on function public.handoff_respond(jsonb) from public, anon;
grant execute on function public.handoff_respond(jsonb) to authenticated, service_role;
revoke all on function public.handoff_resolve(jsonb) from public, anon;
grant execute on function public.handoff_resolve(jsonb) to authenticated, service_role;
revoke all on function public.handoff_query(jsonb) from public, anon;
grant execute on function public.handoff_query(jsonb) to authenticated, service_role;
revoke all on function public.inbox(jsonb) from public, anon;
grant execute on function public.inbox(jsonb) to authenticated, service_role;
revoke all on function public.notification_query(jsonb) from public, anon;
grant execute on function public.notification_query(jsonb) to authenticated, service_role;
revoke all on function public.notification_mark_read(jsonb) from public, anon;
grant execute on function public.notification_mark_read(jsonb) to authenticated, service_role;

-- Execute rights of the room hooks this file owns (called from the tasks room's RPCs).
revoke all on function bullpen.task_related_coordination(public.tasks) from public, anon, authenticated;
grant execute on function bullpen.task_related_coordination(public.tasks) to bullpen_writer, service_role;
revoke all on function bullpen.brief_coordination(public.projects, jsonb) from public, anon, authenticated;
grant execute on function bullpen.brief_coordination(public.projects, jsonb) to bullpen_writer, service_role;
revoke all on function bullpen.whoami_inbox(uuid) from public, anon, authenticated;
grant execute on function bullpen.whoami_inbox(uuid) to bullpen_writer, service_role;
