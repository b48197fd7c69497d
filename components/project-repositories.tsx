'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { writeTool } from '@/lib/console/client/mutations';
import { useToast } from '@/lib/console/client/toast';
import type { ProjectBrief } from '@/lib/console/types';
import { CodeGraphSummary } from './code-graph-summary';
import { InlineInput } from './form-parts';
import { XIcon } from './icons';

const ROLE_STYLE: Record<string, string> = { primary: 'bg-indigo-50 text-indigo-700', dependency: 'bg-zinc-100 text-zinc-600', docs: 'bg-sky-50 text-sky-700' };

/** A project's repositories (project_brief), with a form to link one (repo_register + repo_link). */
export function ProjectRepositories({ brief }: { brief: ProjectBrief }) {
  const qc = useQueryClient();
  const toast = useToast();
  const [remote, setRemote] = useState('');
  const [role, setRole] = useState<'primary' | 'dependency' | 'docs'>('primary');
  const [busy, setBusy] = useState(false);
  const project = brief.project;
  const refresh = () => qc.invalidateQueries({ queryKey: ['brief'] });
  const link = async () => {
    if (!remote.trim()) return;
    setBusy(true);
    try {
      const r = await writeTool<{ repository_id: string }>('repo_register', { remote_url: remote.trim() });
      await writeTool('repo_link', { project_id: project.id, repository_id: r.repository_id, role });
      setRemote('');
      await refresh();
    } catch (err) {
      toast.error(err);
    } finally {
      setBusy(false);
    }
  };
  const unlink = async (repositoryId: string) => {
    try {
      await writeTool('repo_link', { project_id: project.id, repository_id: repositoryId, remove: true });
      await refresh();
    } catch (err) {
      toast.error(err);
    }
  };
  return (
    <section data-testid="project-repositories">
      <h3 className="mb-2 text-[12px] font-semibold tracking-wide text-zinc-500 uppercase">Repositories</h3>
      {brief.repositories.length === 0 ? (
        <p className="mb-2 text-[12px] text-zinc-500">
          None linked. Link the repository this project lives in: agents then claim its work from where they stand and can tell they are in the right checkout.
        </p>
      ) : (
        <ul className="mb-2 space-y-1">
          {brief.repositories.map((r) => (
            <li key={r.id} className="group flex flex-wrap items-center gap-1.5 text-[13px]" data-testid="project-repository">
              <a href={r.remote_url} target="_blank" rel="noreferrer noopener" className="min-w-0 truncate text-indigo-600 hover:underline" title={r.remote_url}>
                {r.slug}
              </a>
              <span className={`rounded px-1 py-px text-[10px] font-medium ${ROLE_STYLE[r.role]}`}>{r.role}</span>
              <button onClick={() => void unlink(r.id)} className="ml-auto rounded p-0.5 text-zinc-500 opacity-0 group-hover:opacity-100 focus-visible:opacity-100 hover:bg-zinc-200" aria-label={`Unlink ${r.slug}`}>
                <XIcon className="size-3" />
              </button>
              <div className="basis-full">
                <CodeGraphSummary repositoryId={r.id} />
              </div>
            </li>
          ))}
        </ul>
      )}
      <div className="flex gap-1">
        <InlineInput value={remote} onChange={setRemote} onEnter={() => void link()} placeholder="git remote URL" aria-label="Repository remote URL" className="flex-1" />
        <select aria-label="Role" value={role} onChange={(e) => setRole(e.target.value as typeof role)} className="h-7 rounded-md border border-zinc-200 bg-white px-1 text-[12px]">
          <option value="primary">primary</option>
          <option value="dependency">dependency</option>
          <option value="docs">docs</option>
        </select>
        <button onClick={() => void link()} disabled={!remote.trim() || busy} className="h-7 rounded-md bg-zinc-900 px-2 text-[12px] font-medium text-white disabled:opacity-40">
          Link
        </button>
      </div>
    </section>
  );
}
