import type { Metadata } from 'next';
import { ProjectBriefView } from '@/components/project-brief';
import { requireSession } from '@/lib/console/auth';

export async function generateMetadata({ params }: { params: Promise<{ key: string }> }): Promise<Metadata> {
  return { title: `${(await params).key.toUpperCase()} brief · Bullpen` };
}

export default async function BriefPage({ params }: { params: Promise<{ key: string }> }) {
  await requireSession();
  const { key } = await params;
  return <ProjectBriefView projectKey={decodeURIComponent(key).toUpperCase()} />;
}
