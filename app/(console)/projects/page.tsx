import type { Metadata } from 'next';
import { ProjectsView } from '@/components/projects-view';
import { requireSession } from '@/lib/console/auth';

export const metadata: Metadata = { title: 'Projects · Bullpen' };

export default async function ProjectsPage() {
  await requireSession();
  return <ProjectsView />;
}
