/**
 * Tables and rooms whose tenant isolation proofs live in their room's own file
 * (tests/db/isolation-<room>.test.ts). tests/db/isolation.test.ts proves the rest and checks that
 * every table and every tool that takes an id is proven somewhere.
 */
export const ROOM_ISOLATION: Record<string, { file: string; tables: string[]; rooms: string[] }> = {
  provenance: {
    file: 'tests/db/isolation-provenance.test.ts',
    tables: ['attachments', 'code_refs', 'feature_requests', 'project_repositories', 'repositories', 'runs'],
    rooms: ['runs', 'repositories', 'attachments', 'activity', 'feedback'],
  },
};

export const TABLES_PROVEN_ELSEWHERE = new Set(Object.values(ROOM_ISOLATION).flatMap((r) => r.tables));
export const ROOMS_PROVEN_ELSEWHERE = new Set(Object.values(ROOM_ISOLATION).flatMap((r) => r.rooms));
