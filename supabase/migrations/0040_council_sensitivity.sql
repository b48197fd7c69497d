-- A council asked with a sensitive note in its context is itself sensitive: its frozen context holds
-- the note's text, its context_refs name the note, and the models' answers are drawn from it. Only
-- callers whose claims say `sensitive` (a key with the sensitive scope, a person's console session)
-- see such a council, through council_get, council_query and every other read, by the same kind of
-- restrictive policy as notes (0032) and source documents (0035). council_ask sets the column; the
-- activity lines about a sensitive council name neither its question nor its context.

alter table public.councils
  add column sensitivity text not null default 'normal' check (sensitivity in ('normal', 'sensitive'));

comment on column public.councils.sensitivity is 'sensitive when a sensitive note was part of the context: only callers with the sensitive claim see the council';

create policy councils_sensitivity on public.councils as restrictive for all
  to authenticated, bullpen_writer
  using (sensitivity = 'normal' or (select bullpen.can_see_sensitive()))
  with check (sensitivity = 'normal' or (select bullpen.can_see_sensitive()));
