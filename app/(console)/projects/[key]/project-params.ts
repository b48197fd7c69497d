import type { Metadata } from 'next';

/** The props of a page under /projects/[key]. */
export type ProjectPageProps = { params: Promise<{ key: string }> };

/** The project key in the URL, as the tools spell it (upper case). */
export async function projectKeyOf(params: ProjectPageProps['params']): Promise<string> {
  return decodeURIComponent((await params).key).toUpperCase();
}

/** generateMetadata for a project's room: "PAY board · Bullpen". */
export function projectRoomTitle(room: string) {
  return async ({ params }: ProjectPageProps): Promise<Metadata> => ({ title: `${(await params).key.toUpperCase()} ${room} · Bullpen` });
}
