'use client';

import { useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { keys } from '@/lib/console/client/cache';
import { useProjects } from '@/lib/console/client/hooks';
import { writeTool } from '@/lib/console/client/mutations';
import type { Project } from '@/lib/console/types';
import { FolderIcon, PlusIcon } from './icons';
import { Skeleton } from './skeleton';
import { useSubmitting } from './form-parts';

function Progress({ p }: { p: Project }) {
  const total = p.tasks?.total ?? 0;
  const done = p.tasks?.by_status.done ?? 0;
  const doing = (p.tasks?.by_status.in_progress ?? 0) + (p.tasks?.by_status.in_review ?? 0);
  return (
    <div className="mt-3">
      <div className="flex h-1.5 overflow-hidden rounded-full bg-zinc-100">
        <div className="bg-emerald-500" style={{ width: total ? `${(done / total) * 100}%` : 0 }} />
        <div className="bg-amber-400" style={{ width: total ? `${(doing / total) * 100}%` : 0 }} />
      </div>
      <p className="mt-1.5 text-[12px] text-zinc-500">
        {total === 0 ? 'No tasks yet' : `${done} of ${total} done · ${doing} in flight · ${p.tasks?.ready ?? 0} ready`}
      </p>
    </div>
  );
}

/** Projects: list, switch, create. */
export function ProjectsView() {
  const projects = useProjects();
  const [creating, setCreating] = useState(false);
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <header className="flex h-12 shrink-0 items-center border-b border-zinc-200 px-4">
        <h1 className="text-[13px] font-semibold">Projects</h1>
        <button onClick={() => setCreating(true)} data-testid="new-project" className="ml-auto inline-flex h-7 items-center gap-1 rounded-md bg-zinc-900 px-2.5 text-[12px] font-medium text-white hover:bg-zinc-800">
          <PlusIcon className="size-3.5" /> New project
        </button>
      </header>
      <div className="min-h-0 flex-1 overflow-y-auto p-6">
        {(creating || projects.data?.length === 0) && (
          <NewProjectForm
            first={projects.data?.length === 0}
            onCancel={projects.data?.length ? () => setCreating(false) : undefined}
          />
        )}
        <div className="mt-2 grid grid-cols-[repeat(auto-fill,minmax(300px,1fr))] gap-3">
          {projects.isPending &&
            [0, 1, 2].map((i) => (
              <div key={i} className="rounded-lg border border-zinc-200 p-4">
                <Skeleton className="h-3 w-16" />
                <Skeleton className="mt-2 h-4 w-40" />
                <Skeleton className="mt-4 h-1.5 w-full" />
              </div>
            ))}
          {projects.data?.map((p) => (
            <Link key={p.id} href={`/projects/${p.key}`} data-testid="project-card" className="group rounded-lg border border-zinc-200 bg-white p-4 hover:border-zinc-300 hover:shadow-sm">
              <div className="flex items-center gap-2">
                <FolderIcon className="size-4 text-zinc-500" />
                <span className="rounded bg-zinc-100 px-1.5 font-mono text-[11px] text-zinc-600">{p.key}</span>
                <span className="ml-auto text-[11px] text-zinc-500 capitalize">{p.status}</span>
              </div>
              <p className="mt-2 text-[14px] font-semibold text-zinc-900 group-hover:text-indigo-700">{p.title}</p>
              {p.summary && <p className="mt-0.5 line-clamp-2 text-[13px] text-zinc-500">{p.summary}</p>}
              <Progress p={p} />
            </Link>
          ))}
        </div>
      </div>
    </div>
  );
}

function NewProjectForm({ first, onCancel }: { first: boolean; onCancel?: () => void }) {
  const qc = useQueryClient();
  const router = useRouter();
  const [title, setTitle] = useState('');
  const [key, setKey] = useState('');
  const [summary, setSummary] = useState('');
  const { busy, submitter } = useSubmitting();
  const submit = submitter(title.trim(), async () => {
    const res = await writeTool<{ key: string }>('project_create', {
      title: title.trim(),
      ...(key.trim() ? { key: key.trim() } : {}),
      ...(summary.trim() ? { summary: summary.trim() } : {}),
    });
    await qc.invalidateQueries({ queryKey: keys.projects });
    router.push(`/projects/${res.key}`);
  });
  const field = 'h-8 w-full rounded-md border border-zinc-200 px-2.5 text-[13px] placeholder:text-zinc-400 focus:border-indigo-400 focus:outline-none';
  return (
    <form onSubmit={submit} data-testid="new-project-form" className="mb-6 max-w-xl rounded-lg border border-zinc-200 bg-zinc-50/60 p-4">
      <p className="text-[14px] font-semibold">{first ? 'Create your first project' : 'New project'}</p>
      <p className="mt-0.5 mb-3 text-[13px] text-zinc-500">
        {first
          ? 'Projects group the work. Create one here, or let an agent call project_create; it appears here as it happens.'
          : 'Tasks are named by the key: PAY-1, PAY-2, …'}
      </p>
      <div className="grid grid-cols-[1fr_120px] gap-2">
        <input autoFocus value={title} onChange={(e) => setTitle(e.target.value)} placeholder="Title, e.g. Payments API" aria-label="Project title" className={field} />
        <input value={key} onChange={(e) => setKey(e.target.value.toUpperCase())} placeholder="Key (auto)" aria-label="Project key" maxLength={16} className={`${field} font-mono`} />
      </div>
      <input value={summary} onChange={(e) => setSummary(e.target.value)} placeholder="One-line summary (optional)" aria-label="Summary" className={`${field} mt-2`} />
      <div className="mt-3 flex gap-2">
        <button type="submit" disabled={!title.trim() || busy} data-testid="create-project" className="h-8 rounded-md bg-zinc-900 px-3 text-[13px] font-medium text-white hover:bg-zinc-800 disabled:opacity-40">
          {busy ? 'Creating…' : 'Create project'}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel} className="h-8 rounded-md px-3 text-[13px] text-zinc-600 hover:bg-zinc-100">
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
