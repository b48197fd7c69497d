import { ProjectBoard } from '@/components/board';
import { requireSession } from '@/lib/console/auth';
import { projectKeyOf, projectRoomTitle, type ProjectPageProps } from './project-params';

export const generateMetadata = projectRoomTitle('board');

export default async function BoardPage({ params }: ProjectPageProps) {
  await requireSession();
  return <ProjectBoard projectKey={await projectKeyOf(params)} />;
}
