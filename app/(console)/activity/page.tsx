import type { Metadata } from 'next';
import { ActivityView } from '@/components/activity-view';
import { requireSession } from '@/lib/console/auth';

export const metadata: Metadata = { title: 'Activity · Bullpen' };

export default async function ActivityPage() {
  await requireSession();
  return <ActivityView />;
}
