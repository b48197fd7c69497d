import type { ReactNode } from 'react';
import type { TaskStatus } from '@/lib/console/types';

/** The status glyph of a column or task: an outline that fills as work advances. */
export function StatusIcon({ status, className = 'size-3.5' }: { status: TaskStatus; className?: string }) {
  const common = { viewBox: '0 0 16 16', className, 'aria-hidden': true } as const;
  switch (status) {
    case 'backlog':
      return <svg {...common}><circle cx="8" cy="8" r="6" fill="none" stroke="#a1a1aa" strokeWidth="1.6" strokeDasharray="2.2 2" /></svg>;
    case 'todo':
      return <svg {...common}><circle cx="8" cy="8" r="6" fill="none" stroke="#71717a" strokeWidth="1.6" /></svg>;
    case 'in_progress':
      return <StatusGlyph {...common} ring="#f59e0b"><path d="M8 4a4 4 0 0 1 0 8z" fill="#f59e0b" /></StatusGlyph>;
    case 'in_review':
      return <StatusGlyph {...common} ring="#6366f1"><path d="M8 4a4 4 0 1 1-4 4h4z" fill="#6366f1" /></StatusGlyph>;
    case 'blocked':
      return <StatusGlyph {...common} ring="#ef4444"><path d="M5 8h6" stroke="#ef4444" strokeWidth="1.8" strokeLinecap="round" /></StatusGlyph>;
    case 'done':
      return <StatusGlyph {...common} disc="#10b981"><path d="m5 8.2 2 2 4-4.2" fill="none" stroke="#fff" strokeWidth="1.7" strokeLinecap="round" strokeLinejoin="round" /></StatusGlyph>;
    case 'failed':
      return <StatusGlyph {...common} disc="#e11d48"><path d="M8 4.5v4.2M8 11h.01" stroke="#fff" strokeWidth="1.8" strokeLinecap="round" /></StatusGlyph>;
    case 'cancelled':
      return <StatusGlyph {...common} disc="#a1a1aa"><path d="m5.6 5.6 4.8 4.8m0-4.8-4.8 4.8" stroke="#fff" strokeWidth="1.6" strokeLinecap="round" /></StatusGlyph>;
    case 'skipped':
      // an arrow stepping over: work deliberately not done
      return <StatusGlyph {...common} disc="#a1a1aa"><path d="M4.8 8h6.4m-2.4-2.6L11.2 8l-2.4 2.6" fill="none" stroke="#fff" strokeWidth="1.6" strokeLinecap="round" strokeLinejoin="round" /></StatusGlyph>;
  }
}

/** A status glyph that is an outlined ring (work under way) or a filled disc (work ended), with its mark inside. */
function StatusGlyph({ ring, disc, children, ...svg }: { ring?: string; disc?: string; children: ReactNode; viewBox: string; className: string; 'aria-hidden': true }) {
  return (
    <svg {...svg}>
      {ring && <circle cx="8" cy="8" r="6" fill="none" stroke={ring} strokeWidth="1.6" />}
      {disc && <circle cx="8" cy="8" r="7" fill={disc} />}
      {children}
    </svg>
  );
}

/** Priority as signal bars (0 urgent … 4 none). */
export function PriorityIcon({ priority, className = 'size-3.5' }: { priority: number; className?: string }) {
  if (priority === 0) {
    return (
      <svg viewBox="0 0 16 16" className={className} aria-hidden="true">
        <rect x="1.5" y="1.5" width="13" height="13" rx="3" fill="#f97316" />
        <path d="M8 4.5v4.5M8 11.3h.01" stroke="#fff" strokeWidth="1.8" strokeLinecap="round" />
      </svg>
    );
  }
  if (priority >= 4) {
    return (
      <svg viewBox="0 0 16 16" className={className} aria-hidden="true">
        <path d="M3 8h2M7 8h2M11 8h2" stroke="#a1a1aa" strokeWidth="1.6" strokeLinecap="round" />
      </svg>
    );
  }
  const filled = 4 - priority; // P1 → 3 bars, P2 → 2, P3 → 1
  return (
    <svg viewBox="0 0 16 16" className={className} aria-hidden="true">
      {[0, 1, 2].map((i) => (
        <rect key={i} x={2 + i * 4.5} y={10 - i * 3.5} width="3" height={4 + i * 3.5} rx="1" fill={i < filled ? '#52525b' : '#d4d4d8'} />
      ))}
    </svg>
  );
}
