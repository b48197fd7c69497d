import type { Metadata } from 'next';
import { ActorsView } from '@/components/actors-view';
import { requireSession } from '@/lib/console/auth';

export const metadata: Metadata = { title: 'Agents & people · Bullpen' };

export default async function ActorsPage() {
  await requireSession();
  return <ActorsView />;
}
