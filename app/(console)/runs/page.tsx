import type { Metadata } from 'next';
import { RunsView } from '@/components/runs-view';
import { requireSession } from '@/lib/console/auth';

export const metadata: Metadata = { title: 'Runs · Bullpen' };

export default async function RunsPage() {
  await requireSession();
  return <RunsView />;
}
