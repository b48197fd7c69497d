'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useRouter, useSearchParams } from 'next/navigation';
import { useState } from 'react';
import { ToolFailure } from '@/lib/console/client/api';
import { useProjects } from '@/lib/console/client/hooks';
import { useSkills } from '@/lib/console/client/memory';
import { writeTool } from '@/lib/console/client/mutations';
import { useToast } from '@/lib/console/client/toast';
import type { SkillRow, SkillUpsertOutput } from '@/lib/console/types';
import { FormActions, fieldCls } from './form-parts';
import { AddButton } from './page-parts';
import { AlertIcon } from './icons';
import { Markdown } from './markdown';
import { Skeleton } from './skeleton';

const field = fieldCls;

type Draft = { slug: string; name: string; description: string; body: string; tags: string; base: number | null };

/**
 * Edits a skill with the version it was read at (the draft is taken once, when editing starts; a
 * live update of the skill meanwhile does not replace it): a save while someone else saved a newer version
 * is refused (CONFLICT) and shown, never overwritten; the person reloads theirs or keeps editing.
 */
function SkillEditor({ skill, projectId, onDone }: { skill: SkillRow | null; projectId: string; onDone: (slug: string) => void }) {
  const toast = useToast();
  const qc = useQueryClient();
  const [d, setD] = useState<Draft>(() =>
    skill
      ? { slug: skill.slug, name: skill.name, description: skill.description, body: skill.body ?? '', tags: skill.tags.join(', '), base: skill.version }
      : { slug: '', name: '', description: '', body: '', tags: '', base: null },
  );
  const [conflict, setConflict] = useState<{ current: number } | null>(null);
  const [busy, setBusy] = useState(false);
  const save = async (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    try {
      const res = await writeTool<SkillUpsertOutput>('skill_upsert', {
        slug: d.slug.trim(),
        name: d.name.trim() || d.slug.trim(),
        description: d.description,
        body: d.body,
        tags: [...new Set(d.tags.split(',').map((t) => t.trim()).filter(Boolean))],
        expected_version: d.base ?? 0,
        ...(skill?.project_id ?? projectId ? { project_id: skill?.project_id ?? projectId } : {}),
      });
      toast.success(res.created ? `Created ${res.skill.slug}` : `Saved ${res.skill.slug} v${res.skill.version}`);
      await qc.invalidateQueries({ queryKey: ['memory', 'skill'] });
      onDone(res.skill.slug);
    } catch (err) {
      if (err instanceof ToolFailure && err.error.code === 'CONFLICT') {
        const current = (err.error.details as { current_version?: number } | undefined)?.current_version;
        setConflict({ current: current ?? (d.base ?? 0) + 1 });
      } else toast.error(err);
    } finally {
      setBusy(false);
    }
  };
  const reload = async () => {
    await qc.invalidateQueries({ queryKey: ['memory', 'skill'] });
    onDone(d.slug);
  };
  return (
    <form onSubmit={save} className="space-y-3" data-testid="skill-editor">
      {conflict && (
        <div role="alert" data-testid="skill-conflict" className="flex items-start gap-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-[13px] text-amber-900">
          <AlertIcon className="mt-0.5 size-4 shrink-0" />
          <div className="flex-1">
            <p className="font-medium">Someone saved version {conflict.current} while you were editing version {d.base}.</p>
            <p className="mt-0.5">Your text is still here and was not saved. Reload theirs, or copy your changes over it first.</p>
            <div className="mt-2 flex gap-2">
              <button type="button" onClick={reload} className="h-7 rounded-md border border-amber-300 bg-white px-2 text-[12px]">Reload their version</button>
              <button type="button" onClick={() => { setD((x) => ({ ...x, base: conflict.current })); setConflict(null); }} className="h-7 rounded-md border border-amber-300 bg-white px-2 text-[12px]">
                Keep mine and save over v{conflict.current}
              </button>
            </div>
          </div>
        </div>
      )}
      <div className="grid grid-cols-2 gap-2">
        <input value={d.slug} onChange={(e) => setD({ ...d, slug: e.target.value })} disabled={!!skill} placeholder="slug (e.g. release-checklist)" aria-label="Slug" className={`${field} h-8 font-mono`} />
        <input value={d.name} onChange={(e) => setD({ ...d, name: e.target.value })} placeholder="Name" aria-label="Name" className={`${field} h-8`} />
      </div>
      <input value={d.description} onChange={(e) => setD({ ...d, description: e.target.value })} placeholder="When to use it (≤ 1 KB)" aria-label="Description" maxLength={1024} className={`${field} h-8`} />
      <textarea value={d.body} onChange={(e) => setD({ ...d, body: e.target.value })} placeholder="The playbook (Markdown, ≤ 64 KB)" aria-label="Body" rows={16} className={`${field} py-2 font-mono text-[12px]`} />
      <input value={d.tags} onChange={(e) => setD({ ...d, tags: e.target.value })} placeholder="tags, comma-separated" aria-label="Tags" className={`${field} h-8`} />
      <FormActions onCancel={() => onDone(skill?.slug ?? '')} disabled={busy || !d.slug.trim() || !d.description.trim() || !d.body.trim()} testId="skill-save" submitLabel="Save" />
    </form>
  );
}

/** Skills: the playbook shelf. List, read, edit; a version conflict is shown, never overwritten. */
export function SkillsView() {
  const router = useRouter();
  const params = useSearchParams();
  const projects = useProjects();
  const [project, setProject] = useState('');
  const [archived, setArchived] = useState(false);
  const selected = params.get('slug');
  const [editing, setEditing] = useState<'new' | 'edit' | null>(null);
  const list = useSkills({ project_id: project || undefined, status: archived ? 'archived' : 'active' });
  const skills = list.data?.skills ?? [];
  const skill = skills.find((s) => s.slug === selected) ?? null;
  const select = (slug: string) => router.replace(slug ? `/skills?slug=${encodeURIComponent(slug)}` : '/skills');

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <header className="flex h-12 shrink-0 items-center gap-2 border-b border-zinc-200 px-4">
        <h1 className="text-[13px] font-semibold">Skills</h1>
        <div className="ml-auto flex items-center gap-2">
          <label className="flex items-center gap-1 text-[12px] text-zinc-600">
            <input type="checkbox" checked={archived} onChange={(e) => setArchived(e.target.checked)} /> Archived
          </label>
          <select aria-label="Project" value={project} onChange={(e) => setProject(e.target.value)} className="h-7 rounded-md border border-zinc-200 bg-white px-2 text-[12px]">
            <option value="">Workspace library</option>
            {projects.data?.map((p) => <option key={p.id} value={p.id}>{p.key} · {p.title}</option>)}
          </select>
          <AddButton onClick={() => setEditing('new')}>New skill</AddButton>
        </div>
      </header>
      <div className="flex min-h-0 flex-1">
        <aside className="w-72 shrink-0 overflow-y-auto border-r border-zinc-200 p-2">
          {list.isPending && [0, 1, 2].map((i) => <Skeleton key={i} className="m-2 h-8" />)}
          {list.data && skills.length === 0 && (
            <div className="m-2 rounded-lg border border-dashed border-zinc-300 p-3 text-[12px] text-zinc-600" data-testid="skills-empty">
              <p className="font-medium text-zinc-800">No skills yet.</p>
              <p className="mt-1">Agents write playbooks for recurring work with <code className="rounded bg-zinc-100 px-1">skill_upsert</code> (slug, description, body) and follow them with <code className="rounded bg-zinc-100 px-1">skill_get</code>. <code className="rounded bg-zinc-100 px-1">bullpen skills sync</code> puts them on disk as SKILL.md files.</p>
            </div>
          )}
          <ul className="space-y-0.5" data-testid="skills">
            {skills.map((s) => (
              <li key={s.id}>
                <button onClick={() => { setEditing(null); select(s.slug); }} className={`w-full rounded-md px-2 py-1.5 text-left ${selected === s.slug ? 'bg-zinc-100' : 'hover:bg-zinc-50'}`}>
                  <span className="flex items-center gap-1.5">
                    <span className="truncate font-mono text-[12px] font-medium">{s.slug}</span>
                    {s.scope === 'project' && <span className="rounded bg-indigo-50 px-1 text-[10px] text-indigo-700">{s.project_key}</span>}
                    <span className="ml-auto text-[10px] text-zinc-500">v{s.version}</span>
                  </span>
                  <span className="block truncate text-[11px] text-zinc-500">{s.description}</span>
                </button>
              </li>
            ))}
          </ul>
        </aside>
        <section className="min-w-0 flex-1 overflow-y-auto p-5">
          {editing === 'new' && <SkillEditor key="new" skill={null} projectId={project} onDone={(slug) => { setEditing(null); select(slug); }} />}
          {editing === 'edit' && skill && <SkillEditor key={skill.id} skill={skill} projectId={project} onDone={(slug) => { setEditing(null); select(slug); }} />}
          {!editing && skill && (
            <article data-testid="skill-detail">
              <div className="flex items-start gap-2">
                <div className="min-w-0 flex-1">
                  <h2 className="text-[16px] font-semibold">{skill.name}</h2>
                  <p className="text-[12px] text-zinc-500">
                    <span className="font-mono">{skill.slug}</span> · v{skill.version} · {skill.scope === 'project' ? `project ${skill.project_key}` : 'workspace'}
                    {skill.tags.length > 0 && ` · ${skill.tags.map((t) => `#${t}`).join(' ')}`}
                  </p>
                  <p className="mt-1 text-[13px] text-zinc-700">{skill.description}</p>
                </div>
                <button onClick={() => setEditing('edit')} className="h-7 rounded-md border border-zinc-200 px-2.5 text-[12px] hover:bg-zinc-50" data-testid="skill-edit">Edit</button>
              </div>
              <div className="mt-4 border-t border-zinc-100 pt-4 text-[13px]">
                <Markdown text={skill.body ?? ''} />
              </div>
            </article>
          )}
          {!editing && !skill && skills.length > 0 && <p className="text-[13px] text-zinc-500">Pick a skill to read it.</p>}
        </section>
      </div>
    </div>
  );
}
