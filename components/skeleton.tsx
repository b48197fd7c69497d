/** Loading placeholders that keep the layout still while data arrives. */
export function Skeleton({ className = '' }: { className?: string }) {
  return <div className={`animate-pulse rounded bg-zinc-200/70 ${className}`} />;
}

export function CardSkeleton() {
  return (
    <div className="space-y-2 rounded-md border border-zinc-200 bg-white p-2.5">
      <Skeleton className="h-2.5 w-14" />
      <Skeleton className="h-3 w-full" />
      <Skeleton className="h-3 w-2/3" />
    </div>
  );
}

/** Three placeholder rows stacked, for a list that is loading. */
export function SkeletonRows({ className, gap = 'space-y-2' }: { className: string; gap?: string }) {
  return <div className={gap}>{[0, 1, 2].map((i) => <Skeleton key={i} className={className} />)}</div>;
}
