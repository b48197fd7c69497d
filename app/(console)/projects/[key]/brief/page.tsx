import { ProjectBriefView } from '@/components/project-brief';
import { requireSession } from '@/lib/console/auth';
import { projectKeyOf, projectRoomTitle, type ProjectPageProps } from '../project-params';

export const generateMetadata = projectRoomTitle('brief');

export default async function BriefPage({ params }: ProjectPageProps) {
  await requireSession();
  return <ProjectBriefView projectKey={await projectKeyOf(params)} />;
}
