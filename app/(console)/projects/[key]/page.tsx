import type { Metadata } from 'next';
import { ProjectBoard } from '@/components/board';
import { requireSession } from '@/lib/console/auth';

export async function generateMetadata({ params }: { params: Promise<{ key: string }> }): Promise<Metadata> {
  return { title: `${(await params).key.toUpperCase()} board · Bullpen` };
}

export default async function BoardPage({ params }: { params: Promise<{ key: string }> }) {
  await requireSession();
  const { key } = await params;
  return <ProjectBoard projectKey={decodeURIComponent(key).toUpperCase()} />;
}
