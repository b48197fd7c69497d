import { exactTime, timeAgo } from '@/lib/console/format';

/**
 * A time as people read it ("3 min ago"), with the exact time on hover and in dateTime for
 * assistive tech and scripts. `now` comes from the caller's useNow, so a list ticks together.
 */
export function TimeAgo({ at, now, prefix, className }: { at: string | null | undefined; now?: number; prefix?: string; className?: string }) {
  if (!at) return <span className={className}>never</span>;
  return (
    <time dateTime={at} title={exactTime(at)} className={className}>
      {prefix}
      {timeAgo(at, now)}
    </time>
  );
}
