-- Inbox reads bounded by what is waiting, not by an actor's history. The open-handoffs read
-- walked every handoff an actor had ever received (handoff_recipients held no state, so the
-- status test ran on the joined handoff), and the answers-to-mine read walked every answered
-- handoff the actor had ever sent, acknowledged or not. Both grew with history: whoami and inbox
-- of a long-lived agent slowed with every handoff it had handled.
--
-- Two flags, each set once and never cleared (a handoff's status only moves forward, and an ack is
-- never taken back), kept by the handoffs_settle trigger and by the ack:
--   handoff_recipients.settled  the handoff can no longer wait for this recipient: it was answered,
--                               resolved, or claimed by another recipient;
--   handoffs.response_settled   the answer can no longer wait for the sender: the sender
--                               acknowledged it, resolved the handoff, or answered it themselves.
-- The reads keep their full conditions, so a flag left false (rows an import or an older server
-- wrote) only costs a row more to look at, never a wrong inbox.

alter table public.handoff_recipients add column settled boolean not null default false;
alter table public.handoffs add column response_settled boolean not null default false;

update public.handoff_recipients r set settled = true
  from public.handoffs h
 where h.tenant_id = r.tenant_id and h.id = r.handoff_id
   and (h.status in ('responded', 'resolved') or (h.status = 'claimed' and h.claimed_by_actor_id <> r.actor_id));

update public.handoffs h set response_settled = true
 where h.responded_at is not null
   and (h.responded_by_actor_id = h.from_actor_id
        or (h.status = 'resolved' and h.resolved_by_actor_id = h.from_actor_id)
        or exists (select 1 from public.handoff_acks k
                    where k.tenant_id = h.tenant_id and k.actor_id = h.from_actor_id and k.handoff_id = h.id
                      and k.item = 'response'));

create index handoff_recipients_waiting_idx on public.handoff_recipients (tenant_id, actor_id, handoff_id) where not settled;
create index handoffs_unseen_answers_idx on public.handoffs (tenant_id, from_actor_id, responded_at)
  where responded_at is not null and not response_settled;
drop index public.handoffs_answered_idx;

-- The unread count and first page of notifications the inbox lists. The inbox leaves out the
-- notifications a handoff item stands for (bullpen.inbox_mirror_kinds()), and those stay unread
-- when the handoff is answered without an ack, so notifications_unread_idx grew with every handoff
-- an actor had handled, and at about half the table the planner read it all (a seq scan of 6,000
-- rows per whoami for an agent that had answered 1,500 handoffs). This index holds only what the
-- inbox lists. Its kinds are bullpen.inbox_mirror_kinds() written out (an index predicate must not
-- depend on a function a definitions file can change); tests/db/inbox-bounded.test.ts holds the two
-- to the same list.
create index notifications_unread_listed_idx on public.notifications (tenant_id, recipient_actor_id, created_at)
  where read_at is null and not (kind = any (array['handoff.received', 'review.requested', 'handoff.responded']));

grant update (settled) on public.handoff_recipients to bullpen_writer;

comment on column public.handoff_recipients.settled is 'The handoff can no longer wait for this recipient (answered, resolved, or claimed by another).';
comment on column public.handoffs.response_settled is 'The answer can no longer wait for the sender (acknowledged, resolved by the sender, or self-answered).';
