'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useRef, useState, type DragEvent, type ReactNode } from 'react';
import { ToolFailure } from '@/lib/console/client/api';
import { refreshTasks } from '@/lib/console/client/cache';
import { writeTool } from '@/lib/console/client/mutations';
import { useToast } from '@/lib/console/client/toast';
import { bytes } from '@/lib/console/format';
import type { AttachmentRow, CodeRefRow, TaskDetail } from '@/lib/console/types';
import { useMe } from './console-providers';
import { InlineInput } from './form-parts';
import { CheckIcon, FileIcon, LinkIcon, PlusIcon, XIcon } from './icons';
import { TimeAgo } from './time-ago';

const PR_BADGE: Record<string, string> = {
  open: 'bg-emerald-50 text-emerald-700 ring-emerald-200',
  draft: 'bg-zinc-100 text-zinc-600 ring-zinc-200',
  merged: 'bg-violet-50 text-violet-700 ring-violet-200',
  closed: 'bg-red-50 text-red-700 ring-red-200',
};

function GitIcon({ className = 'size-3.5' }: { className?: string }) {
  return (
    <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={2} strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" className={className}>
      <circle cx="6" cy="6" r="2.5" />
      <circle cx="6" cy="18" r="2.5" />
      <circle cx="18" cy="8" r="2.5" />
      <path d="M6 8.5v7M18 10.5c0 4-6 3-10.5 6" />
    </svg>
  );
}

/**
 * Uploads files to a task through POST /api/files (stored, then attached with attach_add under the
 * signed-in human's claims). Over the size limit the server answers 413 with the limit in the message.
 */
export function useTaskUpload(taskId: string) {
  const qc = useQueryClient();
  const toast = useToast();
  const [busy, setBusy] = useState(0);
  const upload = useCallback(
    async (files: File[]) => {
      for (const file of files) {
        setBusy((n) => n + 1);
        try {
          const res = await fetch(`/api/files?object_type=task&object_id=${encodeURIComponent(taskId)}&filename=${encodeURIComponent(file.name)}`, {
            method: 'POST',
            headers: { 'content-type': file.type || 'application/octet-stream' },
            body: file,
          });
          const env = (await res.json().catch(() => null)) as { ok: boolean; error?: ToolFailure['error'] } | null;
          if (!env?.ok) throw new ToolFailure(env?.error ?? { code: 'INTERNAL', message: `upload failed (${res.status})`, hint: 'try again', retryable: true });
          toast.success(`Attached ${file.name}`);
        } catch (err) {
          toast.error(err);
        } finally {
          setBusy((n) => n - 1);
        }
      }
      await refreshTasks(qc, [taskId]);
    },
    [qc, taskId, toast],
  );
  return { upload, busy: busy > 0 };
}

/** Drag-and-drop target for files; `over` while a file hovers. */
export function useFileDrop(onFiles: (files: File[]) => void) {
  const [over, setOver] = useState(false);
  const depth = useRef(0);
  const hasFiles = (e: DragEvent) => Array.from(e.dataTransfer?.types ?? []).includes('Files');
  return {
    over,
    props: {
      onDragEnter: (e: DragEvent) => {
        if (!hasFiles(e)) return;
        e.preventDefault();
        depth.current++;
        setOver(true);
      },
      onDragOver: (e: DragEvent) => {
        if (hasFiles(e)) e.preventDefault();
      },
      onDragLeave: () => {
        depth.current = Math.max(0, depth.current - 1);
        if (depth.current === 0) setOver(false);
      },
      onDrop: (e: DragEvent) => {
        if (!hasFiles(e)) return;
        e.preventDefault();
        depth.current = 0;
        setOver(false);
        const files = Array.from(e.dataTransfer.files ?? []);
        if (files.length) onFiles(files);
      },
    },
  };
}

function CodeRefItem({ r }: { r: CodeRefRow }) {
  const text = (
    <>
      <span className="font-medium text-zinc-800">{r.label}</span>
      {r.title && <span className="truncate text-zinc-600">{r.title}</span>}
    </>
  );
  return (
    <li className="flex items-center gap-2 rounded-md px-1.5 py-1 text-[13px] hover:bg-zinc-50" data-testid="code-ref" data-ref-type={r.ref_type} data-state={r.pr_state ?? ''}>
      <GitIcon className="size-3.5 shrink-0 text-zinc-500" />
      {r.href ? (
        <a href={r.href} target="_blank" rel="noreferrer noopener" className="flex min-w-0 flex-1 items-center gap-1.5 hover:underline">
          {text}
        </a>
      ) : (
        <span className="flex min-w-0 flex-1 items-center gap-1.5">{text}</span>
      )}
      {r.pr_state && (
        <span className={`rounded px-1.5 py-px text-[10px] font-medium capitalize ring-1 ring-inset ${PR_BADGE[r.pr_state]}`} data-testid="pr-state">
          {r.pr_state}
        </span>
      )}
      {r.repository && <span className="shrink-0 font-mono text-[11px] text-zinc-500">{r.repository}</span>}
    </li>
  );
}

function AttachmentItem({ a, canRemove, onRemove, now }: { a: AttachmentRow; canRemove: boolean; onRemove: () => void; now: number }) {
  const href = a.kind === 'file' ? a.download_url : a.url;
  const name = a.title ?? a.filename ?? a.url ?? 'attachment';
  return (
    <li className="group flex items-center gap-2 rounded-md px-1.5 py-1 text-[13px] hover:bg-zinc-50" data-testid="attachment" data-kind={a.kind}>
      {a.kind === 'file' ? <FileIcon className="size-3.5 shrink-0 text-zinc-500" /> : <LinkIcon className="size-3.5 shrink-0 text-zinc-500" />}
      {href ? (
        <a href={href} target="_blank" rel="noreferrer noopener" className="min-w-0 flex-1 truncate text-zinc-800 hover:underline">
          {name}
        </a>
      ) : (
        <span className="min-w-0 flex-1 truncate text-zinc-800">{name}</span>
      )}
      <span className="shrink-0 text-[11px] text-zinc-500">
        {a.size_bytes != null ? `${bytes(a.size_bytes)} · ` : ''}
        {a.created_by ?? 'someone'} · <TimeAgo at={a.created_at} now={now} />
      </span>
      {canRemove && (
        <button onClick={onRemove} className="rounded p-0.5 text-zinc-500 opacity-0 group-hover:opacity-100 focus-visible:opacity-100 hover:bg-zinc-200" aria-label={`Remove ${name}`}>
          <XIcon className="size-3" />
        </button>
      )}
    </li>
  );
}

/**
 * The drawer's provenance: whether the evidence gate is met, the code that delivered the task
 * (PR state badges, links), and its attachments (upload, link, remove).
 */
export function TaskProvenance({
  detail,
  now,
  onRequireEvidence,
  upload,
  section,
}: {
  detail: TaskDetail;
  now: number;
  onRequireEvidence: (on: boolean) => void;
  upload: { upload: (files: File[]) => Promise<void>; busy: boolean };
  section: (props: { title: string; right?: ReactNode; children: ReactNode; testId?: string }) => ReactNode;
}) {
  const t = detail.task;
  const me = useMe();
  const qc = useQueryClient();
  const toast = useToast();
  const fileInput = useRef<HTMLInputElement>(null);
  const [linking, setLinking] = useState(false);
  const [url, setUrl] = useState('');
  const [title, setTitle] = useState('');
  const ev = detail.evidence;

  const addLink = async () => {
    if (!url.trim()) return;
    try {
      await writeTool('attach_add', { object_type: 'task', object_id: t.id, kind: 'link', url: url.trim(), ...(title.trim() ? { title: title.trim() } : {}) });
      setUrl('');
      setTitle('');
      setLinking(false);
      await refreshTasks(qc, [t.id]);
    } catch (err) {
      toast.error(err);
    }
  };
  const remove = async (a: AttachmentRow) => {
    try {
      await writeTool('attach_remove', { attachment_id: a.id });
      await refreshTasks(qc, [t.id]);
    } catch (err) {
      toast.error(err);
    }
  };

  const badge = ev.required ? (
    ev.met ? (
      <span className="inline-flex items-center gap-1 rounded bg-emerald-50 px-1.5 py-px text-[11px] font-medium text-emerald-700" data-testid="evidence-gate" data-met="true">
        <CheckIcon className="size-3" /> Evidence linked
      </span>
    ) : (
      <span className="rounded bg-amber-50 px-1.5 py-px text-[11px] font-medium text-amber-700" data-testid="evidence-gate" data-met="false">
        Evidence required to close
      </span>
    )
  ) : (
    <label className="flex cursor-pointer items-center gap-1.5 text-[12px] text-zinc-500" data-testid="evidence-gate" data-met="n/a">
      <input type="checkbox" checked={false} onChange={() => onRequireEvidence(true)} className="size-3 accent-indigo-600" />
      Require evidence to close
    </label>
  );

  return section({
    title: 'Code & evidence',
    testId: 'drawer-evidence',
    right: badge,
    children: (
      <>
        {ev.required && !ev.met && (
          <p className="mb-2 text-[12px] text-amber-700">
            Done is refused until a commit, PR or attachment proves the work: agents record it with task_code_ref or attach_add; you can attach a file or link below.
          </p>
        )}
        <p className="mb-0.5 text-[11px] font-medium text-zinc-500">Code</p>
        {detail.code_refs.length === 0 ? (
          <p className="mb-2 px-1.5 text-[12px] text-zinc-500">No commit or pull request yet. Agents link them with task_code_ref.</p>
        ) : (
          <ul className="mb-2" data-testid="code-refs">
            {detail.code_refs.map((r) => (
              <CodeRefItem key={r.id} r={r} />
            ))}
          </ul>
        )}
        <div className="mb-0.5 flex items-center gap-2">
          <p className="text-[11px] font-medium text-zinc-500">Attachments</p>
          <div className="ml-auto flex items-center gap-2">
            <button onClick={() => fileInput.current?.click()} disabled={upload.busy} className="inline-flex items-center gap-0.5 text-[12px] text-zinc-500 hover:text-zinc-800 disabled:opacity-50" data-testid="attach-file">
              <PlusIcon className="size-3" /> {upload.busy ? 'Uploading…' : 'File'}
            </button>
            <button onClick={() => setLinking((v) => !v)} className="inline-flex items-center gap-0.5 text-[12px] text-zinc-500 hover:text-zinc-800" data-testid="attach-link">
              <PlusIcon className="size-3" /> Link
            </button>
          </div>
          <input
            ref={fileInput}
            type="file"
            multiple
            hidden
            data-testid="attach-input"
            onChange={(e) => {
              const files = Array.from(e.target.files ?? []);
              e.target.value = '';
              if (files.length) void upload.upload(files);
            }}
          />
        </div>
        {linking && (
          <div className="mb-2 flex gap-1.5">
            <InlineInput autoFocus value={url} onChange={setUrl} onEnter={() => void addLink()} placeholder="https://…" aria-label="Link URL" className="flex-[2]" />
            <InlineInput value={title} onChange={setTitle} onEnter={() => void addLink()} placeholder="Title (optional)" aria-label="Link title" className="flex-1" />
            <button onClick={() => void addLink()} disabled={!url.trim()} className="h-7 rounded-md bg-zinc-900 px-2.5 text-[12px] font-medium text-white disabled:opacity-40">
              Add
            </button>
          </div>
        )}
        {detail.attachments.length === 0 ? (
          <p className="px-1.5 text-[12px] text-zinc-500">Nothing attached. Drop a file anywhere on this drawer, or add a link.</p>
        ) : (
          <ul data-testid="attachments">
            {detail.attachments.map((a) => (
              <AttachmentItem key={a.id} a={a} now={now} canRemove={a.created_by_actor_id === me.actor_id || me.is_owner} onRemove={() => void remove(a)} />
            ))}
          </ul>
        )}
      </>
    ),
  });
}
