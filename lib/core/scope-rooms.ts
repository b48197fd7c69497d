/**
 * What a scoped key may read of the activity log, by room. No import of the registry, so a room's
 * own file (identity.ts) can use it without an import cycle. Scopes are described in scopes.ts.
 */

type Scopes = readonly string[] | null;

/** Whether a key with these scopes may read a room: a whole-room scope, its `:read`, or `read`. */
export function roomReadable(room: string, scopes: Scopes): boolean {
  // `sensitive` is a modifier (scopes.ts): a key scoped to it alone reads every room
  if (!scopes || scopes.every((s) => s === 'sensitive')) return true;
  return scopes.some((s) => s === 'read' || s === room || s === `${room}:read`);
}

/** The room whose read tools show what a verb family's rows carry (a comment's text is the comments room's). */
const VERB_FAMILY_ROOM: Record<string, string> = {
  actor: 'identity',
  attachment: 'attachments',
  budget: 'costs',
  code_graph: 'code_graph',
  code_ref: 'repositories',
  comment: 'comments',
  council: 'council',
  decision: 'decisions',
  feature_request: 'feedback',
  handoff: 'handoffs',
  inbox: 'handoffs',
  knowledge: 'knowledge',
  link: 'knowledge',
  note: 'knowledge',
  notification: 'handoffs',
  pr: 'repositories',
  project: 'projects',
  repo: 'repositories',
  review: 'handoffs',
  run: 'runs',
  skill: 'knowledge',
  task: 'tasks',
  workflow: 'workflows',
  webhook: 'events',
};

/** The room an object of a type is read through. */
const OBJECT_TYPE_ROOM: Record<string, string> = {
  actor: 'identity',
  attachment: 'attachments',
  budget: 'costs',
  code_ref: 'repositories',
  council: 'council',
  decision: 'decisions',
  event: 'events',
  feature_request: 'feedback',
  handoff: 'handoffs',
  note: 'knowledge',
  project: 'projects',
  repository: 'repositories',
  run: 'runs',
  skill: 'knowledge',
  task: 'tasks',
  workflow: 'workflows',
  workflow_instance: 'workflows',
};

/**
 * Whether a key may see an activity row: its verb family's room (else, for an agent's own
 * milestone such as deploy.finished, its object's room) must be readable, or the activity room,
 * whose activity_query reads the whole log anyway.
 */
export function activityReadable(item: { verb: string; object_type?: string | null }, scopes: Scopes): boolean {
  if (!scopes || roomReadable('activity', scopes)) return true;
  const family = item.verb.split('.')[0];
  const room = VERB_FAMILY_ROOM[family] ?? (item.object_type ? OBJECT_TYPE_ROOM[item.object_type] : undefined);
  return room !== undefined && roomReadable(room, scopes);
}
