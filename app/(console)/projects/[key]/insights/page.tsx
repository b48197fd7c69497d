import type { Metadata } from 'next';
import { InsightsView } from '@/components/insights-view';
import { requireSession } from '@/lib/console/auth';

export async function generateMetadata({ params }: { params: Promise<{ key: string }> }): Promise<Metadata> {
  return { title: `${(await params).key.toUpperCase()} insights · Bullpen` };
}

export default async function InsightsPage({ params }: { params: Promise<{ key: string }> }) {
  await requireSession();
  const { key } = await params;
  return <InsightsView projectKey={decodeURIComponent(key).toUpperCase()} />;
}
