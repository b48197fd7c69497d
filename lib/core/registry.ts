import { activityTools } from './activity';
import { attachmentTools } from './attachments';
import { commentTools } from './comments';
import { costTools } from './costs';
import { codeGraphTools } from './code-graph';
import { councilTools } from './council';
import { decisionTools } from './decisions';
import { eventTools } from './events';
import { feedbackTools } from './feedback';
import { guideTools } from './guide';
import { graphTools } from './graph';
import { handoffTools } from './handoffs';
import { identityTools } from './identity';
import { insightTools } from './insights';
import { knowledgeTools } from './knowledge';
import { projectTools } from './projects';
import { searchTools } from './search';
import { sourceTools } from './sources';
import { repoTools } from './repos';
import { runTools } from './runs';
import { taskTools } from './tasks';
import type { ToolDef } from './tool';
import { workflowTools } from './workflows';

/** Every tool of the contract, room by room. Surfaces and docs are generated from this list. */
export const registry: readonly ToolDef[] = [
  ...identityTools,
  ...projectTools,
  ...taskTools,
  ...commentTools,
  ...handoffTools,
  ...decisionTools,
  ...knowledgeTools,
  ...graphTools,
  ...searchTools,
  ...activityTools,
  ...attachmentTools,
  ...runTools,
  ...repoTools,
  ...feedbackTools,
  ...insightTools,
  ...councilTools,
  ...costTools,
  ...workflowTools,
  ...codeGraphTools,
  ...eventTools,
  ...sourceTools,
  ...guideTools,
] as readonly ToolDef[];

const byName = new Map(registry.map((t) => [t.name, t]));

export function getTool(name: string): ToolDef | undefined {
  return byName.get(name);
}
