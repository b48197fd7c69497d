import { z } from 'zod';
import { defineTool } from './tool';
import { actorRef, cursor, docs, idempotencyKey, limit, uuid } from './fields';
import { featureRequestRow, featureRequestStatus, id, nextCursor, writeResult } from './rows';

const frStatus = featureRequestStatus;
const frKind = z.enum(['bug', 'friction', 'capability', 'docs']);

export const featureRequestCreateInput = z.strictObject({
  title: z.string().trim().min(1).max(200),
  body: z.string().trim().min(1).max(20_000).describe('what you tried, what happened, what would have helped'),
  kind: frKind,
  severity: z.enum(['low', 'medium', 'high']).optional().meta(docs('default medium')),
  tool_name: z.string().min(1).max(100).optional(),
  error_code: z.string().min(1).max(100).optional(),
  context: z
    .union([z.record(z.string(), z.unknown()), z.string().max(4000)])
    .refine((v) => JSON.stringify(v).length <= 8000, 'at most 8 kB')
    .optional()
    .describe('what you sent and got back (no secrets)'),
  fingerprint: z.string().min(1).max(200).optional().meta(docs('dedup key while open')),
  idempotency_key: idempotencyKey.optional(),
});
export type FeatureRequestCreateInput = z.infer<typeof featureRequestCreateInput>;

export const featureRequestCreateOutput = writeResult({
  feature_request: featureRequestRow,
  feature_request_id: id,
  created: z.boolean(),
  deduplicated: z.boolean().describe('an open request with the same fingerprint was counted instead'),
  redacted: z.boolean().describe('something that looked like a secret was removed before storing'),
});

export const featureRequestQueryInput = z.strictObject({
  id: uuid.optional(),
  status: z.union([frStatus, z.array(frStatus).max(5)]).optional(),
  kind: frKind.optional(),
  q: z.string().min(1).max(200).optional(),
  filed_by_actor_id: actorRef.optional(),
  limit: limit(50, 200).optional(),
  cursor: cursor.optional(),
});
export type FeatureRequestQueryInput = z.infer<typeof featureRequestQueryInput>;

export const featureRequestQueryOutput = z.strictObject({
  feature_requests: z.array(featureRequestRow).describe('newest first'),
  counts: z.partialRecord(frStatus, z.number().int().positive()).describe("the workspace's requests by status"),
  next_cursor: nextCursor,
});

export const feedbackTools = [
  defineTool({
    name: 'feature_request_create',
    room: 'feedback',
    title: 'Report a Bullpen problem',
    description:
      'Reports a bug, friction or gap in Bullpen itself; no secrets. Returns {feature_request}. Use when Bullpen gets in your way.',
    input: featureRequestCreateInput,
    output: featureRequestCreateOutput,
    kind: 'write',
    idempotency: 'derived',
    idempotent: true,
  }),
  defineTool({
    name: 'feature_request_query',
    room: 'feedback',
    title: 'Read filed requests',
    description:
      'Returns filed reports with status and resolution. Use when you want the outcome of a report.',
    input: featureRequestQueryInput,
    output: featureRequestQueryOutput,
    kind: 'read',
    idempotent: true,
  }),
];
