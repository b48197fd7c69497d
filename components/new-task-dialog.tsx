'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { placeRow } from '@/lib/console/client/cache';
import { useActors } from '@/lib/console/client/hooks';
import { writeTool } from '@/lib/console/client/mutations';
import type { TaskFull } from '@/lib/console/types';
import { useMe } from './console-providers';
import { Field, FormActions, ModalForm, PriorityOptions, SelectField, fieldCls, fieldLabelCls, useSubmitting } from './form-parts';
import { TaskPicker, type PickedTask } from './task-picker';
import { useToast } from '@/lib/console/client/toast';

const field = fieldCls;

/** The new-task form: title, description, status, priority, assignee, due date, labels, checklist, dependencies, parent. */
export function NewTaskDialog({ project, onClose, onCreated }: { project: { id: string; key: string; title: string }; onClose: () => void; onCreated: (ref: string) => void }) {
  const qc = useQueryClient();
  const toast = useToast();
  const me = useMe();
  const actors = useActors();
  const [title, setTitle] = useState('');
  const [body, setBody] = useState('');
  const [status, setStatus] = useState<'todo' | 'backlog'>('todo');
  const [priority, setPriority] = useState(2);
  const [assignee, setAssignee] = useState('');
  const [due, setDue] = useState('');
  const [labels, setLabels] = useState('');
  const [criteria, setCriteria] = useState('');
  const [deps, setDeps] = useState<PickedTask[]>([]);
  const [parent, setParent] = useState<PickedTask[]>([]);
  const { busy, submitter } = useSubmitting();
  const titleRef = useRef<HTMLInputElement>(null);

  const close = useRef(onClose);
  close.current = onClose;
  // focus the title once, when the dialog opens (not on every re-render of the board behind it)
  useEffect(() => {
    titleRef.current?.focus();
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && close.current();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const submit = submitter(title.trim(), async () => {
    const res = await writeTool<{ task: TaskFull; ref: string }>('task_create', {
      project_id: project.id,
      title: title.trim(),
      ...(body.trim() ? { body } : {}),
      status,
      priority,
      ...(assignee ? { assignee_actor_id: assignee } : {}),
      ...(due ? { due_on: due } : {}),
      ...(labels.trim() ? { labels: [...new Set(labels.split(',').map((l) => l.trim()).filter(Boolean))] } : {}),
      ...(criteria.trim() ? { acceptance_criteria: criteria.split('\n').map((c) => c.trim()).filter(Boolean) } : {}),
      ...(deps.length ? { depends_on: deps.map((d) => d.id) } : {}),
      ...(parent[0] ? { parent_task_id: parent[0].id } : {}),
    });
    placeRow(qc, res.task);
    toast.success(`Created ${res.ref}`, res.task.open_blockers ? `waits on ${res.task.open_blockers} task(s) before it is ready` : undefined);
    onCreated(res.ref);
  });

  return (
    <ModalForm
      label="New task"
      testId="new-task-dialog"
      top="pt-[8vh]"
      className="flex max-h-[84vh] w-[640px] flex-col"
      onClose={onClose}
      onSubmit={submit}
      onKeyDown={(e) => {
        if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) void submit();
      }}
      heading={
        <>
          <span className="rounded bg-zinc-100 px-1.5 font-mono text-[11px] text-zinc-600">{project.key}</span>
          <span className="text-[13px] text-zinc-500">New task</span>
        </>
      }
    >
      <div className="min-h-0 space-y-3 overflow-y-auto px-4 py-3">
        <input
          ref={titleRef}
          value={title}
          onChange={(e) => setTitle(e.target.value)}
          placeholder="Task title"
          aria-label="Title"
          name="title"
          maxLength={500}
          className="w-full border-0 p-0 text-[16px] font-semibold placeholder:text-zinc-300 focus:outline-none"
        />
        <textarea
          value={body}
          onChange={(e) => setBody(e.target.value)}
          placeholder="Description (Markdown)"
          aria-label="Description"
          rows={4}
          className={`${field} py-2`}
        />
        <div className="grid grid-cols-4 gap-2">
          <SelectField label="Status" value={status} onChange={(v) => setStatus(v as 'todo' | 'backlog')}>
            <option value="todo">Todo</option>
            <option value="backlog">Backlog</option>
          </SelectField>
          <SelectField label="Priority" value={priority} onChange={(v) => setPriority(Number(v))}>
            <PriorityOptions />
          </SelectField>
          <SelectField label="Assignee" value={assignee} onChange={setAssignee}>
            <option value="">Unassigned</option>
            <option value={me.actor_id}>Me</option>
            {(actors.data ?? []).filter((a) => a.id !== me.actor_id).map((a) => (
              <option key={a.id} value={a.id}>
                {a.display_name} {a.kind === 'agent' ? '(agent)' : ''}
              </option>
            ))}
          </SelectField>
          <Field label="Due">
            <input type="date" aria-label="Due date" value={due} onChange={(e) => setDue(e.target.value)} className={`${field} h-8`} />
          </Field>
        </div>
        <Field label="Labels">
          <input value={labels} onChange={(e) => setLabels(e.target.value)} placeholder="backend, api (comma separated)" aria-label="Labels" className={`${field} h-8`} />
        </Field>
        <Field label="Acceptance criteria — one per line; all must be met before Done">
          <textarea
            value={criteria}
            onChange={(e) => setCriteria(e.target.value)}
            placeholder={'tests pass\ndocs updated'}
            aria-label="Acceptance criteria"
            rows={2}
            className={`${field} py-2`}
          />
        </Field>
        <div>
          <span className={fieldLabelCls}>Depends on — ready only once these are done</span>
          <TaskPicker projectId={project.id} value={deps} onChange={setDeps} testId="depends-on-input" />
        </div>
        <div>
          <span className={fieldLabelCls}>Parent task (makes this a subtask)</span>
          <TaskPicker projectId={project.id} value={parent} onChange={setParent} multiple={false} placeholder="Optional" />
        </div>
      </div>
      <FormActions
        className="border-t border-zinc-100 px-4 py-2.5"
        hint="⌘/Ctrl + Enter to create"
        onCancel={onClose}
        disabled={!title.trim() || busy}
        testId="create-task"
        submitLabel={busy ? 'Creating…' : 'Create task'}
      />
    </ModalForm>
  );
}
