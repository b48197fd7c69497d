'use client';

import { useCallback, useMemo, useRef, useState, type ReactNode } from 'react';
import { ToolFailure } from '@/lib/console/client/api';
import { ToastContext, type ToastApi } from '@/lib/console/client/toast';
import { refusalForPeople } from '@/lib/console/refusals';
import { AlertIcon, CheckIcon, XIcon } from './icons';

type Toast = { id: number; tone: 'error' | 'success' | 'info'; title: string; hint?: string; code?: string };
/** Toasts for outcomes; a refusal shows its sentence for people (lib/console/refusals) and its code. */
export function Toaster({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const next = useRef(1);
  const dismiss = useCallback((id: number) => setToasts((t) => t.filter((x) => x.id !== id)), []);
  const push = useCallback(
    (t: Omit<Toast, 'id'>) => {
      const id = next.current++;
      setToasts((list) => [...list.slice(-3), { ...t, id }]);
      window.setTimeout(() => dismiss(id), t.tone === 'error' ? 8000 : 3500);
    },
    [dismiss],
  );
  const api = useMemo<ToastApi>(
    () => ({
      error: (err, fallback = 'Something went wrong') => {
        if (err instanceof ToolFailure) {
          // the envelope's hint is for agents; a person reads the sentence written for them
          const r = refusalForPeople(err.error);
          push({ tone: 'error', title: r.title, hint: r.advice, code: err.error.code });
        }
        else push({ tone: 'error', title: err instanceof Error ? err.message : fallback, hint: 'try again; if it keeps failing, reload the page' });
      },
      success: (title, hint) => push({ tone: 'success', title, hint }),
      info: (title, hint) => push({ tone: 'info', title, hint }),
    }),
    [push],
  );
  return (
    <ToastContext.Provider value={api}>
      {children}
      <div aria-live="polite" className="pointer-events-none fixed right-4 bottom-4 z-[60] flex w-[380px] flex-col gap-2">
        {toasts.map((t) => (
          <div
            key={t.id}
            role={t.tone === 'error' ? 'alert' : 'status'}
            data-testid="toast"
            data-tone={t.tone}
            className="pointer-events-auto flex gap-2.5 rounded-lg border border-zinc-200 bg-white p-3 text-[13px] shadow-lg shadow-zinc-900/10"
          >
            <span className={`mt-0.5 ${t.tone === 'error' ? 'text-red-500' : t.tone === 'success' ? 'text-emerald-500' : 'text-indigo-500'}`}>
              {t.tone === 'error' ? <AlertIcon className="size-4" /> : <CheckIcon className="size-4" />}
            </span>
            <div className="min-w-0 flex-1">
              <p className="font-medium break-words text-zinc-900">{t.title}</p>
              {t.hint && <p className="mt-0.5 break-words text-zinc-500">{t.hint}</p>}
              {t.code && <p className="mt-1 font-mono text-[10px] tracking-wide text-zinc-500">{t.code}</p>}
            </div>
            <button onClick={() => dismiss(t.id)} className="self-start rounded p-0.5 text-zinc-500 hover:bg-zinc-100 hover:text-zinc-600" aria-label="Dismiss">
              <XIcon className="size-3.5" />
            </button>
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}
