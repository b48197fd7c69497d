import type { Metadata } from 'next';
import { InsightsView } from '@/components/insights-view';
import { requireSession } from '@/lib/console/auth';
import type { ProjectInsights } from '@/lib/console/client/insights';
import { runTool } from '@/lib/console/ops';
import { getDb } from '@/lib/db';
import { projectKeyOf, projectMetadata, type ProjectRoute } from '../../../view-page';

export function generateMetadata(route: ProjectRoute): Promise<Metadata> {
  return projectMetadata(route, 'insights');
}

/** The default window's figures come with the page (the same tool, as the signed-in person), so
 * the charts draw on first paint; the view refetches once the live feed is subscribed. */
export default async function InsightsPage(route: ProjectRoute) {
  const session = await requireSession();
  const projectKey = await projectKeyOf(route);
  const env = await runTool({ db: await getDb(), claims: session.claims }, 'project_insights', { project_id: projectKey, days: 30 });
  const initial = env.ok ? (env as unknown as ProjectInsights & { ok: true }) : undefined;
  return <InsightsView projectKey={projectKey} initial={initial} />;
}
