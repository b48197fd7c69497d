'use client';

import { useState } from 'react';
import { CheckIcon, CopyIcon } from './icons';

/** Copies text to the clipboard, confirming with a tick. */
export function CopyButton({ text, label = 'Copy', testId }: { text: string; label?: string; testId?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      data-testid={testId}
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
        } catch {
          // clipboard needs a secure context; select-and-copy by hand still works
        }
        setDone(true);
        window.setTimeout(() => setDone(false), 1500);
      }}
      className="inline-flex h-6 items-center gap-1 rounded-md border border-zinc-200 bg-white px-2 text-[11px] font-medium text-zinc-600 hover:bg-zinc-50"
    >
      {done ? <CheckIcon className="size-3 text-emerald-600" /> : <CopyIcon className="size-3" />}
      {done ? 'Copied' : label}
    </button>
  );
}

/** A block of text with its copy button. */
export function CopyBlock({ title, text, testId }: { title: string; text: string; testId?: string }) {
  return (
    <div>
      <div className="mb-1 flex items-center justify-between">
        <span className="text-[12px] font-medium text-zinc-600">{title}</span>
        <CopyButton text={text} testId={testId ? `${testId}-copy` : undefined} />
      </div>
      <pre data-testid={testId} className="overflow-x-auto rounded-md bg-zinc-950 p-3 font-mono text-[11.5px] leading-relaxed whitespace-pre-wrap break-all text-zinc-100">
        {text}
      </pre>
    </div>
  );
}
