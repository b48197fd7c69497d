'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Bar, BarChart, CartesianGrid, Cell, Legend, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { useBudgets, useCostSummary } from '@/lib/console/client/costs';
import { writeTool } from '@/lib/console/client/mutations';
import { useToast } from '@/lib/console/client/toast';
import type { BudgetRow, CostSummaryOutput } from '@/lib/console/types';
import { fieldCls } from './form-parts';
import { EmptyState, ExampleCall } from './page-parts';
import { SkeletonRows } from './skeleton';

const PERIODS = ['day', 'week', 'month', 'all'] as const;
type Period = (typeof PERIODS)[number];
const PALETTE = ['#4f46e5', '#0d9488', '#d97706', '#db2777', '#2563eb', '#65a30d', '#9333ea', '#dc2626'];
const AXIS = { fontSize: 11, fill: '#52525b' };
const STATE_COLOUR: Record<BudgetRow['state'], string> = { ok: '#0d9488', warning: '#d97706', exceeded: '#dc2626' };

/** Dollars as a person reads them: "$0.42", "$12.30", "$1,204". */
export function usd(x: number): string {
  return x >= 1000 ? `$${Math.round(x).toLocaleString('en')}` : `$${x.toFixed(2)}`;
}

function Panel({ title, testId, children }: { title: string; testId: string; children: React.ReactNode }) {
  return (
    <section className="rounded-xl border border-zinc-200 p-4" data-testid={testId}>
      <h2 className="mb-3 text-[12px] font-semibold text-zinc-700">{title}</h2>
      {children}
    </section>
  );
}

/** Spend by one grouping as horizontal bars (agents, models). */
function SpendBars({ data, testId, title }: { data: CostSummaryOutput | undefined; testId: string; title: string }) {
  const rows = (data?.groups ?? []).slice(0, 8).map((g) => ({ name: g.label ?? g.key ?? 'none', cost: g.cost_usd }));
  return (
    <Panel title={title} testId={testId}>
      {!data ? <SkeletonRows className="h-6" /> : (
        <ResponsiveContainer width="100%" height={Math.max(80, rows.length * 28 + 30)}>
          <BarChart data={rows} layout="vertical" margin={{ left: 8, right: 16 }}>
            <CartesianGrid horizontal={false} stroke="#e4e4e7" />
            <XAxis type="number" tick={AXIS} tickFormatter={(v: number) => usd(v)} />
            <YAxis type="category" dataKey="name" width={140} tick={AXIS} />
            <Tooltip formatter={(v) => usd(Number(v))} />
            <Bar dataKey="cost" name="Spend" isAnimationActive={false}>
              {rows.map((_, i) => <Cell key={i} fill={PALETTE[i % PALETTE.length]} />)}
            </Bar>
          </BarChart>
        </ResponsiveContainer>
      )}
    </Panel>
  );
}

const SPLITS = [
  { id: 'total', label: 'Total' },
  { id: 'agent', label: 'By agent' },
  { id: 'model', label: 'By model' },
] as const;
type Split = (typeof SPLITS)[number]['id'];
/** How many agents or models get a band of their own in the stacked chart; the rest are "others". */
const TOP_SERIES = 6;

/** Rows for a stacked chart by day: one key per top group, the rest summed as "others". */
export function stackedByDay(data: CostSummaryOutput | undefined): { rows: Record<string, string | number>[]; series: string[] } {
  const groups = (data?.groups ?? []).filter((g) => g.daily);
  const series: string[] = [];
  const byDay = new Map<string, Record<string, string | number>>();
  groups.forEach((g, i) => {
    const name = i < TOP_SERIES ? (g.label ?? g.key ?? 'none') : 'others';
    if (!series.includes(name)) series.push(name);
    for (const d of g.daily ?? []) {
      const row = byDay.get(d.day) ?? { day: d.day };
      row[name] = Number(row[name] ?? 0) + d.cost_usd;
      byDay.set(d.day, row);
    }
  });
  return { rows: [...byDay.values()].sort((a, b) => String(a.day).localeCompare(String(b.day))), series };
}

/** Spend over time: the total by day, or stacked by agent or by model. */
function SpendOverTime({ byDay, byAgent, byModel }: { byDay: CostSummaryOutput | undefined; byAgent: CostSummaryOutput | undefined; byModel: CostSummaryOutput | undefined }) {
  const [split, setSplit] = useState<Split>('total');
  const source = split === 'agent' ? byAgent : split === 'model' ? byModel : byDay;
  const { rows, series } =
    split === 'total'
      ? { rows: (byDay?.groups ?? []).map((g) => ({ day: g.key ?? '', Spend: g.cost_usd })), series: ['Spend'] }
      : stackedByDay(source);
  return (
    <Panel title="Spend over time" testId="costs-over-time">
      <div className="mb-2 flex gap-1" role="group" aria-label="Split spend by">
        {SPLITS.map((s) => (
          <button key={s.id} type="button" onClick={() => setSplit(s.id)} aria-pressed={s.id === split}
            className={`rounded-md px-2 py-0.5 text-[12px] ${s.id === split ? 'bg-zinc-200/70 font-medium' : 'text-zinc-600 hover:bg-zinc-100'}`}>
            {s.label}
          </button>
        ))}
      </div>
      {!source ? <SkeletonRows className="h-6" /> : (
        <ResponsiveContainer width="100%" height={200}>
          <BarChart data={rows} margin={{ left: 8, right: 16 }}>
            <CartesianGrid vertical={false} stroke="#e4e4e7" />
            <XAxis dataKey="day" tick={AXIS} />
            <YAxis tick={AXIS} tickFormatter={(v: number) => usd(v)} width={64} />
            <Tooltip formatter={(v) => usd(Number(v))} />
            {series.length > 1 && <Legend wrapperStyle={{ fontSize: 11 }} />}
            {series.map((name, i) => (
              <Bar key={name} dataKey={name} name={name} stackId="spend" fill={PALETTE[i % PALETTE.length]} isAnimationActive={false} />
            ))}
            <ReferenceLine y={0} stroke="#a1a1aa" />
          </BarChart>
        </ResponsiveContainer>
      )}
    </Panel>
  );
}

/** Each budget as a bar of its limit spent, with its warning line. */
function BudgetBars({ budgets }: { budgets: BudgetRow[] }) {
  return (
    <Panel title="Budgets" testId="costs-budgets">
      {budgets.length === 0 ? (
        <p className="text-[12px] text-zinc-500">No budget. A workspace owner sets one with <code className="rounded bg-zinc-100 px-1">budget_set</code>; at its limit claims are refused and heartbeats answer stop.</p>
      ) : (
        <ul className="space-y-3">
          {budgets.map((b) => {
            const pct = b.limit_usd > 0 ? Math.min(100, (100 * b.spent_usd) / b.limit_usd) : 100;
            const reserved = b.limit_usd > 0 ? Math.min(100 - pct, (100 * b.reserved_usd) / b.limit_usd) : 0;
            return (
              <li key={b.id} data-testid="costs-budget" data-state={b.state}>
                <div className="flex items-baseline justify-between text-[12px]">
                  <span className="font-medium text-zinc-800">{b.label}</span>
                  <span className="text-zinc-600">{usd(b.spent_usd)} of {usd(b.limit_usd)} · <span style={{ color: STATE_COLOUR[b.state] }}>{b.state}</span></span>
                </div>
                <div className="relative mt-1 h-2.5 overflow-hidden rounded-full bg-zinc-100" role="meter" aria-label={`${b.label}: ${Math.round(pct)}% spent`} aria-valuenow={Math.round(pct)} aria-valuemin={0} aria-valuemax={100}>
                  <div className="absolute inset-y-0 left-0" style={{ width: `${pct}%`, background: STATE_COLOUR[b.state] }} />
                  <div className="absolute inset-y-0 bg-zinc-300" style={{ left: `${pct}%`, width: `${reserved}%` }} title="reserved by live claims" />
                  <div className="absolute inset-y-0 w-0.5 bg-zinc-800" style={{ left: `${b.warn_at * 100}%` }} title={`warning at ${Math.round(b.warn_at * 100)}%`} data-testid="costs-warn-line" />
                </div>
              </li>
            );
          })}
        </ul>
      )}
      <BudgetForm />
    </Panel>
  );
}

/** An owner's budget form: a limit for the workspace or a project, per period (budget_set). */
function BudgetForm() {
  const toast = useToast();
  const qc = useQueryClient();
  const [project, setProject] = useState('');
  const [period, setPeriod] = useState<'day' | 'week' | 'month' | 'total'>('month');
  const [limit, setLimit] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const n = Number(limit);
    if (!limit.trim() || !Number.isFinite(n) || n < 0 || busy) return;
    setBusy(true);
    try {
      const p = project.trim();
      await writeTool('budget_set', { scope: p ? 'project' : 'workspace', ...(p ? { scope_id: p.toUpperCase() } : {}), period, limit_usd: n });
      setLimit('');
      await qc.invalidateQueries({ queryKey: ['costs'] });
    } catch (err) {
      toast.error(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} className="mt-3 flex flex-wrap items-center gap-2 text-[12px]" data-testid="costs-budget-form">
      <input value={project} onChange={(e) => setProject(e.target.value)} placeholder="Project key (blank: workspace)" aria-label="Budget project" className={`${fieldCls} h-7 w-48`} />
      <select value={period} onChange={(e) => setPeriod(e.target.value as typeof period)} aria-label="Budget period" className={`${fieldCls} h-7`}>
        {(['day', 'week', 'month', 'total'] as const).map((p) => <option key={p} value={p}>{p}</option>)}
      </select>
      <input value={limit} onChange={(e) => setLimit(e.target.value)} inputMode="decimal" placeholder="Limit, USD" aria-label="Budget limit in USD" className={`${fieldCls} h-7 w-28`} />
      <button type="submit" disabled={!limit.trim() || busy} className="h-7 rounded-md bg-zinc-900 px-3 text-white disabled:opacity-40">Set budget</button>
    </form>
  );
}

/** The Costs page: spend over time, by agent and by model, budgets and the costliest tasks, from the usage ledger. */
export function CostsView() {
  const [period, setPeriod] = useState<Period>('month');
  const byDay = useCostSummary('day', period);
  const byAgent = useCostSummary('agent', period, true);
  const byModel = useCostSummary('model', period, true);
  const byTask = useCostSummary('task', period);
  const budgets = useBudgets();
  const empty = byDay.data && byDay.data.total.calls === 0;
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <header className="flex h-12 shrink-0 items-center gap-3 border-b border-zinc-200 px-4">
        <h1 className="text-[13px] font-semibold">Costs</h1>
        {byDay.data && <span className="text-[12px] text-zinc-600" data-testid="costs-total">{usd(byDay.data.total.cost_usd)} · {byDay.data.total.calls} reports</span>}
        <div className="ml-auto flex gap-1" role="group" aria-label="Period">
          {PERIODS.map((p) => (
            <button key={p} type="button" onClick={() => setPeriod(p)} aria-pressed={p === period}
              className={`rounded-md px-2 py-1 text-[12px] ${p === period ? 'bg-zinc-200/70 font-medium' : 'text-zinc-600 hover:bg-zinc-100'}`}>
              {p === 'all' ? 'All time' : `This ${p}`}
            </button>
          ))}
        </div>
      </header>
      <div className="min-h-0 flex-1 overflow-y-auto px-6 py-5">
        {empty ? (
          <EmptyState title="No spend recorded yet." testId="costs-empty">
            <p className="mt-2">Agents report usage with <code className="rounded bg-zinc-100 px-1">run_heartbeat</code> and <code className="rounded bg-zinc-100 px-1">run_end</code>; a report without a cost is priced from the model price table:</p>
            <ExampleCall label="Example run_heartbeat call" code={`{"tool": "run_heartbeat", "arguments": {"task_id": "PAY-12",\n  "usage": {"model": "claude-sonnet-4-5", "tokens_in": 120000, "tokens_out": 9000}}}`} />
            <p className="mt-2">A workspace owner caps spending with <code className="rounded bg-zinc-100 px-1">budget_set</code> (or <code className="rounded bg-zinc-100 px-1">bullpen budget set</code>), or here:</p>
            <BudgetForm />
          </EmptyState>
        ) : (
          <div className="grid gap-4 lg:grid-cols-2">
            <div className="lg:col-span-2">
              <SpendOverTime byDay={byDay.data} byAgent={byAgent.data} byModel={byModel.data} />
            </div>
            <SpendBars data={byAgent.data} testId="costs-by-agent" title="By agent" />
            <SpendBars data={byModel.data} testId="costs-by-model" title="By model" />
            <BudgetBars budgets={budgets.data?.budgets ?? []} />
            <Panel title="Top tasks by cost" testId="costs-top-tasks">
              <ol className="space-y-1 text-[12px]">
                {(byTask.data?.groups ?? []).filter((g) => g.key).slice(0, 10).map((g) => (
                  <li key={g.key} className="flex justify-between gap-3" data-testid="costs-task">
                    <span className="truncate">{g.label}</span>
                    <span className="shrink-0 tabular-nums text-zinc-700">{usd(g.cost_usd)}</span>
                  </li>
                ))}
              </ol>
            </Panel>
          </div>
        )}
      </div>
    </div>
  );
}
