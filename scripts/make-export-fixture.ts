/**
 * Makes an export fixture: a seeded workspace exported by the release this script runs in, so the
 * next release's import test can prove that every earlier export version still imports.
 *
 *   git worktree add /tmp/prev <commit> && cp -al node_modules /tmp/prev/ && cp scripts/make-export-fixture.ts /tmp/prev/scripts/
 *   (cd /tmp/prev && npx tsx scripts/make-export-fixture.ts /abs/tests/fixtures/export/NAME.json)
 *
 * The seed touches every room whose rows travel (attachments: a link and an uploaded file).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execute } from '../lib/core/execute';
import type { Claims, Db } from '../lib/db/types';
import { migrate } from '../lib/db/migrate';
import { ensureActor, ensureWorkspace } from '../lib/server/workspace';

const out = path.resolve(process.argv[2] ?? 'tests/fixtures/export/current.json');

async function seed(db: Db): Promise<void> {
  const ws = await ensureWorkspace(db, 'fixture', 'Fixture workspace');
  const owner = await ensureActor(db, ws.id, { kind: 'human', external_ref: 'email:ada@example.com', display_name: 'Ada', is_owner: true });
  const agent = await ensureActor(db, ws.id, { kind: 'agent', external_ref: 'agent:builder', display_name: 'Builder' });
  const claimsOf = (id: string, run: string): Claims => ({ sub: id, role: 'authenticated', tenant_id: ws.id, actor_id: id, run_id: run });
  const as = (id: string, run: string) => async (tool: string, input: unknown) => {
    const r = await execute({ db, claims: claimsOf(id, run) }, tool, input);
    if (!r.ok) throw new Error(`${tool}: ${r.error.code} ${r.error.message}`);
    return r as Record<string, any>;
  };
  const human = as(owner.id, 'run-fixture-human');
  const bot = as(agent.id, 'run-fixture-agent');
  await human('project_create', { title: 'Payments', key: 'PAY', summary: 'Card payments' });
  const many = await human('task_create_many', {
    project_id: 'PAY',
    tasks: [
      { title: 'Schema for charges', priority: 1, labels: ['db'] },
      { title: 'Charge endpoint', depends_on: [{ batch_index: 0 }], acceptance_criteria: [{ text: 'returns 201', met: false }], requires_evidence: true },
    ],
  });
  const [schema, endpoint] = many.task_ids as string[];
  await bot('task_claim', { task_id: schema, lease_seconds: 3600 });
  await bot('comment_add', { object_type: 'task', object_id: schema, body: 'Started on the charges table.' });
  await bot('task_update', { task_id: schema, patch: { status: 'done' } });
  await bot('decision_log', { title: 'Postgres for the ledger', choice: 'Postgres 15', rationale: 'RLS', project_id: 'PAY', related_task_ids: [schema] });
  await bot('knowledge_write', { title: 'Restart the consumer', body: 'systemctl restart consumer', kind: 'runbook', related_task_ids: [endpoint] });
  await bot('skill_upsert', { slug: 'release', description: 'Use when shipping', body: '# Release' });
  const h = await bot('handoff_create', { to_actor_ids: [owner.id], title: 'Approve the schema?', kind: 'approval', related_task_id: schema });
  await human('handoff_claim', { handoff_id: h.handoff_id });
  await human('handoff_respond', { handoff_id: h.handoff_id, response: { chosen_option: 'approve', text: 'Ship it' } });
  await bot('attach_add', { object_type: 'task', object_id: endpoint, kind: 'link', url: 'https://example.com/spec', title: 'Spec' });
  // an uploaded file: the bytes stay on the old server (this release's exports carry none)
  process.env.BULLPEN_FILES_DIR = mkdtempSync(path.join(tmpdir(), 'bullpen-fixture-files-'));
  const { uploadAndAttach } = await import('../lib/server/files');
  const up = await uploadAndAttach({ db, claims: claimsOf(agent.id, 'run-fixture-agent') },
    { object_type: 'task', object_id: endpoint, filename: 'notes.txt', content_type: 'text/plain' }, new TextEncoder().encode('hello from the previous release\n'));
  if (!up.ok) throw new Error(`upload: ${up.error.message}`);
}

async function main(): Promise<void> {
  const { openPglite } = await import('../lib/db/pglite');
  const db = await openPglite();
  await migrate(db);
  await seed(db);
  const { exportWorkspace } = await import('../lib/server/export');
  const doc = await exportWorkspace(db, 'fixture');
  await db.close();
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(doc, null, 1) + '\n');
  console.log(`export fixture (version ${doc.version}) written to ${out}`, doc.counts);
}

await main();
