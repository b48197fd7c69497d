'use client';

import Link from 'next/link';
import { useRouter, useSearchParams } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { useCouncil, useCouncils } from '@/lib/console/client/council';
import { writeTool } from '@/lib/console/client/mutations';
import { useToast } from '@/lib/console/client/toast';
import { useNow } from '@/lib/console/client/use-now';
import type { CouncilRow, CouncilSummary } from '@/lib/console/types';
import { fieldCls } from './form-parts';
import { EmptyState, ExampleCall } from './page-parts';
import { SkeletonRows } from './skeleton';
import { TimeAgo } from './time-ago';

const STATUS_TONE: Record<CouncilSummary['status'], string> = {
  running: 'bg-sky-50 text-sky-700 ring-sky-200',
  done: 'bg-emerald-50 text-emerald-700 ring-emerald-200',
  partial: 'bg-amber-50 text-amber-700 ring-amber-200',
  failed: 'bg-rose-50 text-rose-700 ring-rose-200',
};

function CouncilStatus({ status }: { status: CouncilSummary['status'] }) {
  return <span data-testid="council-status" className={`rounded-full px-2 py-0.5 text-[11px] font-medium ring-1 ${STATUS_TONE[status]}`}>{status}</span>;
}

const usd = (n: number) => `$${n.toFixed(n > 0 && n < 0.01 ? 4 : 2)}`;

/** One council: the question, the stage-1 answers side by side, the ranking table, the final answer, and cost. */
function CouncilDetail({ c }: { c: CouncilRow }) {
  const byLabel = new Map(c.answers.filter((a) => a.label).map((a) => [a.label!, a]));
  return (
    <article className="space-y-5" data-testid="council">
      <header className="space-y-1">
        <div className="flex items-center gap-2">
          <h2 className="text-[16px] font-semibold" data-testid="council-question">{c.question}</h2>
          <CouncilStatus status={c.status} />
          {c.sensitivity === 'sensitive' && (
            <span className="rounded bg-rose-50 px-1.5 text-[10px] font-medium tracking-wide text-rose-700 uppercase" data-testid="council-sensitive" title="Its context holds a sensitive note: seen only by people and keys with the sensitive scope">
              sensitive
            </span>
          )}
        </div>
        <p className="text-[12px] text-zinc-500">
          {c.asked_by} · chairman <span className="font-mono">{c.chairman}</span>
          {c.project_key && <span className="ml-2 rounded bg-zinc-100 px-1.5 font-mono text-zinc-600">{c.project_key}</span>}
          {c.decision_id && (
            <Link href={`/decisions?d=${c.decision_id}`} className="ml-2 text-indigo-600 hover:underline" data-testid="council-decision">
              recorded as a decision
            </Link>
          )}
        </p>
        {c.context_refs.length > 0 && <p className="text-[12px] text-zinc-500">Context: {c.context_refs.map((r) => `${r.type} ${r.label}`).join(', ')}</p>}
      </header>

      <section>
        <h3 className="mb-2 text-[12px] font-semibold tracking-wide text-zinc-500 uppercase">Stage 1 · answers</h3>
        <div className="grid gap-3" style={{ gridTemplateColumns: `repeat(${Math.min(4, Math.max(1, c.answers.length))}, minmax(0, 1fr))` }} data-testid="council-answers">
          {c.answers.map((a) => (
            <div key={a.model} data-testid="council-answer" className={`rounded-md border p-2 text-[12px] ${a.error ? 'border-rose-200 bg-rose-50/40' : 'border-zinc-200 bg-white'}`}>
              <p className="mb-1 flex items-center gap-1.5 font-medium">
                {a.label && <span className="rounded bg-zinc-900 px-1 text-[10px] text-white">{a.label}</span>}
                <span className="truncate font-mono">{a.model}</span>
              </p>
              {a.answer ? <p className="whitespace-pre-wrap text-zinc-700">{a.answer}</p> : <p className="text-rose-700">{a.error}</p>}
            </div>
          ))}
        </div>
      </section>

      <section>
        <h3 className="mb-2 text-[12px] font-semibold tracking-wide text-zinc-500 uppercase">Stage 2 · anonymous ranking</h3>
        <table className="w-full text-left text-[12px]" data-testid="council-ranking">
          <thead className="text-zinc-500">
            <tr><th className="py-1">Place</th><th>Answer</th><th>Model</th><th>Average place</th><th>Votes</th></tr>
          </thead>
          <tbody>
            {c.aggregate.map((r, i) => (
              <tr key={r.label} className="border-t border-zinc-100" data-testid="council-rank-row">
                <td className="py-1">{i + 1}</td>
                <td>{r.label}</td>
                <td className="font-mono">{r.model}</td>
                <td>{r.average_rank ?? '—'}</td>
                <td>{r.votes}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {c.rankings.length > 0 && (
          <ul className="mt-2 space-y-0.5 text-[12px] text-zinc-600">
            {c.rankings.map((r) => (
              <li key={r.model}>
                <span className="font-mono">{r.model}</span>: {r.error ? <span className="text-rose-700">{r.error}</span> : `${r.ranking.map((l) => byLabel.get(l)?.label ?? l).join(' > ')}${r.reason ? ` — ${r.reason}` : ''}`}
              </li>
            ))}
          </ul>
        )}
      </section>

      <section>
        <h3 className="mb-2 text-[12px] font-semibold tracking-wide text-zinc-500 uppercase">Stage 3 · final answer</h3>
        {c.final_answer ? (
          <p className="whitespace-pre-wrap rounded-md border border-emerald-200 bg-emerald-50/40 p-3 text-[13px]" data-testid="council-final">{c.final_answer}</p>
        ) : (
          <p className="text-[12px] text-zinc-500">{c.status === 'running' ? 'The council is still at work…' : 'No final answer.'}</p>
        )}
        {c.errors.length > 0 && (
          <ul className="mt-2 space-y-0.5 text-[12px] text-amber-800" data-testid="council-errors">
            {c.errors.map((e, i) => <li key={i}>{e.stage} · <span className="font-mono">{e.model}</span>: {e.error}</li>)}
          </ul>
        )}
      </section>

      <section>
        <h3 className="mb-2 text-[12px] font-semibold tracking-wide text-zinc-500 uppercase">Cost</h3>
        <table className="w-full text-left text-[12px]" data-testid="council-cost">
          <thead className="text-zinc-500"><tr><th className="py-1">Model</th><th>Tokens in</th><th>Tokens out</th><th>Cost</th></tr></thead>
          <tbody>
            {Object.entries(c.usage).map(([m, u]) => (
              <tr key={m} className="border-t border-zinc-100"><td className="py-1 font-mono">{m}</td><td>{u.tokens_in}</td><td>{u.tokens_out}</td><td>{usd(u.cost_usd)}</td></tr>
            ))}
            <tr className="border-t border-zinc-200 font-medium" data-testid="council-total"><td className="py-1">Total</td><td>{c.tokens_in}</td><td>{c.tokens_out}</td><td>{usd(c.cost_usd)}</td></tr>
          </tbody>
        </table>
      </section>
    </article>
  );
}

function AskForm() {
  const toast = useToast();
  const router = useRouter();
  const [question, setQuestion] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!question.trim() || busy) return;
    setBusy(true);
    try {
      const r = await writeTool<{ council_id: string }>('council_ask', { question: question.trim() });
      setQuestion('');
      router.replace(`/council?c=${r.council_id}`);
    } catch (err) {
      toast.error(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} className="flex gap-2" data-testid="council-ask">
      <input value={question} onChange={(e) => setQuestion(e.target.value)} placeholder="Ask the council…" aria-label="Question for the council" className={`${fieldCls} h-8 w-96`} />
      <button type="submit" disabled={!question.trim() || busy} className="h-8 rounded-md bg-zinc-900 px-3 text-[12px] text-white disabled:opacity-40">Ask</button>
    </form>
  );
}

/** The council page: councils newest first on the left, the chosen one in full on the right. */
export function CouncilView() {
  const params = useSearchParams();
  const list = useCouncils();
  const rows = list.data?.councils ?? [];
  const chosen = params.get('c') ?? rows[0]?.id ?? null;
  const one = useCouncil(chosen);
  const now = useNow(30_000);
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <header className="flex h-12 shrink-0 items-center gap-3 border-b border-zinc-200 px-4">
        <h1 className="text-[13px] font-semibold">Council</h1>
        <div className="ml-auto"><AskForm /></div>
      </header>
      <div className="flex min-h-0 flex-1">
        <ol className="w-72 shrink-0 overflow-y-auto border-r border-zinc-200 p-2" data-testid="council-list">
          {list.isPending && <SkeletonRows className="h-10" gap="space-y-2" />}
          {rows.map((c) => (
            <li key={c.id}>
              <Link href={`/council?c=${c.id}`} data-testid="council-item" className={`block rounded-md px-2 py-1.5 text-[12px] ${c.id === chosen ? 'bg-zinc-200/70' : 'hover:bg-zinc-100'}`}>
                <span className="line-clamp-2 font-medium">{c.question}</span>
                <span className="mt-0.5 flex items-center gap-2 text-zinc-500"><CouncilStatus status={c.status} /><TimeAgo at={c.created_at} now={now} /> {usd(c.cost_usd)}</span>
              </Link>
            </li>
          ))}
        </ol>
        <div className="min-h-0 flex-1 overflow-y-auto px-6 py-5">
          {list.data && rows.length === 0 && (
            <EmptyState title="No council yet." testId="council-empty">
              <p className="mt-2">Agents ask several language models at once with <code className="rounded bg-zinc-100 px-1">council_ask</code>:</p>
              <ExampleCall label="Example council_ask call" code={`{"tool": "council_ask", "arguments": {"question": "Postgres or Redis for the job queue?",\n  "record_decision": true}}`} />
            </EmptyState>
          )}
          {one.data && <CouncilDetail c={one.data.council} />}
        </div>
      </div>
    </div>
  );
}
