'use client';

import { useCodeGraph } from '@/lib/console/client/code-graph';
import { timeAgo } from '@/lib/console/format';

/** A repository's code graph under its name: the commit and age of the graph, critical files and cycles. */
export function CodeGraphSummary({ repositoryId }: { repositoryId: string }) {
  const q = useCodeGraph(repositoryId);
  if (q.isPending || q.isError) return null;
  if (!q.data) {
    return (
      <p className="text-[11px] text-zinc-500" data-testid="code-graph-none">
        No code graph: run <code className="font-mono">bullpen repo index</code> in a checkout.
      </p>
    );
  }
  const { critical, cycles } = q.data;
  const g = critical.graph;
  return (
    <div className="mt-1 space-y-1 text-[11px] text-zinc-600" data-testid="code-graph">
      <p>
        Code graph of <span className="font-mono">{g.commit_sha ? g.commit_sha.slice(0, 7) : 'an unknown commit'}</span>, indexed {timeAgo(g.indexed_at)}:{' '}
        {g.files} files, {g.imports} imports, {g.cycles} cycle{g.cycles === 1 ? '' : 's'}
      </p>
      {critical.files.length > 0 && (
        <div>
          <p className="font-medium text-zinc-500">Critical files</p>
          <ul data-testid="code-graph-critical">
            {critical.files.map((f) => (
              <li key={f.path} className="flex gap-1">
                <span className="min-w-0 truncate font-mono">{f.path}</span>
                <span className="ml-auto shrink-0 text-zinc-500">{f.dependents} dependents · {f.risk}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
      {cycles.cycles.length > 0 && (
        <div>
          <p className="font-medium text-zinc-500">Cycles</p>
          <ul data-testid="code-graph-cycles">
            {cycles.cycles.map((loop) => (
              <li key={loop.join('>')} className="truncate font-mono" title={loop.join(' → ')}>
                {loop.join(' → ')}
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
