import type { Metadata } from 'next';
import { Suspense, type ComponentType } from 'react';
import { requireSession } from '@/lib/console/auth';

/** What Next.js passes a page under `/projects/[key]`. */
export type ProjectRoute = { params: Promise<{ key: string }> };

/**
 * A console page that shows one client view: requires a session (redirecting to sign-in without
 * one), then renders `View` inside a Suspense boundary, which a view that reads the URL's query
 * (`useSearchParams`) needs.
 */
export async function ViewPage({ View }: { View: ComponentType }) {
  await requireSession();
  return (
    <Suspense>
      <View />
    </Suspense>
  );
}

/** The title of a project page, naming the project's key and the page: `PAY board · Bullpen`. */
export async function projectMetadata({ params }: ProjectRoute, page: string): Promise<Metadata> {
  return { title: `${(await params).key.toUpperCase()} ${page} · Bullpen` };
}

/**
 * A project page: requires a session, then renders `View` for the project the route names (its
 * key decoded from the URL and upper-cased, as the tools spell it).
 */
export async function ProjectPage({ route, View }: { route: ProjectRoute; View: ComponentType<{ projectKey: string }> }) {
  await requireSession();
  return <View projectKey={await projectKeyOf(route)} />;
}

/** The project key a `/projects/[key]` route names, decoded from the URL and upper-cased as the tools spell it. */
export async function projectKeyOf({ params }: ProjectRoute): Promise<string> {
  return decodeURIComponent((await params).key).toUpperCase();
}
