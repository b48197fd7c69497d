import { initials } from '@/lib/console/format';
import { BotIcon } from './icons';

type Kind = 'agent' | 'human' | 'service' | null | undefined;

/**
 * An actor's mark. Agents are violet squares with a bot glyph; humans are round, emerald, with
 * initials: the two are never confused on a card.
 */
export function ActorAvatar({ name, kind, size = 'sm' }: { name: string; kind: Kind; size?: 'xs' | 'sm' | 'md' }) {
  const dim = size === 'xs' ? 'size-4 text-[8px]' : size === 'sm' ? 'size-5 text-[9px]' : 'size-7 text-[11px]';
  const label = `${kind === 'human' ? 'Human' : kind === 'agent' ? 'Agent' : 'Service'}: ${name}`;
  if (kind === 'human') {
    return (
      <span role="img" title={label} aria-label={label} data-actor-kind="human" className={`${dim} inline-flex shrink-0 items-center justify-center rounded-full bg-emerald-100 font-semibold text-emerald-800 ring-1 ring-emerald-200`}>
        {initials(name)}
      </span>
    );
  }
  return (
    <span role="img" title={label} aria-label={label} data-actor-kind={kind ?? 'agent'} className={`${dim} inline-flex shrink-0 items-center justify-center rounded-[5px] bg-violet-100 text-violet-700 ring-1 ring-violet-200`}>
      <BotIcon className={size === 'md' ? 'size-4' : 'size-3'} />
    </span>
  );
}
