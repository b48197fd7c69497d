'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useActors } from '@/lib/console/client/hooks';
import { writeTool } from '@/lib/console/client/mutations';
import { threadKey, useThread, type ThreadObject } from '@/lib/console/client/threads';
import { useToast } from '@/lib/console/client/toast';
import { useNow } from '@/lib/console/client/use-now';

import type { TaskComment } from '@/lib/console/types';
import type { CommentAddOutput, CommentQueryOutput } from '@/lib/core/comments';
import { ActorAvatar } from './actor-avatar';
import { useMe } from './console-providers';
import { CommentIcon } from './icons';
import { Markdown } from './markdown';
import { TimeAgo } from './time-ago';

/**
 * A thread's comments, oldest first; replies are indented under their parent. A note (recorded
 * with a move) is marked as one; a log line is one compact monospaced row.
 */
export function CommentItems({ comments, now }: { comments: TaskComment[]; now: number }) {
  return (
    <ul className="space-y-3">
      {comments.map((c) =>
        c.kind === 'log' ? (
          <li key={c.id} className="flex items-baseline gap-2 font-mono text-[11px] leading-snug text-zinc-600" data-testid="comment" data-kind="log">
            <span className="shrink-0 text-zinc-500"><TimeAgo at={c.created_at} now={now} /></span>
            <span className="shrink-0 text-zinc-500">{c.author}</span>
            <span className="min-w-0 flex-1 break-words whitespace-pre-wrap text-zinc-800">{c.body}</span>
            {c.tags.length > 0 && <span className="shrink-0 text-zinc-500">[{c.tags.join(', ')}]</span>}
          </li>
        ) : (
        <li key={c.id} className={`flex gap-2.5 ${c.parent_comment_id ? 'ml-8' : ''} ${c.kind === 'note' ? 'rounded-md border-l-2 border-amber-300 bg-amber-50/60 py-1 pr-1 pl-2' : ''}`} data-testid="comment" data-kind={c.kind}>
          <ActorAvatar name={c.author} kind={c.author_kind} size="sm" />
          <div className="min-w-0 flex-1">
            <p className="text-[12px]">
              <span className="font-medium text-zinc-800">{c.author}</span>
              {c.kind === 'note' && <span className="ml-1.5 rounded bg-amber-100 px-1 text-[10px] font-medium text-amber-800 uppercase">note</span>}
              {c.tags.map((tag) => (
                <span key={tag} className="ml-1 rounded bg-zinc-100 px-1 text-[10px] text-zinc-600">{tag}</span>
              ))}
              <span className="ml-1.5 text-zinc-500"><TimeAgo at={c.created_at} now={now} /></span>
            </p>
            <Markdown text={c.body} className="mt-0.5" />
          </div>
        </li>
        ),
      )}
    </ul>
  );
}

/** The box under a thread: ⌘/Ctrl+Enter or the button sends; a refusal is toasted and the draft stays. */
export function CommentComposer({ onSend, placeholder, spaced }: { onSend: (body: string) => Promise<unknown>; placeholder: string; spaced: boolean }) {
  const me = useMe();
  const actors = useActors();
  const toast = useToast();
  const [draft, setDraft] = useState('');
  const [busy, setBusy] = useState(false);
  const send = async () => {
    if (!draft.trim() || busy) return;
    setBusy(true);
    try {
      await onSend(draft);
      setDraft('');
    } catch (err) {
      toast.error(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className={`flex gap-2.5 ${spaced ? 'mt-4' : ''}`}>
      <ActorAvatar name={actors.byId.get(me.actor_id)?.display_name ?? me.display_name} kind="human" size="sm" />
      <div className="flex-1">
        <textarea
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) void send();
          }}
          rows={2}
          placeholder={placeholder}
          aria-label="Comment"
          data-testid="comment-input"
          className="w-full rounded-md border border-zinc-200 px-2.5 py-2 text-[13px] placeholder:text-zinc-400 focus:border-indigo-400 focus:outline-none"
        />
        <div className="mt-1.5 flex items-center justify-end gap-2">
          <span className="text-[11px] text-zinc-500">⌘/Ctrl + Enter</span>
          <button onClick={() => void send()} disabled={!draft.trim() || busy} data-testid="comment-send" className="inline-flex h-7 items-center gap-1 rounded-md bg-zinc-900 px-2.5 text-[12px] font-medium text-white hover:bg-zinc-800 disabled:opacity-40">
            <CommentIcon className="size-3.5" /> Comment
          </button>
        </div>
      </div>
    </div>
  );
}

/** The live thread of a decision, note or handoff, with a box to add to it. */
export function ObjectThread({ objectType, objectId }: { objectType: ThreadObject; objectId: string }) {
  const qc = useQueryClient();
  const now = useNow(30_000);
  const thread = useThread(objectType, objectId);
  const comments = thread.data?.comments ?? [];
  const onSend = async (body: string) => {
    // the answer carries the comment: it joins the thread now, and the live event's re-read confirms it
    const { comment } = await writeTool<CommentAddOutput>('comment_add', { object_type: objectType, object_id: objectId, body });
    qc.setQueryData<CommentQueryOutput>(threadKey(objectType, objectId), (t) =>
      t && !t.comments.some((c) => c.id === comment.id) ? { ...t, comments: [...t.comments, comment] } : t,
    );
  };
  return (
    <div data-testid="thread" className="mt-3 border-t border-zinc-100 pt-3">
      <p className="mb-2 text-[11px] font-semibold tracking-wide text-zinc-500 uppercase">
        Discussion{comments.length ? ` (${comments.length})` : ''}
      </p>
      {thread.isPending ? (
        <p className="text-[12px] text-zinc-500">Loading the thread…</p>
      ) : (
        <>
          {comments.length === 0 && <p className="text-[12px] text-zinc-500" data-testid="thread-empty">No comments yet. Agents add to this thread with comment_add.</p>}
          <CommentItems comments={comments} now={now} />
        </>
      )}
      <CommentComposer onSend={onSend} placeholder={`Comment on this ${objectType} — agents read it with comment_query`} spaced={comments.length > 0} />
    </div>
  );
}
