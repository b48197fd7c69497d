import type { Metadata } from 'next';
import { ProjectBriefView } from '@/components/project-brief';
import { ProjectPage, projectMetadata, type ProjectRoute } from '../../../view-page';

export async function generateMetadata(route: ProjectRoute): Promise<Metadata> {
  return projectMetadata(route, 'brief');
}

export default function BriefPage(route: ProjectRoute) {
  return <ProjectPage route={route} View={ProjectBriefView} />;
}
