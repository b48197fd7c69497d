'use client';

import Link from 'next/link';
import { useRouter, useSearchParams } from 'next/navigation';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { useActors, useProjects } from '@/lib/console/client/hooks';
import { useDecisions } from '@/lib/console/client/memory';
import { writeTool } from '@/lib/console/client/mutations';
import { useToast } from '@/lib/console/client/toast';
import { useNow } from '@/lib/console/client/use-now';

import type { DecisionHit } from '@/lib/console/types';
import { ObjectThread } from './comment-thread';
import { RelatedPanel } from './graph/related-panel';
import { ActorAvatar } from './actor-avatar';
import { useMe } from './console-providers';
import { Field, FormActions, ModalForm, ProjectOptions, SelectField, fieldCls, fieldLabelCls, filterSelectCls, useSubmitting } from './form-parts';
import { AddButton, EmptyState, ExampleCall, SearchField } from './page-parts';
import { SkeletonRows } from './skeleton';
import { TimeAgo } from './time-ago';

const STATUS_TONE: Record<DecisionHit['status'], string> = {
  proposed: 'bg-amber-50 text-amber-700 ring-amber-200',
  accepted: 'bg-emerald-50 text-emerald-700 ring-emerald-200',
  rejected: 'bg-rose-50 text-rose-700 ring-rose-200',
  superseded: 'bg-zinc-100 text-zinc-500 ring-zinc-200',
  deprecated: 'bg-zinc-100 text-zinc-600 ring-zinc-300',
};

export function DecisionStatus({ status }: { status: DecisionHit['status'] }) {
  return <span data-testid="decision-status" className={`rounded-full px-2 py-0.5 text-[11px] font-medium ring-1 ${STATUS_TONE[status]}`}>{status}</span>;
}

const field = fieldCls;

/** One option line: "label: summary | + pro; + pro | - con". Kept simple for a form. */
type OptionDraft = { label: string; summary: string; pros: string; cons: string };
const emptyOption = (): OptionDraft => ({ label: '', summary: '', pros: '', cons: '' });
const lines = (s: string) => s.split('\n').map((x) => x.trim()).filter(Boolean);

/** Log a decision (or supersede one): title, choice, context, rationale, consequences, options. */
export function DecisionDialog({ supersedes, onClose }: { supersedes: DecisionHit | null; onClose: () => void }) {
  const toast = useToast();
  const projects = useProjects();
  const [title, setTitle] = useState(supersedes?.title ?? '');
  const [choice, setChoice] = useState('');
  const [context, setContext] = useState(supersedes ? `Replaces "${supersedes.title}" (${supersedes.choice}).` : '');
  const [rationale, setRationale] = useState('');
  const [consequences, setConsequences] = useState('');
  const [project, setProject] = useState(supersedes?.project_id ?? '');
  const [status, setStatus] = useState<'accepted' | 'proposed'>('accepted');
  const [options, setOptions] = useState<OptionDraft[]>([]);
  const { busy, submitter } = useSubmitting();

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);

  const submit = submitter(title.trim() && choice.trim(), async () => {
    const opts = options.filter((o) => o.label.trim()).map((o) => ({
      label: o.label.trim(),
      ...(o.summary.trim() ? { summary: o.summary.trim() } : {}),
      ...(lines(o.pros).length ? { pros: lines(o.pros) } : {}),
      ...(lines(o.cons).length ? { cons: lines(o.cons) } : {}),
    }));
    await writeTool('decision_log', {
      title: title.trim(),
      choice: choice.trim(),
      status,
      ...(context.trim() ? { context: context.trim() } : {}),
      ...(rationale.trim() ? { rationale: rationale.trim() } : {}),
      ...(lines(consequences).length ? { consequences: lines(consequences) } : {}),
      ...(project ? { project_id: project } : {}),
      ...(opts.length ? { options: opts } : {}),
      ...(supersedes ? { supersedes_decision_id: supersedes.id } : {}),
    });
    toast.success(supersedes ? 'Decision superseded' : 'Decision logged');
    onClose();
  });

  return (
    <ModalForm
      label={supersedes ? 'Supersede decision' : 'Log a decision'}
      testId="decision-dialog"
      top="pt-[6vh]"
      className="flex max-h-[88vh] w-[680px] flex-col"
      onClose={onClose}
      onSubmit={submit}
      heading={<span className="text-[13px] text-zinc-500">{supersedes ? `Supersede “${supersedes.title}”` : 'Log a decision'}</span>}
    >
      <div className="min-h-0 space-y-3 overflow-y-auto px-4 py-3">
        <input autoFocus value={title} onChange={(e) => setTitle(e.target.value)} placeholder="Title" aria-label="Title" maxLength={500} className="w-full border-0 p-0 text-[16px] font-semibold placeholder:text-zinc-300 focus:outline-none" />
        <Field label="Choice — what we do">
          <textarea value={choice} onChange={(e) => setChoice(e.target.value)} aria-label="Choice" rows={2} className={`${field} py-2`} />
        </Field>
        <div className="grid grid-cols-2 gap-2">
          <SelectField label="Project" value={project} onChange={setProject}>
            <ProjectOptions projects={projects.data} none="Whole workspace" />
          </SelectField>
          <SelectField label="Status" value={status} onChange={(v) => setStatus(v as 'accepted' | 'proposed')}>
            <option value="accepted">Accepted</option>
            <option value="proposed">Proposed</option>
          </SelectField>
        </div>
        <Field label="Context — what forced the choice">
          <textarea value={context} onChange={(e) => setContext(e.target.value)} aria-label="Context" rows={2} className={`${field} py-2`} />
        </Field>
        <Field label="Rationale">
          <textarea value={rationale} onChange={(e) => setRationale(e.target.value)} aria-label="Rationale" rows={2} className={`${field} py-2`} />
        </Field>
        <Field label="Consequences — one a line">
          <textarea value={consequences} onChange={(e) => setConsequences(e.target.value)} aria-label="Consequences" rows={2} className={`${field} py-2`} />
        </Field>
        <div>
          <div className="mb-1 flex items-center">
            <span className={fieldLabelCls}>Options weighed</span>
            <button type="button" onClick={() => setOptions((o) => [...o, emptyOption()])} className="ml-auto text-[12px] text-indigo-600 hover:underline">
              + Add option
            </button>
          </div>
          {options.map((o, i) => (
            <div key={i} className="mb-2 grid grid-cols-2 gap-2 rounded-md border border-zinc-100 p-2">
              <input value={o.label} onChange={(e) => setOptions((all) => all.map((x, j) => (j === i ? { ...x, label: e.target.value } : x)))} placeholder="Option" aria-label={`Option ${i + 1}`} className={`${field} h-8`} />
              <input value={o.summary} onChange={(e) => setOptions((all) => all.map((x, j) => (j === i ? { ...x, summary: e.target.value } : x)))} placeholder="Summary" aria-label={`Option ${i + 1} summary`} className={`${field} h-8`} />
              <textarea value={o.pros} onChange={(e) => setOptions((all) => all.map((x, j) => (j === i ? { ...x, pros: e.target.value } : x)))} placeholder="Pros, one per line" aria-label={`Option ${i + 1} pros`} rows={2} className={`${field} py-1.5`} />
              <textarea value={o.cons} onChange={(e) => setOptions((all) => all.map((x, j) => (j === i ? { ...x, cons: e.target.value } : x)))} placeholder="Cons, one per line" aria-label={`Option ${i + 1} cons`} rows={2} className={`${field} py-1.5`} />
            </div>
          ))}
        </div>
      </div>
      <FormActions
        className="border-t border-zinc-100 px-4 py-2.5"
        onCancel={onClose}
        disabled={!title.trim() || !choice.trim() || busy}
        submitLabel={supersedes ? 'Supersede' : 'Log decision'}
      />
    </ModalForm>
  );
}

/**
 * A debate on its decision: the options with their supporters, the arguments in order, who is
 * still to answer; a participant argues here, and anyone closes it on a winning option with a
 * rationale (decision_set_status).
 */
function DebatePanel({ d }: { d: DecisionHit }) {
  const toast = useToast();
  const me = useMe();
  const debate = d.debate!;
  const mine = debate.participants.find((p) => p.actor_id === me.actor_id);
  const [position, setPosition] = useState(mine?.position ?? '');
  const [argument, setArgument] = useState('');
  const [rationale, setRationale] = useState('');
  const [busy, setBusy] = useState(false);
  const reply = async (e: FormEvent) => {
    e.preventDefault();
    if (!argument.trim() || busy) return;
    setBusy(true);
    try {
      await writeTool('debate_reply', { decision_id: d.id, argument: argument.trim(), ...(position ? { position } : {}) });
      setArgument('');
      toast.success('Argument added');
    } catch (err) {
      toast.error(err);
    } finally {
      setBusy(false);
    }
  };
  const close = async (status: 'accepted' | 'rejected', winning?: string) => {
    try {
      await writeTool('decision_set_status', { decision_id: d.id, status, note: rationale.trim() || undefined, ...(winning ? { winning_option: winning } : {}) });
      toast.success(status === 'accepted' ? `Accepted: ${winning}` : 'Debate rejected');
    } catch (err) {
      toast.error(err);
    }
  };
  const total = Math.max(1, debate.participants.length);
  return (
    <section data-testid="debate" className="space-y-3 rounded-md border border-indigo-100 bg-indigo-50/30 p-3">
      <header className="flex items-center gap-2 text-[12px]">
        <span className="font-semibold text-indigo-700">Debate</span>
        <span className="text-zinc-500">{debate.participants.length} participants</span>
        {debate.winning_option && (
          <span data-testid="debate-winner" className="ml-auto rounded-full bg-emerald-50 px-2 py-0.5 text-[11px] font-medium text-emerald-700 ring-1 ring-emerald-200">
            Won: {debate.winning_option}
          </span>
        )}
      </header>
      <ul className="space-y-1.5" data-testid="debate-tally">
        {debate.tally.map((t) => (
          <li key={t.option} data-testid="debate-option" data-option={t.option} className="text-[12px]">
            <div className="flex items-center gap-2">
              <span className="font-medium">{t.option}</span>
              <span className="text-zinc-500" data-testid="debate-count">{t.count}</span>
              <span className="truncate text-zinc-500">{t.supporters.join(', ')}</span>
              {debate.open && (
                <button type="button" disabled={!rationale.trim()} title={rationale.trim() ? `Accept ${t.option}` : 'write a rationale first'} onClick={() => close('accepted', t.option)} className="ml-auto h-6 rounded border border-zinc-200 bg-white px-1.5 text-[11px] hover:bg-zinc-50 disabled:opacity-40" data-testid="debate-accept">
                  Accept this
                </button>
              )}
            </div>
            <div className="mt-0.5 h-1.5 rounded bg-zinc-100"><div className="h-1.5 rounded bg-indigo-400" style={{ width: `${(100 * t.count) / total}%` }} /></div>
          </li>
        ))}
      </ul>
      {debate.waiting_on.length > 0 && (
        <p className="text-[12px] text-amber-700" data-testid="debate-waiting">Still to answer: {debate.waiting_on.map((w) => w.display_name).join(', ')}</p>
      )}
      {debate.arguments.length > 0 && (
        <ol className="space-y-1.5" data-testid="debate-arguments">
          {debate.arguments.map((a) => (
            <li key={a.id} data-testid="debate-argument" className="rounded bg-white p-2 text-[12px] ring-1 ring-zinc-100">
              <span className="font-medium">{a.author}</span>
              {a.position && <span className="ml-1 rounded bg-indigo-50 px-1 text-indigo-700">for {a.position}</span>}
              <p className="mt-0.5 whitespace-pre-wrap text-zinc-700">{a.body}</p>
            </li>
          ))}
        </ol>
      )}
      {debate.open && mine && (
        <form onSubmit={reply} className="space-y-1.5" data-testid="debate-reply">
          <div className="flex gap-2">
            <select aria-label="Your position" value={position} onChange={(e) => setPosition(e.target.value)} className={filterSelectCls}>
              <option value="">No position</option>
              {debate.tally.map((t) => <option key={t.option} value={t.option}>{t.option}</option>)}
            </select>
            <input value={argument} onChange={(e) => setArgument(e.target.value)} placeholder="Your argument" aria-label="Your argument" className={`${field} h-8 flex-1`} />
            <button type="submit" disabled={!argument.trim() || busy} className="h-8 rounded-md bg-zinc-900 px-2 text-[12px] text-white disabled:opacity-40">Argue</button>
          </div>
        </form>
      )}
      {debate.open && (
        <div className="flex items-center gap-2">
          <input value={rationale} onChange={(e) => setRationale(e.target.value)} placeholder="Rationale for closing the debate" aria-label="Rationale" className={`${field} h-8 flex-1`} />
          <button type="button" disabled={!rationale.trim()} onClick={() => close('rejected')} className="h-8 rounded-md border border-zinc-200 bg-white px-2 text-[12px] hover:bg-zinc-50 disabled:opacity-40" data-testid="debate-reject">
            Reject
          </button>
        </div>
      )}
    </section>
  );
}

function DecisionCard({ d, byId, focused, onSupersede }: { d: DecisionHit; byId: Map<string, DecisionHit>; focused: boolean; onSupersede: (d: DecisionHit) => void }) {
  const toast = useToast();
  const now = useNow(30_000);
  const actors = useActors();
  const [open, setOpen] = useState(focused);
  const setStatus = async (status: 'accepted' | 'rejected' | 'proposed') => {
    try {
      await writeTool('decision_set_status', { decision_id: d.id, status });
    } catch (err) {
      toast.error(err);
    }
  };
  const older = d.supersedes_decision_id ? byId.get(d.supersedes_decision_id) : undefined;
  const newer = d.superseded_by ? byId.get(d.superseded_by) : undefined;
  return (
    <li id={`decision-${d.id}`} data-testid="decision" data-decision-id={d.id} className={`relative pl-6 ${d.status === 'superseded' ? 'opacity-70' : ''}`}>
      <span className={`absolute top-4 left-0 size-2.5 rounded-full ring-4 ring-white ${d.status === 'superseded' ? 'bg-zinc-300' : d.status === 'rejected' ? 'bg-rose-400' : d.status === 'proposed' ? 'bg-amber-400' : 'bg-emerald-500'}`} />
      <article className={`rounded-lg border bg-white p-3 ${focused ? 'border-indigo-300 shadow-sm' : 'border-zinc-200'}`}>
        <header className="flex items-start gap-2">
          <button onClick={() => setOpen((o) => !o)} className="min-w-0 flex-1 text-left">
            <h3 className={`text-[14px] font-semibold ${d.status === 'superseded' ? 'line-through decoration-zinc-400' : ''}`} data-testid="decision-title">
              {d.title}
            </h3>
            <p className="mt-0.5 text-[13px] text-zinc-700">{d.choice}</p>
          </button>
          <DecisionStatus status={d.status} />
        </header>
        <div className="mt-2 flex flex-wrap items-center gap-x-3 gap-y-1 text-[11px] text-zinc-500">
          <span className="inline-flex items-center gap-1">
            <ActorAvatar name={d.author ?? '?'} kind={actors.byId.get(d.author_actor_id)?.kind ?? 'agent'} size="xs" />
            {d.author}
          </span>
          <span><TimeAgo at={d.created_at} now={now} /></span>
          {d.project_key && <span className="rounded bg-zinc-100 px-1.5 font-mono text-zinc-600">{d.project_key}</span>}
          {d.related_tasks.map((t) => (
            <Link key={t.id} href={`/projects/${t.ref.split('-')[0]}?task=${t.ref}`} className="font-mono text-indigo-600 hover:underline">
              {t.ref}
            </Link>
          ))}
          {d.similarity != null && <span title="similarity by meaning">≈ {d.similarity.toFixed(2)}</span>}
        </div>
        {(older || d.supersedes_decision_id) && (
          <p className="mt-2 text-[12px] text-zinc-500" data-testid="supersedes">
            Supersedes{' '}
            <a href={`#decision-${d.supersedes_decision_id}`} className="text-indigo-600 hover:underline">
              {older ? older.title : 'an earlier decision'}
            </a>
          </p>
        )}
        {d.superseded_by && (
          <p className="mt-2 text-[12px] text-zinc-500" data-testid="superseded-by">
            Superseded by{' '}
            <a href={`#decision-${d.superseded_by}`} className="text-indigo-600 hover:underline">
              {newer ? newer.title : 'a newer decision'}
            </a>
          </p>
        )}
        {open && (
          <div className="mt-3 space-y-2 border-t border-zinc-100 pt-3 text-[13px]">
            {d.context && <p><span className="font-medium text-zinc-600">Context. </span>{d.context}</p>}
            {d.rationale && <p><span className="font-medium text-zinc-600">Rationale. </span>{d.rationale}</p>}
            {d.consequences.length > 0 && (
              <div data-testid="decision-consequences">
                <span className="font-medium text-zinc-600">Consequences.</span>
                <ul className="ml-4 list-disc">
                  {d.consequences.map((c, i) => <li key={i}>{c}</li>)}
                </ul>
              </div>
            )}
            {d.options.length > 0 && (
              <div className="grid gap-2 sm:grid-cols-2" data-testid="decision-options">
                {d.options.map((o) => (
                  <div key={o.label} className="rounded-md border border-zinc-100 bg-zinc-50/60 p-2">
                    <p className="text-[12px] font-semibold">{o.label}</p>
                    {o.summary && <p className="text-[12px] text-zinc-600">{o.summary}</p>}
                    <ul className="mt-1 space-y-0.5 text-[12px]">
                      {o.pros.map((p) => <li key={`p${p}`} className="text-emerald-700">+ {p}</li>)}
                      {o.cons.map((c) => <li key={`c${c}`} className="text-rose-700">− {c}</li>)}
                    </ul>
                  </div>
                ))}
              </div>
            )}
            {d.debate && <DebatePanel d={d} />}
            {d.council_id && (
              <p className="text-[12px]">
                <Link href={`/council?c=${d.council_id}`} className="text-indigo-600 hover:underline" data-testid="decision-council">
                  The council’s stages
                </Link>
              </p>
            )}
            {d.status !== 'superseded' && !(d.debate && d.debate.open) && (
              <div className="flex gap-2 pt-1">
                {d.status !== 'accepted' && <button onClick={() => setStatus('accepted')} className="h-7 rounded-md border border-zinc-200 px-2 text-[12px] hover:bg-zinc-50">Accept</button>}
                {d.status !== 'rejected' && <button onClick={() => setStatus('rejected')} className="h-7 rounded-md border border-zinc-200 px-2 text-[12px] hover:bg-zinc-50">Reject</button>}
                <button onClick={() => onSupersede(d)} className="h-7 rounded-md border border-zinc-200 px-2 text-[12px] hover:bg-zinc-50" data-testid="supersede">
                  Supersede…
                </button>
              </div>
            )}
            <RelatedPanel type="decision" id={d.id} title={d.title} flush />
            <ObjectThread objectType="decision" objectId={d.id} />
          </div>
        )}
      </article>
    </li>
  );
}

/** The decision log: a live timeline with status, options and the supersede chain; log and supersede. */
export function DecisionsView() {
  const router = useRouter();
  const params = useSearchParams();
  const focus = params.get('d');
  const projects = useProjects();
  const [project, setProject] = useState('');
  const [showSuperseded, setShowSuperseded] = useState(true);
  const [q, setQ] = useState('');
  const [dialog, setDialog] = useState<{ supersedes: DecisionHit | null } | null>(null);
  const list = useDecisions({ project_id: project || undefined, include_superseded: showSuperseded || !!focus, q: q.trim() || undefined, semantic: !!q.trim() });
  const rows = list.data?.decisions ?? [];
  const byId = useMemo(() => new Map(rows.map((d) => [d.id, d])), [rows]);

  useEffect(() => {
    if (focus && byId.has(focus)) document.getElementById(`decision-${focus}`)?.scrollIntoView({ block: 'center' });
  }, [focus, byId]);

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <header className="flex h-12 shrink-0 items-center gap-2 border-b border-zinc-200 px-4">
        <h1 className="text-[13px] font-semibold">Decisions</h1>
        <SearchField value={q} onChange={setQ} placeholder="Recall by meaning…" label="Recall decisions" width="w-64" />
        {list.data && q.trim() && <span className="rounded bg-zinc-100 px-1.5 py-0.5 text-[11px] text-zinc-600" data-testid="decision-mode">{list.data.mode}</span>}
        <div className="ml-auto flex items-center gap-3">
          <label className="flex items-center gap-1.5 text-[12px] text-zinc-600">
            <input type="checkbox" checked={showSuperseded} onChange={(e) => setShowSuperseded(e.target.checked)} /> Show superseded
          </label>
          <select aria-label="Project" value={project} onChange={(e) => setProject(e.target.value)} className={filterSelectCls}>
            <ProjectOptions projects={projects.data} none="All projects" />
          </select>
          <AddButton onClick={() => setDialog({ supersedes: null })} testId="log-decision">
            Log decision
          </AddButton>
        </div>
      </header>
      <div className="min-h-0 flex-1 overflow-y-auto px-6 py-5">
        {list.isPending && <SkeletonRows className="h-16" gap="space-y-3" />}
        {list.data && rows.length === 0 && (
          <EmptyState title={q.trim() ? 'No decision matches.' : 'No decisions yet.'} testId="decisions-empty">
            <p className="mt-2">Agents record the choices others must follow with <code className="rounded bg-zinc-100 px-1">decision_log</code>:</p>
            <ExampleCall
              label="Example decision_log call"
              code={`{"tool": "decision_log", "arguments": {"title": "Money as integer cents",
  "choice": "Store amounts as integer cents", "project_id": "PAY"}}`}
            />
            <p className="mt-2">To change one, they log a new decision with <code className="rounded bg-zinc-100 px-1">supersedes_decision_id</code>. You can log one here too.</p>
          </EmptyState>
        )}
        {rows.length > 0 && (
          <ol className="relative mx-auto max-w-3xl space-y-3 before:absolute before:top-2 before:bottom-2 before:left-[4px] before:w-px before:bg-zinc-200" data-testid="decision-timeline">
            {rows.map((d) => (
              <DecisionCard key={d.id} d={d} byId={byId} focused={focus === d.id} onSupersede={(x) => setDialog({ supersedes: x })} />
            ))}
          </ol>
        )}
      </div>
      {dialog && (
        <DecisionDialog
          supersedes={dialog.supersedes}
          onClose={() => {
            setDialog(null);
            if (focus) router.replace('/decisions');
          }}
        />
      )}
    </div>
  );
}
