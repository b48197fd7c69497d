import type { Metadata } from 'next';
import { ProjectBoard } from '@/components/board';
import { ProjectPage, projectMetadata, type ProjectRoute } from '../../view-page';

export async function generateMetadata(route: ProjectRoute): Promise<Metadata> {
  return projectMetadata(route, 'board');
}

export default function BoardPage(route: ProjectRoute) {
  return <ProjectPage route={route} View={ProjectBoard} />;
}
