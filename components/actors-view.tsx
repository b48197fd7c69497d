'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { useEffect, useState } from 'react';
import { createAgentAction, inviteHumanAction, mintKeyAction, revokeKeyAction, runToolAction } from '@/lib/console/actions';
import { readActors, viaAction } from '@/lib/console/client/api';
import { keys } from '@/lib/console/client/cache';
import { useLiveChanges } from '@/lib/console/client/live';
import { useNow } from '@/lib/console/client/use-now';
import { shortDate, timeLeft } from '@/lib/console/format';
import type { ActorOverview } from '@/lib/console/types';
import { ActorAvatar } from './actor-avatar';
import { connectSnippets } from '@/lib/mcp/connect';
import { useMe } from './console-providers';
import { CloseButton, FormActions, useSubmitting } from './form-parts';
import { BotIcon, KeyIcon, PlusIcon, UserIcon, XIcon } from './icons';
import { CopyBlock } from './copy-button';
import { Skeleton } from './skeleton';
import { useToast } from '@/lib/console/client/toast';
import { TimeAgo } from './time-ago';

/** Whether a key is past its expiry (a rotated key after its grace period). */
function ended(k: { expires_at: string | null }): boolean {
  return !!k.expires_at && new Date(k.expires_at).getTime() <= Date.now();
}

type NewKey = { display_name: string; api_key: string; mcp_url: string; prefix: string };

/** Agents and people: last seen, open work, current claim, keys; connect agents and invite people. */
export function ActorsView() {
  const me = useMe();
  const { ready } = useLiveChanges();
  const params = useSearchParams();
  const overview = useQuery({ queryKey: keys.overview, queryFn: async () => (await readActors<{ actors: ActorOverview[] }>()).actors, enabled: ready });
  const [dialog, setDialog] = useState<'connect' | 'invite' | null>(params.get('connect') && me.is_owner ? 'connect' : null);
  const [shown, setShown] = useState<NewKey | null>(null);
  const now = useNow(30_000);
  const agents = (overview.data ?? []).filter((a) => a.kind !== 'human');
  const people = (overview.data ?? []).filter((a) => a.kind === 'human');

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <header className="flex h-12 shrink-0 items-center gap-2 border-b border-zinc-200 px-4">
        <h1 className="text-[13px] font-semibold">Agents &amp; people</h1>
        {me.is_owner && (
          <div className="ml-auto flex gap-2">
            <button onClick={() => setDialog('invite')} data-testid="invite-person" className="inline-flex h-7 items-center gap-1 rounded-md border border-zinc-200 px-2.5 text-[12px] font-medium text-zinc-700 hover:bg-zinc-50">
              <UserIcon className="size-3.5" /> Invite a person
            </button>
            <button onClick={() => setDialog('connect')} data-testid="connect-agent" className="inline-flex h-7 items-center gap-1 rounded-md bg-zinc-900 px-2.5 text-[12px] font-medium text-white hover:bg-zinc-800">
              <PlusIcon className="size-3.5" /> Connect an agent
            </button>
          </div>
        )}
      </header>
      <div className="min-h-0 flex-1 space-y-8 overflow-y-auto p-6">
        {shown && <KeyOnce k={shown} onDone={() => setShown(null)} />}
        <section>
          <h2 className="mb-2 flex items-center gap-1.5 text-[12px] font-semibold tracking-wide text-zinc-500 uppercase">
            <BotIcon className="size-3.5" /> Agents
          </h2>
          {overview.isPending ? (
            <Skeleton className="h-16 w-full" />
          ) : agents.length === 0 ? (
            <div className="rounded-lg border border-dashed border-zinc-300 p-6 text-center" data-testid="no-agents">
              <p className="text-[14px] font-semibold">No agents yet — connect one</p>
              <p className="mx-auto mt-1 max-w-md text-[13px] text-zinc-500">
                An agent gets its own API key and reaches this workspace through one MCP URL. It will show up here, claim tasks, and move cards on the board as it works.
              </p>
              {me.is_owner ? (
                <button onClick={() => setDialog('connect')} className="mt-3 inline-flex h-8 items-center gap-1 rounded-md bg-zinc-900 px-3 text-[13px] font-medium text-white hover:bg-zinc-800">
                  <PlusIcon className="size-3.5" /> Connect an agent
                </button>
              ) : (
                <p className="mt-3 text-[12px] text-zinc-500">Ask a workspace owner, or run npx bullpen agent add NAME.</p>
              )}
            </div>
          ) : (
            <ActorTable rows={agents} now={now} onKey={setShown} />
          )}
        </section>
        <section>
          <h2 className="mb-2 flex items-center gap-1.5 text-[12px] font-semibold tracking-wide text-zinc-500 uppercase">
            <UserIcon className="size-3.5" /> People
          </h2>
          {overview.isPending ? <Skeleton className="h-16 w-full" /> : <ActorTable rows={people} now={now} onKey={setShown} />}
        </section>
      </div>
      {dialog === 'connect' && (
        <ConnectDialog
          onClose={() => setDialog(null)}
          onCreated={(k) => {
            setDialog(null);
            setShown(k);
          }}
        />
      )}
      {dialog === 'invite' && <InviteDialog onClose={() => setDialog(null)} />}
    </div>
  );
}

function ActorTable({ rows, now, onKey }: { rows: ActorOverview[]; now: number; onKey: (k: NewKey) => void }) {
  const me = useMe();
  return (
    <div className="overflow-hidden rounded-lg border border-zinc-200">
      <table className="w-full text-left text-[13px]">
        <thead className="bg-zinc-50 text-[11px] font-medium tracking-wide text-zinc-500 uppercase">
          <tr>
            <th className="px-3 py-2 font-medium">Name</th>
            <th className="px-3 py-2 font-medium">Last seen</th>
            <th className="px-3 py-2 font-medium">Open tasks</th>
            {rows[0]?.kind !== 'human' && <th className="px-3 py-2 font-medium">Routing</th>}
            {rows[0]?.kind !== 'human' && <th className="px-3 py-2 font-medium">Load</th>}
            <th className="px-3 py-2 font-medium">Working on</th>
            <th className="px-3 py-2 font-medium">{rows[0]?.kind === 'human' ? 'Access' : 'Keys'}</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-100">
          {rows.map((a) => (
            <tr key={a.id} data-testid="actor-row" data-actor-id={a.id} className="align-top">
              <td className="px-3 py-2.5">
                <div className="flex items-center gap-2">
                  <ActorAvatar name={a.display_name} kind={a.kind} size="md" />
                  <div className="min-w-0">
                    <p className="font-medium text-zinc-900">
                      {a.display_name}
                      {a.id === me.actor_id && <span className="ml-1 text-[11px] font-normal text-zinc-500">(you)</span>}
                      {a.is_owner && <span className="ml-1.5 rounded bg-zinc-100 px-1 text-[10px] font-medium text-zinc-600">owner</span>}
                    </p>
                    <p className="truncate font-mono text-[11px] text-zinc-500">{a.external_ref}</p>
                  </div>
                </div>
              </td>
              <td className="px-3 py-2.5 text-zinc-600"><TimeAgo at={a.last_active_at} now={now} /></td>
              <td className="px-3 py-2.5 tabular-nums text-zinc-600">{a.open_tasks}</td>
              {a.kind !== 'human' && (
                <td className="px-3 py-2.5" data-testid="actor-routing">
                  <RoutingCell actor={a} />
                </td>
              )}
              {a.kind !== 'human' && (
                <td className="px-3 py-2.5 tabular-nums text-zinc-700" data-testid="actor-load" title="Live leases / max_concurrent_tasks">
                  {a.live_leases} / {a.max_concurrent_tasks ?? '∞'}
                </td>
              )}
              <td className="px-3 py-2.5">
                {a.kind !== 'human' && a.leases.length > 0 ? (
                  <LeaseList actor={a} now={now} />
                ) : a.current_claim ? (
                  <Link href={`/projects/${a.current_claim.project_key}?task=${a.current_claim.ref}`} className="group block">
                    <span className="font-mono text-[11px] text-zinc-500">{a.current_claim.ref}</span>{' '}
                    <span className="text-zinc-800 group-hover:underline">{a.current_claim.title}</span>
                    <span className="block text-[11px] text-amber-700">{timeLeft(a.current_claim.lease_expires_at, now)}</span>
                  </Link>
                ) : (
                  <span className="text-zinc-500">—</span>
                )}
              </td>
              <td className="px-3 py-2.5">
                {a.kind === 'human' ? (
                  <span className="text-[12px] text-zinc-500">{a.pending_invites ? `${a.pending_invites} unused sign-in link${a.pending_invites === 1 ? '' : 's'}` : 'Signs in with a link'}</span>
                ) : (
                  <KeyList actor={a} onKey={onKey} />
                )}
              </td>
            </tr>
          ))}
          {rows.length === 0 && (
            <tr>
              <td colSpan={7} className="px-3 py-4 text-center text-[13px] text-zinc-500">
                Nobody here yet.
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}

const STATUS_STYLE: Record<string, string> = {
  active: 'bg-emerald-50 text-emerald-700 ring-emerald-100',
  paused: 'bg-amber-50 text-amber-700 ring-amber-100',
  deactivated: 'bg-zinc-100 text-zinc-500 ring-zinc-200',
};

/** Status, capabilities and model of an agent; owners pause, resume, deactivate and reactivate it here. */
function RoutingCell({ actor }: { actor: ActorOverview }) {
  const me = useMe();
  const qc = useQueryClient();
  const toast = useToast();
  const [confirm, setConfirm] = useState(false);
  const setStatus = async (status: 'active' | 'paused' | 'deactivated') => {
    try {
      const r = await viaAction<{ released_task_ids?: string[] }>(runToolAction('register_actor', { external_ref: actor.external_ref, kind: actor.kind, status }));
      const n = r.released_task_ids?.length ?? 0;
      toast.success(
        `${actor.display_name} is ${status}`,
        status === 'deactivated' ? `its keys stopped; ${n} lease${n === 1 ? '' : 's'} went back to the pool` : status === 'paused' ? 'it takes no new work until resumed' : 'it may take work again',
      );
      await qc.invalidateQueries({ queryKey: keys.overview });
    } catch (err) {
      toast.error(err);
    }
    setConfirm(false);
  };
  // owners set an agent's capabilities, load limit and model (as bullpen agent add --capabilities … does)
  const edit = async () => {
    const caps = window.prompt(`Capabilities of ${actor.display_name} (comma-separated)`, actor.capabilities.join(', '));
    if (caps === null) return;
    const max = window.prompt('Max concurrent tasks (blank: no limit)', actor.max_concurrent_tasks ? String(actor.max_concurrent_tasks) : '');
    if (max === null) return;
    const model = window.prompt('Default model (blank: unset)', actor.default_model ?? '');
    if (model === null) return;
    try {
      await viaAction(
        runToolAction('register_actor', {
          external_ref: actor.external_ref,
          kind: actor.kind,
          capabilities: caps.split(',').map((c) => c.trim()).filter(Boolean),
          max_concurrent_tasks: max.trim() ? Number(max.trim()) : null,
          default_model: model.trim() || null,
        }),
      );
      toast.success(`${actor.display_name} updated`, 'claim-next routes by the new capabilities and limit');
      await qc.invalidateQueries({ queryKey: keys.overview });
    } catch (err) {
      toast.error(err);
    }
  };
  const btn = 'rounded px-1.5 py-0.5 text-[11px] hover:bg-zinc-100';
  return (
    <div className="space-y-1 text-[12px]">
      <span data-testid="actor-status" data-status={actor.status} className={`inline-block rounded px-1.5 text-[10px] font-medium ring-1 ${STATUS_STYLE[actor.status] ?? ''}`}>
        {actor.status}
      </span>
      {actor.capabilities.length > 0 && (
        <div className="flex flex-wrap gap-1" data-testid="actor-capabilities">
          {actor.capabilities.map((c) => (
            <span key={c} className="rounded bg-zinc-100 px-1 font-mono text-[10px] text-zinc-600">{c}</span>
          ))}
        </div>
      )}
      {(actor.default_model || actor.model_provider) && (
        <p data-testid="actor-model" className="text-[11px] text-zinc-500">
          {actor.default_model ?? 'model unset'}
          {actor.model_provider ? ` · ${actor.model_provider}` : ''}
        </p>
      )}
      {me.is_owner && (
        <div className="flex flex-wrap gap-1">
          <button onClick={() => void edit()} data-testid="edit-routing" className={`${btn} text-zinc-600`}>Edit…</button>
          {actor.status === 'active' && (
            <button onClick={() => void setStatus('paused')} data-testid="pause-agent" className={`${btn} text-amber-700`}>Pause</button>
          )}
          {actor.status === 'paused' && (
            <button onClick={() => void setStatus('active')} data-testid="resume-agent" className={`${btn} text-emerald-700`}>Resume</button>
          )}
          {actor.status === 'deactivated' ? (
            <button onClick={() => void setStatus('active')} data-testid="activate-agent" className={`${btn} text-emerald-700`}>Activate</button>
          ) : confirm ? (
            <>
              <button onClick={() => void setStatus('deactivated')} data-testid="confirm-deactivate" className="rounded bg-red-600 px-1.5 py-0.5 text-[11px] font-medium text-white hover:bg-red-700">
                Deactivate
              </button>
              <button onClick={() => setConfirm(false)} className={`${btn} text-zinc-500`}>Keep</button>
            </>
          ) : (
            <button onClick={() => setConfirm(true)} data-testid="deactivate-agent" title="Stops its keys, releases its leases, tells senders of its handoffs" className={`${btn} text-red-600`}>
              Deactivate…
            </button>
          )}
        </div>
      )}
    </div>
  );
}

/** The leases an agent holds now; a person may recover each (task_recover to todo, with a note). */
function LeaseList({ actor, now }: { actor: ActorOverview; now: number }) {
  const qc = useQueryClient();
  const toast = useToast();
  const recover = async (taskId: string, ref: string) => {
    const note = window.prompt(`Why recover ${ref} from ${actor.display_name}? (kept in the task's thread)`, `Recovered from ${actor.display_name} on the agents page`);
    if (!note) return;
    try {
      await viaAction(runToolAction('task_recover', { task_id: taskId, to_status: 'todo', note }));
      toast.success(`${ref} recovered`, 'back in the pool as todo; the holder was told');
      await qc.invalidateQueries({ queryKey: keys.overview });
    } catch (err) {
      toast.error(err);
    }
  };
  return (
    <ul className="space-y-1" data-testid="actor-leases">
      {actor.leases.map((l) => (
        <li key={l.task_id} data-testid="actor-lease" className="flex items-baseline gap-1.5">
          <Link href={`/projects/${l.project_key}?task=${l.ref}`} className="group min-w-0">
            <span className="font-mono text-[11px] text-zinc-500">{l.ref}</span>{' '}
            <span className="text-zinc-800 group-hover:underline">{l.title}</span>
            <span className="block text-[11px] text-amber-700">{timeLeft(l.lease_expires_at, now)}</span>
          </Link>
          {/* the console is for people, who may recover any lease */}
          <button onClick={() => void recover(l.task_id, l.ref)} data-testid="recover-lease" className="ml-auto shrink-0 rounded px-1.5 py-0.5 text-[11px] text-red-600 hover:bg-red-50">
            Recover
          </button>
        </li>
      ))}
    </ul>
  );
}

function KeyList({ actor, onKey }: { actor: ActorOverview; onKey: (k: NewKey) => void }) {
  const me = useMe();
  const qc = useQueryClient();
  const toast = useToast();
  const [confirm, setConfirm] = useState<string | null>(null);
  const revoke = async (id: string) => {
    try {
      await viaAction(revokeKeyAction({ key_id: id }));
      toast.success('Key revoked', 'the agent’s next call with it is refused (401)');
      await qc.invalidateQueries({ queryKey: keys.overview });
    } catch (err) {
      toast.error(err);
    }
    setConfirm(null);
  };
  const mint = async () => {
    try {
      const r = await viaAction<NewKey>(mintKeyAction({ actor_id: actor.id }));
      onKey(r);
      await qc.invalidateQueries({ queryKey: keys.overview });
    } catch (err) {
      toast.error(err);
    }
  };
  return (
    <ul className="space-y-1">
      {actor.keys.map((k) => (
        <li key={k.id} data-testid="api-key" data-key-prefix={k.prefix} data-revoked={k.revoked_at ? 'true' : 'false'} className="flex flex-wrap items-center gap-2 text-[12px]">
          <KeyIcon className={`size-3 ${k.revoked_at || ended(k) ? 'text-zinc-300' : 'text-zinc-500'}`} />
          <span className={`font-mono ${k.revoked_at || ended(k) ? 'text-zinc-400 line-through' : 'text-zinc-700'}`}>{k.prefix}…</span>
          <span data-testid="key-scopes" title="What this key may call" className="rounded bg-zinc-100 px-1 py-px font-mono text-[10px] text-zinc-600">
            {k.scopes ? k.scopes.join(', ') : 'all tools'}
          </span>
          <span data-testid="key-expiry" className="text-zinc-500">
            {k.revoked_at
              ? 'revoked'
              : ended(k)
                ? <>expired <TimeAgo at={k.expires_at} /></>
                : `${k.replaced_by ? 'rotated, works until' : k.expires_at ? 'expires' : 'no expiry'}${k.expires_at ? ` ${shortDate(k.expires_at)}` : ''}`}
          </span>
          <span className="text-zinc-500">{k.last_used_at ? <TimeAgo at={k.last_used_at} prefix="used " /> : 'never used'}</span>
          {!k.revoked_at && !ended(k) && me.is_owner && (
            confirm === k.id ? (
              <span className="ml-auto flex gap-1">
                <button onClick={() => void revoke(k.id)} data-testid="confirm-revoke" className="rounded bg-red-600 px-1.5 py-0.5 text-[11px] font-medium text-white hover:bg-red-700">
                  Revoke
                </button>
                <button onClick={() => setConfirm(null)} className="rounded px-1 text-[11px] text-zinc-500 hover:bg-zinc-100">
                  Keep
                </button>
              </span>
            ) : (
              <button onClick={() => setConfirm(k.id)} data-testid="revoke-key" className="ml-auto rounded px-1.5 py-0.5 text-[11px] text-red-600 hover:bg-red-50">
                Revoke…
              </button>
            )
          )}
        </li>
      ))}
      {me.is_owner && (
        <li>
          <button onClick={() => void mint()} className="text-[11px] text-zinc-500 hover:text-zinc-800">
            + New key
          </button>
        </li>
      )}
    </ul>
  );
}

function KeyOnce({ k, onDone }: { k: NewKey; onDone: () => void }) {
  const s = connectSnippets(k.mcp_url, k.api_key);
  return (
    <section data-testid="key-once" className="rounded-lg border border-amber-300 bg-amber-50/60 p-4">
      <div className="mb-3 flex items-start gap-2">
        <KeyIcon className="mt-0.5 size-4 text-amber-700" />
        <div>
          <p className="text-[14px] font-semibold text-zinc-900">Key for {k.display_name} — shown once</p>
          <p className="text-[13px] text-zinc-600">Copy it now: only its hash is stored. Lose it, and you mint a new one and revoke this.</p>
        </div>
        <button onClick={onDone} className="ml-auto rounded p-1 text-zinc-500 hover:bg-amber-100" aria-label="I have stored the key">
          <XIcon className="size-4" />
        </button>
      </div>
      <div className="space-y-3">
        <CopyBlock title="API key" text={k.api_key} testId="api-key-value" />
        <CopyBlock title="Claude Code — run in your project" text={s.cli} testId="claude-mcp-add" />
        <CopyBlock title="Or add to .mcp.json" text={s.json} testId="mcp-json" />
      </div>
    </section>
  );
}

function Modal({ title, onClose, children }: { title: string; onClose: () => void; children: React.ReactNode }) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);
  return (
    <div className="fixed inset-0 z-50 flex items-start justify-center bg-zinc-900/25 pt-[12vh]" onMouseDown={onClose}>
      <div role="dialog" aria-modal="true" aria-label={title} onMouseDown={(e) => e.stopPropagation()} className="w-[480px] rounded-xl border border-zinc-200 bg-white p-5 shadow-2xl">
        <div className="mb-3 flex items-center">
          <h2 className="text-[14px] font-semibold">{title}</h2>
          <CloseButton onClose={onClose} />
        </div>
        {children}
      </div>
    </div>
  );
}

function ConnectDialog({ onClose, onCreated }: { onClose: () => void; onCreated: (k: NewKey) => void }) {
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState('');
  const [days, setDays] = useState('');
  const { busy, submitter } = useSubmitting();
  return (
    <Modal title="Connect an agent" onClose={onClose}>
      <form
        onSubmit={submitter(name.trim(), async () => {
          const r = await viaAction<NewKey>(
            createAgentAction({
              name: name.trim(),
              ...(scopes.trim() ? { scopes: scopes.trim() } : {}),
              ...(days.trim() ? { expires_in_days: Number(days) } : {}),
            }),
          );
          await qc.invalidateQueries({ queryKey: keys.overview });
          await qc.invalidateQueries({ queryKey: keys.actors });
          onCreated(r);
        })}
      >
        <p className="mb-3 text-[13px] text-zinc-500">Name it for what it is and where it runs. It gets its own key; its tasks, claims and comments carry this name.</p>
        <input autoFocus value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. claude-backend" aria-label="Agent name" data-testid="agent-name" className="h-8 w-full rounded-md border border-zinc-200 px-2.5 text-[13px] focus:border-indigo-400 focus:outline-none" />
        <div className="mt-3 grid grid-cols-[1fr_110px] gap-2">
          <input value={scopes} onChange={(e) => setScopes(e.target.value)} placeholder="Scopes: all tools (or e.g. tasks:read,comments)" aria-label="Scopes" data-testid="agent-scopes" className="h-8 w-full rounded-md border border-zinc-200 px-2.5 font-mono text-[12px] focus:border-indigo-400 focus:outline-none" />
          <input value={days} onChange={(e) => setDays(e.target.value.replace(/[^0-9]/g, ''))} inputMode="numeric" placeholder="Days (never)" aria-label="Expires after days" data-testid="agent-expires-days" className="h-8 w-full rounded-md border border-zinc-200 px-2.5 text-[12px] focus:border-indigo-400 focus:outline-none" />
        </div>
        <p className="mt-1.5 text-[11px] leading-snug text-zinc-500">
          A scope is a room (reads and writes), a room with <code>:read</code>, or <code>read</code> for every room read-only. Leave both empty for a key that can do everything and never expires.
        </p>
        <FormActions className="mt-4" onCancel={onClose} disabled={!name.trim() || busy} testId="create-agent" submitLabel={busy ? 'Creating…' : 'Create agent and key'} />
      </form>
    </Modal>
  );
}

function InviteDialog({ onClose }: { onClose: () => void }) {
  const qc = useQueryClient();
  const toast = useToast();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [link, setLink] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <Modal title="Invite a person" onClose={onClose}>
      {link ? (
        <div className="space-y-3">
          <p className="text-[13px] text-zinc-600">Send this one-time link. It signs them in once and expires in a day.</p>
          <CopyBlock title="Sign-in link" text={link} testId="invite-link" />
          <div className="flex justify-end">
            <button onClick={onClose} className="h-8 rounded-md bg-zinc-900 px-3 text-[13px] font-medium text-white">
              Done
            </button>
          </div>
        </div>
      ) : (
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            setBusy(true);
            try {
              const r = await viaAction<{ url: string }>(inviteHumanAction({ name: name.trim(), ...(email.trim() ? { email: email.trim() } : {}) }));
              setLink(r.url);
              await qc.invalidateQueries({ queryKey: keys.overview });
            } catch (err) {
              toast.error(err);
            }
            setBusy(false);
          }}
          className="space-y-2"
        >
          <input autoFocus value={name} onChange={(e) => setName(e.target.value)} placeholder="Name" aria-label="Name" className="h-8 w-full rounded-md border border-zinc-200 px-2.5 text-[13px] focus:border-indigo-400 focus:outline-none" />
          <input value={email} onChange={(e) => setEmail(e.target.value)} placeholder="Email (for Supabase sign-in; optional)" aria-label="Email" className="h-8 w-full rounded-md border border-zinc-200 px-2.5 text-[13px] focus:border-indigo-400 focus:outline-none" />
          <div className="flex justify-end gap-2 pt-2">
            <button type="button" onClick={onClose} className="h-8 rounded-md px-3 text-[13px] text-zinc-600 hover:bg-zinc-100">
              Cancel
            </button>
            <button type="submit" disabled={!name.trim() || busy} className="h-8 rounded-md bg-zinc-900 px-3 text-[13px] font-medium text-white disabled:opacity-40">
              Create link
            </button>
          </div>
        </form>
      )}
    </Modal>
  );
}
