'use client';

import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { refetchAfterChange } from '@/lib/console/client/cache';
import { writeTool } from '@/lib/console/client/mutations';
import { useToast } from '@/lib/console/client/toast';
import { useNow } from '@/lib/console/client/use-now';
import { useWorkflows } from '@/lib/console/client/workflows';
import type { WorkflowInstanceFull, WorkflowInstanceRow, WorkflowRow, WorkflowStatus } from '@/lib/console/types';
import { EmptyState, ExampleCall } from './page-parts';
import { SkeletonRows } from './skeleton';
import { TimeAgo } from './time-ago';
import { WorkflowGraph } from './workflow-graph';

const STATUS_TONE: Record<WorkflowStatus, string> = {
  running: 'bg-sky-50 text-sky-700 ring-sky-200',
  paused: 'bg-amber-50 text-amber-700 ring-amber-200',
  done: 'bg-emerald-50 text-emerald-700 ring-emerald-200',
  failed: 'bg-rose-50 text-rose-700 ring-rose-200',
  cancelled: 'bg-zinc-100 text-zinc-600 ring-zinc-200',
};

const BAR_TONE: Record<WorkflowStatus, string> = {
  running: 'bg-sky-500',
  paused: 'bg-amber-400',
  done: 'bg-emerald-500',
  failed: 'bg-rose-500',
  cancelled: 'bg-zinc-400',
};

const usd = (n: number) => `$${n.toFixed(n > 0 && n < 0.01 ? 4 : 2)}`;

function StatusPill({ status }: { status: WorkflowStatus }) {
  return <span data-testid="workflow-instance-status" className={`rounded-full px-2 py-0.5 text-[11px] font-medium ring-1 ${STATUS_TONE[status]}`}>{status}</span>;
}

function triggerWords(w: WorkflowRow): string {
  const t = w.definition.trigger;
  if (!t) return 'started by hand';
  return t.on === 'event' ? `starts on ${t.event_type}` : `starts on cron ${t.cron} (UTC)`;
}

/** Pause or resume and cancel, for an instance that is not finished. */
function Controls({ i }: { i: WorkflowInstanceRow }) {
  const toast = useToast();
  const qc = useQueryClient();
  const [busy, setBusy] = useState(false);
  if (i.status === 'done' || i.status === 'cancelled') return null;
  const act = async (tool: 'workflow_pause' | 'workflow_resume' | 'workflow_cancel', note?: string) => {
    setBusy(true);
    try {
      await writeTool<{ instance: WorkflowInstanceFull }>(tool, { instance_id: i.id, ...(note ? { note } : {}) });
      await refetchAfterChange(qc, ['workflows']);
    } catch (err) {
      toast.error(err);
    } finally {
      setBusy(false);
    }
  };
  const btn = 'h-6 rounded-md border border-zinc-200 px-2 text-[11px] hover:bg-zinc-100 disabled:opacity-40';
  return (
    <span className="flex gap-1">
      {i.control === 'paused' ? (
        <button type="button" className={btn} disabled={busy} onClick={() => act('workflow_resume')} data-testid="workflow-resume">Resume</button>
      ) : (
        <button type="button" className={btn} disabled={busy} onClick={() => act('workflow_pause')} data-testid="workflow-pause">Pause</button>
      )}
      <button
        type="button"
        className={`${btn} text-rose-700`}
        disabled={busy}
        data-testid="workflow-cancel"
        onClick={() => {
          if (window.confirm(`Cancel this run of ${i.workflow_name}? Its open tasks are cancelled and their leases released.`)) void act('workflow_cancel', 'cancelled from the console');
        }}
      >
        Cancel
      </button>
    </span>
  );
}

function InstanceRow({ i, now }: { i: WorkflowInstanceRow; now: number }) {
  const p = i.progress;
  return (
    <li className="rounded-md border border-zinc-200 bg-white p-2 text-[12px]" data-testid="workflow-instance">
      <div className="flex items-center gap-2">
        <StatusPill status={i.status} />
        <Link href={`/projects/${i.project_key}`} className="rounded bg-zinc-100 px-1.5 font-mono text-zinc-600 hover:underline">{i.project_key}</Link>
        <span className="text-zinc-500">{i.started_by === 'manual' ? 'started' : `started by ${i.started_by}`} <TimeAgo at={i.created_at} now={now} /></span>
        {Object.keys(i.inputs).length > 0 && (
          <span className="truncate text-zinc-500">{Object.entries(i.inputs).map(([k, v]) => `${k}=${String(v)}`).join(', ')}</span>
        )}
        <span className="ml-auto"><Controls i={i} /></span>
      </div>
      <div className="mt-2 flex items-center gap-2">
        <div
          className="h-1.5 flex-1 overflow-hidden rounded-full bg-zinc-100"
          role="progressbar"
          aria-label={`${i.workflow_name} progress`}
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={p.percent}
          data-testid="workflow-progress"
        >
          <div className={`h-full ${BAR_TONE[i.status]}`} style={{ width: `${p.percent}%` }} />
        </div>
        <span className="w-44 shrink-0 text-right text-zinc-500" data-testid="workflow-progress-text">
          {p.done}/{p.total} done{p.active ? ` · ${p.active} active` : ''}{p.failed ? ` · ${p.failed} failed` : ''} · {usd(i.cost_usd)}
        </span>
      </div>
    </li>
  );
}

function WorkflowDetail({ w, instances, now }: { w: WorkflowRow; instances: WorkflowInstanceRow[]; now: number }) {
  return (
    <article className="space-y-5" data-testid="workflow">
      <header className="space-y-1">
        <h2 className="text-[16px] font-semibold" data-testid="workflow-name">{w.name}</h2>
        {w.description && <p className="text-[13px] text-zinc-600">{w.description}</p>}
        <p className="text-[12px] text-zinc-500">
          {w.definition.steps.length} steps · {triggerWords(w)}
          {w.tags.map((t) => <span key={t} className="ml-2 rounded bg-zinc-100 px-1.5 text-zinc-600">{t}</span>)}
        </p>
      </header>
      <section>
        <h3 className="mb-2 text-[12px] font-semibold tracking-wide text-zinc-500 uppercase">Steps</h3>
        <WorkflowGraph definition={w.definition} />
      </section>
      <section>
        <h3 className="mb-2 text-[12px] font-semibold tracking-wide text-zinc-500 uppercase">Runs</h3>
        {instances.length === 0 ? (
          <EmptyState title="Not started yet." testId="workflow-instances-empty">
            <p className="mt-2">An agent starts a run in a project with <code className="rounded bg-zinc-100 px-1">workflow_start</code>; its steps become tasks on that board:</p>
            <ExampleCall label="Example workflow_start call" code={`{"tool": "workflow_start", "arguments": {"workflow_id": ${JSON.stringify(w.name)}, "project_id": "PAY"}}`} />
          </EmptyState>
        ) : (
          <ul className="space-y-2" data-testid="workflow-instances">
            {instances.map((i) => <InstanceRow key={i.id} i={i} now={now} />)}
          </ul>
        )}
      </section>
    </article>
  );
}

/** The workflows page: definitions on the left; the chosen one's step graph and runs, with progress and controls, on the right. */
export function WorkflowsView() {
  const params = useSearchParams();
  const list = useWorkflows();
  const workflows = list.data?.workflows ?? [];
  const chosenId = params.get('w') ?? workflows[0]?.id ?? null;
  const chosen = workflows.find((w) => w.id === chosenId) ?? null;
  const now = useNow(30_000);
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <header className="flex h-12 shrink-0 items-center gap-3 border-b border-zinc-200 px-4">
        <h1 className="text-[13px] font-semibold">Workflows</h1>
      </header>
      <div className="flex min-h-0 flex-1">
        <ol className="w-72 shrink-0 overflow-y-auto border-r border-zinc-200 p-2" data-testid="workflow-list">
          {list.isPending && <SkeletonRows className="h-10" gap="space-y-2" />}
          {workflows.map((w) => {
            const runs = (list.data?.instances ?? []).filter((i) => i.workflow_id === w.id);
            const live = runs.filter((i) => i.status === 'running' || i.status === 'paused').length;
            return (
              <li key={w.id}>
                <Link href={`/workflows?w=${w.id}`} data-testid="workflow-item" className={`block rounded-md px-2 py-1.5 text-[12px] ${w.id === chosenId ? 'bg-zinc-200/70' : 'hover:bg-zinc-100'}`}>
                  <span className="line-clamp-1 font-medium">{w.name}</span>
                  <span className="mt-0.5 block text-zinc-500">{w.definition.steps.length} steps · {w.instance_count} runs{live ? ` · ${live} open` : ''}</span>
                </Link>
              </li>
            );
          })}
        </ol>
        <div className="min-h-0 flex-1 overflow-y-auto px-6 py-5">
          {list.data && workflows.length === 0 && (
            <EmptyState title="No workflow yet." testId="workflows-empty">
              <p className="mt-2">A workflow is a reusable template of steps. Agents save one with <code className="rounded bg-zinc-100 px-1">workflow_create</code> (connect with <code className="rounded bg-zinc-100 px-1">?toolsets=core,workflows</code>):</p>
              <ExampleCall
                label="Example workflow_create call"
                code={`{"tool": "workflow_create", "arguments": {"name": "Release", "definition": {\n  "inputs": [{"name": "version"}],\n  "steps": [{"key": "build", "title": "Build {{version}}"},\n            {"key": "ship", "title": "Ship {{version}}", "depends_on": ["build"]}]}}}`}
              />
            </EmptyState>
          )}
          {chosen && <WorkflowDetail w={chosen} instances={(list.data?.instances ?? []).filter((i) => i.workflow_id === chosen.id)} now={now} />}
        </div>
      </div>
    </div>
  );
}
