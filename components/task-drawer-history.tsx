import { changePhrase, changeWords } from '@/lib/console/activity-words';
import type { TaskDetail } from '@/lib/console/types';
import { Section } from './task-drawer-parts';
import { TimeAgo } from './time-ago';

/** The task's timeline in words: "Ada moved to Done", "agent ticked the criteria: criteria 2/3 met". */
export function TaskHistory({ detail, now }: { detail: TaskDetail; now: number }) {
  return (
    <Section title="Activity" testId="drawer-activity">
      <ol className="relative space-y-2.5 border-l border-zinc-200 pl-4">
        {detail.activity.map((a) => {
          const detailText = changeWords(a).detail;
          return (
            <li key={a.seq} className="text-[12px] leading-snug" data-testid="drawer-activity-item" data-verb={a.verb}>
              <span className="absolute -left-[4.5px] mt-1 size-2 rounded-full border border-white bg-zinc-300" />
              <span className="font-medium text-zinc-800">{a.actor ?? 'system'}</span> <span className="text-zinc-600">{changePhrase(a)}</span>
              {detailText && <span className="text-zinc-500"> — {detailText}</span>}
              <TimeAgo at={a.at} now={now} className="ml-1 text-zinc-500" />
            </li>
          );
        })}
      </ol>
    </Section>
  );
}
