'use client';

import Link from 'next/link';
import { useMemo, useState } from 'react';
import { useGuidelines } from '@/lib/console/client/graph';
import { useProjects } from '@/lib/console/client/hooks';
import { ProjectOptions, filterSelectCls } from '../form-parts';
import { Markdown } from '../markdown';
import { EmptyState, ExampleCall } from '../page-parts';
import { SkeletonRows } from '../skeleton';

const inputCls = 'h-7 w-28 rounded-md border border-zinc-200 bg-white px-2 text-[12px] placeholder:text-zinc-400 focus:border-indigo-400 focus:outline-none';

/**
 * The guidelines in force (guidelines_get): pick a project to see its own guidelines first, each
 * saying which shared guideline it overrides (same language, category and title), then the shared
 * ones it keeps; the shared guidelines it shadows are listed struck through beneath. Without a
 * project, the workspace's shared guidelines.
 */
export function GuidelinesView() {
  const projects = useProjects();
  const [project, setProject] = useState('');
  const [language, setLanguage] = useState('');
  const [category, setCategory] = useState('');
  const [open, setOpen] = useState<string | null>(null);
  const filter = { language: language.trim() || undefined, category: category.trim() || undefined };
  const inForce = useGuidelines({ ...filter, project_id: project || undefined });
  const shared = useGuidelines(filter);
  const sharedById = useMemo(() => new Map((shared.data?.guidelines ?? []).map((g) => [g.id, g])), [shared.data]);
  const rows = inForce.data?.guidelines ?? [];
  const shadowed = project ? rows.flatMap((g) => (g.shadows && sharedById.get(g.shadows) ? [{ shared: sharedById.get(g.shadows)!, by: g }] : [])) : [];
  const key = projects.data?.find((p) => p.id === project)?.key;

  return (
    <div className="min-h-0 flex-1 overflow-y-auto px-4 py-5 sm:px-6" data-testid="guidelines-view">
      <div className="mx-auto max-w-3xl">
        <div className="mb-4 flex flex-wrap items-center gap-2">
          <select aria-label="Guidelines for project" value={project} onChange={(e) => setProject(e.target.value)} className={filterSelectCls} data-testid="guidelines-project">
            <ProjectOptions projects={projects.data} none="Shared (workspace)" />
          </select>
          <input aria-label="Language" placeholder="language" value={language} onChange={(e) => setLanguage(e.target.value)} className={inputCls} />
          <input aria-label="Category" placeholder="category" value={category} onChange={(e) => setCategory(e.target.value)} className={inputCls} />
          <p className="text-[12px] text-zinc-500">
            {project ? `What agents working in ${key ?? 'this project'} follow: its own guidelines, then the shared ones it does not override.` : 'Shared guidelines apply in every project that does not override them.'}
          </p>
        </div>
        {inForce.isPending && <SkeletonRows className="h-12" />}
        {inForce.data && rows.length === 0 && (
          <EmptyState title={project ? `No guidelines in force for ${key ?? 'this project'}.` : 'No shared guidelines yet.'} testId="guidelines-empty">
            <p className="mt-2">
              A guideline is a note of kind <code className="rounded bg-zinc-100 px-1">guideline</code> with a language and a category. One without a project is shared; one in a
              project with the same language, category and title overrides it there. Write one with <strong>Write note</strong> (kind guideline), or agents call:
            </p>
            <ExampleCall
              label="Example knowledge_write call for a guideline"
              code={`{"tool": "knowledge_write", "arguments": {"kind": "guideline", "title": "Errors",
  "language": "typescript", "category": "style", "body": "Throw typed errors; never strings."}}`}
            />
          </EmptyState>
        )}
        <ul className="space-y-2" data-testid="guidelines">
          {rows.map((g) => {
            const over = g.shadows ? sharedById.get(g.shadows) : undefined;
            return (
              <li key={g.id} data-testid="guideline" data-scope={g.scope} data-note-id={g.id} className="rounded-lg border border-zinc-200 bg-white">
                <button onClick={() => setOpen((o) => (o === g.id ? null : g.id))} aria-expanded={open === g.id} className="flex w-full items-start gap-2 px-3 py-2 text-left">
                  <span className={`mt-0.5 shrink-0 rounded px-1.5 text-[10px] font-medium uppercase ${g.scope === 'project' ? 'bg-indigo-50 text-indigo-700' : 'bg-zinc-100 text-zinc-600'}`}>
                    {g.scope === 'project' ? g.project_key ?? 'project' : 'shared'}
                  </span>
                  <span className="min-w-0 flex-1">
                    <span className="block truncate text-[13px] font-medium" data-testid="guideline-title">{g.title}</span>
                    <span className="mt-0.5 flex flex-wrap gap-x-2 text-[11px] text-zinc-500">
                      {g.language && <span>{g.language}</span>}
                      {g.category && <span>{g.category}</span>}
                      {g.tags.map((t) => <span key={t}>#{t}</span>)}
                      {g.shadows && (
                        <span className="text-amber-700" data-testid="guideline-shadows">
                          overrides the shared “{over?.title ?? 'guideline'}”
                        </span>
                      )}
                    </span>
                  </span>
                </button>
                {open === g.id && (
                  <div className="border-t border-zinc-100 px-3 py-2 text-[13px]">
                    <Markdown text={g.body} />
                    <Link href={`/knowledge?note=${g.id}`} className="mt-1 inline-block text-[12px] text-indigo-600 hover:underline">
                      Open the note
                    </Link>
                  </div>
                )}
              </li>
            );
          })}
        </ul>
        {shadowed.length > 0 && (
          <section className="mt-6" aria-label="Shadowed shared guidelines" data-testid="guidelines-shadowed">
            <h2 className="mb-2 text-[12px] font-semibold tracking-wide text-zinc-500 uppercase">Overridden here</h2>
            <ul className="space-y-1">
              {shadowed.map(({ shared: s, by }) => (
                <li key={s.id} className="flex flex-wrap items-center gap-2 rounded-md border border-dashed border-zinc-200 px-3 py-1.5 text-[12px] text-zinc-500">
                  <span className="line-through">{s.title}</span>
                  <span>
                    ({[s.language, s.category].filter(Boolean).join(' · ') || 'shared'}) — {key ?? 'this project'}’s “{by.title}” applies instead
                  </span>
                </li>
              ))}
            </ul>
          </section>
        )}
      </div>
    </div>
  );
}
