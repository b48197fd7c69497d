import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setDb } from '../../lib/db';
import { authenticateRequest } from '../../lib/server/auth';
import { handleDownload, handleUpload } from '../../lib/server/file-routes';
import { downloadAttachment, localStore, supabaseStore, uploadAndAttach, type FileStore } from '../../lib/server/files';
import { mintKey } from '../../lib/server/workspace';
import { fails, freshDb, ok, seedTenant, type Actor, type Tenant, type TestDb } from '../helpers/db';
import { asRun } from '../helpers/runs';

let db: TestDb;
let T: Tenant;
let B: Tenant;
let other: Actor;
let dir: string;
let store: FileStore;
const ids: Record<string, string> = {};

/** The caller of a file request with a bearer key, as the route's door finds it; 'invalid' for a refused key. */
async function bearerCaller(req: Request) {
  const door = await authenticateRequest(req, { db, tool: 'attach_add' });
  return door.ok ? { db, claims: door.caller.claims } : 'invalid';
}

beforeAll(async () => {
  db = await freshDb();
  T = await seedTenant(db, 'attach');
  B = await seedTenant(db, 'attach-b');
  other = await T.addAgent('other');
  ok(await T.agent.call('project_create', { title: 'Evidence', key: 'EV' }));
  ids.task = ok(await T.agent.call('task_create', { project_id: 'EV', title: 'Prove it' })).task_id;
  dir = mkdtempSync(path.join(tmpdir(), 'bullpen-files-'));
  store = localStore(dir);
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await db.drop();
});

describe('attach_add', () => {
  it('attaches links and files to tasks, projects and comments', async () => {
    const link = ok(await T.agent.call('attach_add', { object_type: 'task', object_id: 'EV-1', kind: 'link', url: 'https://ci.example.com/run/1', title: 'CI run' }));
    expect(link.attachment).toMatchObject({ object_type: 'task', object_id: ids.task, task_id: ids.task, kind: 'link', url: 'https://ci.example.com/run/1', title: 'CI run',
      created_by_actor_id: T.agent.id, created_by: 'Agent attach', removed_at: null, download_url: null });
    ids.link = link.attachment_id;
    // a file the server stored (uploaded onto the project) attaches to the task by its storage path
    const side = localStore(mkdtempSync(path.join(tmpdir(), 'bullpen-files-side-')));
    const up = ok(await uploadAndAttach({ db, claims: T.agent.claims }, { object_type: 'project', object_id: 'EV', filename: 'report.pdf', content_type: 'application/pdf' }, new TextEncoder().encode('%PDF report'), side, 1024));
    const file = ok(await T.agent.call('attach_add', { object_type: 'task', object_id: ids.task, kind: 'file', storage_path: up.attachment.storage_path, filename: 'report.pdf', mime_type: 'application/pdf', size_bytes: 1234 }));
    // the size is what the server stored, whatever the caller says
    expect(file.attachment).toMatchObject({ kind: 'file', storage_path: up.attachment.storage_path, size_bytes: 11, download_url: `/api/files/${file.attachment_id}` });
    const proj = ok(await T.agent.call('attach_add', { object_type: 'project', object_id: 'EV', kind: 'link', url: 'https://docs.example.com/spec' }));
    expect(proj.attachment).toMatchObject({ task_id: null, project_id: proj.attachment.object_id });
    const comment = ok(await T.agent.call('comment_add', { object_type: 'task', object_id: 'EV-1', body: 'see the log' }));
    const onComment = ok(await T.agent.call('attach_add', { object_type: 'comment', object_id: comment.comment_id, kind: 'link', url: 'https://logs.example.com/1' }));
    expect(onComment.attachment.project_id).toBe(proj.attachment.project_id);
    const h = ok(await T.agent.call('handoff_create', { to_actor_ids: [T.human.id], title: 'Look at the logs', related_task_id: 'EV-1' }));
    const onHandoff = ok(await T.agent.call('attach_add', { object_type: 'handoff', object_id: h.handoff_id, kind: 'link', url: 'https://logs.example.com/2' }));
    expect(onHandoff.attachment).toMatchObject({ object_type: 'handoff', object_id: h.handoff_id, project_id: proj.attachment.project_id });
    const d = ok(await T.agent.call('decision_log', { title: 'Keep reports as PDF', choice: 'PDF', project_id: 'EV' }));
    const onDecision = ok(await T.agent.call('attach_add', { object_type: 'decision', object_id: d.decision_id, kind: 'link', url: 'https://docs.example.com/why-pdf' }));
    expect(onDecision.attachment).toMatchObject({ object_type: 'decision', project_id: proj.attachment.project_id });
    const n = ok(await T.agent.call('knowledge_write', { title: 'Report format', body: 'PDF, A4.' }));
    ok(await T.agent.call('attach_add', { object_type: 'note', object_id: n.note_id, kind: 'link', url: 'https://docs.example.com/a4' }));
    expect(ok(await T.agent.call('attachment_query', { object_type: 'note', object_id: n.note_id })).attachments).toHaveLength(1);
    const task = ok(await T.human.call('task_get', { task_id: 'EV-1' }));
    expect(task.attachments.map((a: { id: string }) => a.id)).toEqual([file.attachment_id, ids.link]);
    expect(task.activity.find((a: { verb: string }) => a.verb === 'attachment.added')).toMatchObject({ summary: 'report.pdf on EV-1' });
  });

  it('requires url for a link and storage_path for a file, in the schema, the RPC and the table', async () => {
    expect(fails(await T.agent.call('attach_add', { object_type: 'task', object_id: 'EV-1', kind: 'link' }), 'VALIDATION_ERROR').message).toBe('url: required when kind is "link"');
    expect(fails(await T.agent.call('attach_add', { object_type: 'task', object_id: 'EV-1', kind: 'file', url: 'https://x.example/a' }), 'VALIDATION_ERROR').message).toBe('storage_path: required when kind is "file"');
    // past the schema, the database says the same
    await expect(db.call(T.agent.claims, 'attach_add', { object_type: 'task', object_id: 'EV-1', kind: 'link' })).rejects.toMatchObject({ code: 'BPVAL', message: 'url: required when kind is "link"' });
    await expect(db.call(T.agent.claims, 'attach_add', { object_type: 'task', object_id: 'EV-1', kind: 'file' })).rejects.toMatchObject({ code: 'BPVAL', message: 'storage_path: required when kind is "file"' });
    await expect(db.query(`insert into public.attachments (tenant_id, object_type, object_id, kind, created_by_actor_id) values ($1, 'task', $2, 'file', $3)`, [T.id, ids.task, T.agent.id]))
      .rejects.toMatchObject({ code: '23514', message: expect.stringContaining('attachments_file_requires_storage_path') });
    await expect(db.query(`insert into public.attachments (tenant_id, object_type, object_id, kind, created_by_actor_id) values ($1, 'task', $2, 'link', $3)`, [T.id, ids.task, T.agent.id]))
      .rejects.toMatchObject({ code: '23514', message: expect.stringContaining('attachments_link_requires_url') });
    expect(fails(await T.agent.call('attach_add', { object_type: 'task', object_id: 'EV-1', kind: 'link', url: 'javascript:alert(1)' }), 'VALIDATION_ERROR').message).toContain('url');
    expect(fails(await T.agent.call('attach_add', { object_type: 'run', object_id: 'EV-1', kind: 'link', url: 'https://x.example' }), 'VALIDATION_ERROR').message).toContain('object_type');
    expect(fails(await T.agent.call('attach_add', { object_type: 'task', object_id: 'EV-1', kind: 'zip', url: 'https://x.example' }), 'VALIDATION_ERROR').message).toContain('kind');
  });

  it('answers NOT_FOUND for unknown objects, and for rooms that hold none yet', async () => {
    fails(await T.agent.call('attach_add', { object_type: 'task', object_id: 'EV-404', kind: 'link', url: 'https://x.example' }), 'NOT_FOUND');
    fails(await T.agent.call('attach_add', { object_type: 'project', object_id: 'NOPE', kind: 'link', url: 'https://x.example' }), 'NOT_FOUND');
    for (const t of ['decision', 'note', 'handoff', 'comment']) {
      fails(await T.agent.call('attach_add', { object_type: t, object_id: '00000000-0000-4000-8000-000000000000', kind: 'link', url: 'https://x.example' }), 'NOT_FOUND');
    }
    expect(fails(await T.agent.call('attach_add', { object_type: 'decision', object_id: 'D-1', kind: 'link', url: 'https://x.example' }), 'VALIDATION_ERROR').message).toContain('object_id');
  });
});

describe('what attach_add takes from a caller', () => {
  it('storage paths are issued by the server: a path it never stored is refused naming storage_path, in the RPC too', async () => {
    for (const storage_path of ['s3://bucket/report.pdf', `${T.id}/00000000-0000-4000-8000-000000000000/forged.pdf`, '../../etc/passwd']) {
      const e = fails(await T.agent.call('attach_add', { object_type: 'task', object_id: 'EV-1', kind: 'file', storage_path }), 'VALIDATION_ERROR');
      expect(e.message).toMatch(/^storage_path: not a file this server stored/);
      expect(e.details).toMatchObject({ fields: ['storage_path'] });
      await expect(db.call(T.agent.claims, 'attach_add', { object_type: 'task', object_id: 'EV-1', kind: 'file', storage_path })).rejects.toMatchObject({ code: 'BPVAL' });
    }
    // a file another workspace stored is not this workspace's to attach
    const side = localStore(mkdtempSync(path.join(tmpdir(), 'bullpen-files-b-')));
    ok(await B.agent.call('project_create', { title: 'Bee', key: 'BEE' }));
    const theirs = ok(await uploadAndAttach({ db, claims: B.agent.claims }, { object_type: 'project', object_id: 'BEE', filename: 'b.txt', content_type: 'text/plain' }, new TextEncoder().encode('b'), side, 1024));
    const e = fails(await T.agent.call('attach_add', { object_type: 'task', object_id: 'EV-1', kind: 'file', storage_path: theirs.attachment.storage_path }), 'VALIDATION_ERROR');
    expect(e.details).toMatchObject({ fields: ['storage_path'] });
  });

  it('mime_type must be a media type (type/subtype with parameters); a line break is refused naming the field, in the RPC too', async () => {
    for (const mime_type of ['text/plain\r\nSet-Cookie: a=b', 'text', 'text/', '*/*', 'text/plain; charset', 'a b/c']) {
      const e = fails(await T.agent.call('attach_add', { object_type: 'task', object_id: 'EV-1', kind: 'link', url: 'https://x.example/m', mime_type }), 'VALIDATION_ERROR');
      expect(e.details).toMatchObject({ fields: ['mime_type'] });
      await expect(db.call(T.agent.claims, 'attach_add', { object_type: 'task', object_id: 'EV-1', kind: 'link', url: 'https://x.example/m', mime_type }))
        .rejects.toMatchObject({ code: 'BPVAL', message: expect.stringMatching(/^mime_type: /) });
    }
    for (const mime_type of ['text/plain', 'text/plain; charset=utf-8', 'application/vnd.bullpen+json', 'text/plain;format="a b"']) {
      expect(ok(await T.agent.call('attach_add', { object_type: 'task', object_id: 'EV-1', kind: 'link', url: 'https://x.example/m', mime_type })).attachment.mime_type).toBe(mime_type);
    }
  });

  it('names lose control and bidirectional-override characters; a name with nothing printable is refused naming it', async () => {
    const side = localStore(mkdtempSync(path.join(tmpdir(), 'bullpen-files-bidi-')));
    const env = ok(await uploadAndAttach({ db, claims: T.agent.claims }, { object_type: 'task', object_id: 'EV-1', filename: 'invoice\u202Efdp.exe', title: 'Report\u0007\u2066 Q3', content_type: 'text/plain' }, new TextEncoder().encode('x'), side, 1024));
    expect(env.attachment).toMatchObject({ filename: 'invoicefdp.exe', title: 'Report Q3' });
    const link = ok(await T.agent.call('attach_add', { object_type: 'task', object_id: 'EV-1', kind: 'link', url: 'https://x.example/n', filename: 'a\u202Eb\r\n.txt', title: '\u200Fright\u200E' }));
    expect(link.attachment).toMatchObject({ filename: 'ab.txt', title: 'right' });
    expect(fails(await T.agent.call('attach_add', { object_type: 'task', object_id: 'EV-1', kind: 'link', url: 'https://x.example/n', filename: '\u202E\u202C' }), 'VALIDATION_ERROR').details)
      .toMatchObject({ fields: ['filename'] });
    // the download header carries the cleaned name
    const res = (await downloadAttachment({ db, claims: T.agent.claims }, env.attachment_id, side))!;
    expect(res.headers.get('content-disposition')).toContain('filename="invoicefdp.exe"');
  });

  it('a type stored before types were checked never breaks the download: it is served as octet-stream', async () => {
    const side = localStore(mkdtempSync(path.join(tmpdir(), 'bullpen-files-legacy-')));
    const env = ok(await uploadAndAttach({ db, claims: T.agent.claims }, { object_type: 'task', object_id: 'EV-1', filename: 'old.txt', content_type: 'text/plain' }, new TextEncoder().encode('old'), side, 1024));
    await db.query(`update public.attachments set mime_type = $3 where tenant_id = $1 and id = $2`, [T.id, env.attachment_id, 'text/html\r\nX-Evil: 1']);
    const res = (await downloadAttachment({ db, claims: T.agent.claims }, env.attachment_id, side))!;
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(await res.text()).toBe('old');
  });
});

describe('attach_remove and attachment_query', () => {
  it('lists newest first, pages, removes softly (author or owner only) and lists removed ones on request', async () => {
    for (let i = 0; i < 3; i++) ok(await other.call('attach_add', { object_type: 'task', object_id: 'EV-1', kind: 'link', url: `https://x.example/${i}` }));
    const all = ok(await T.agent.call('attachment_query', { object_type: 'task', object_id: 'EV-1' }));
    expect(all.attachments.map((a: { url: string | null }) => a.url).slice(0, 3)).toEqual(['https://x.example/2', 'https://x.example/1', 'https://x.example/0']);
    const p1 = ok(await T.agent.call('attachment_query', { object_type: 'task', object_id: 'EV-1', limit: 2 }));
    const p2 = ok(await T.agent.call('attachment_query', { object_type: 'task', object_id: 'EV-1', limit: 2, cursor: p1.next_cursor }));
    expect([...p1.attachments, ...p2.attachments].map((a: { id: string }) => a.id)).toEqual(all.attachments.slice(0, 4).map((a: { id: string }) => a.id));
    const theirs = all.attachments[0];
    const refused = fails(await T.agent.call('attach_remove', { attachment_id: theirs.id }), 'FORBIDDEN');
    expect(refused.message).toContain('whoever attached it');
    const byOwner = ok(await T.human.call('attach_remove', { attachment_id: theirs.id }));
    expect(byOwner).toMatchObject({ removed: true, already_removed: false, attachment: { removed_by_actor_id: T.human.id } });
    expect(ok(await other.call('attach_remove', { attachment_id: theirs.id, idempotency_key: 'again' }))).toMatchObject({ already_removed: true });
    const mine = ok(await other.call('attach_remove', { attachment_id: all.attachments[1].id }));
    expect(mine.attachment.removed_at).toBeTruthy();
    const after = ok(await T.agent.call('attachment_query', { object_type: 'task', object_id: 'EV-1' }));
    expect(after.attachments.map((a: { id: string }) => a.id)).not.toContain(theirs.id);
    const withRemoved = ok(await T.agent.call('attachment_query', { object_type: 'task', object_id: 'EV-1', include_removed: true }));
    expect(withRemoved.attachments.length).toBe(after.attachments.length + 2);
    expect(ok(await T.human.call('task_get', { task_id: 'EV-1' })).activity[0]).toMatchObject({ verb: 'attachment.removed' });
    fails(await T.agent.call('attach_remove', { attachment_id: '00000000-0000-4000-8000-000000000000' }), 'NOT_FOUND');
    expect(fails(await T.agent.call('attach_remove', { attachment_id: 'nope' }), 'VALIDATION_ERROR').message).toContain('attachment_id');
    fails(await T.agent.call('attachment_query', { object_type: 'task', object_id: 'EV-9' }), 'NOT_FOUND');
    expect(fails(await T.agent.call('attachment_query', { object_type: 'task', object_id: 'EV-1', cursor: 'zz' }), 'VALIDATION_ERROR').message).toContain('cursor');
  });
});

describe('the evidence gate', () => {
  async function gatedTask(title: string, extra: Record<string, unknown> = {}) {
    const t = ok(await T.agent.call('task_create', { project_id: 'EV', title, requires_evidence: true, ...extra }));
    ok(await T.agent.call('task_claim', { task_id: t.task_id }));
    return t.task_id as string;
  }

  it('alone: done is refused until a live code ref or attachment exists; the hint names both tools', async () => {
    const id = await gatedTask('needs proof');
    const e = fails(await T.agent.call('task_update', { task_id: id, patch: { status: 'done' } }), 'GATE_UNMET');
    expect(e.message).toContain('requires evidence');
    expect(e.hint).toContain('task_code_ref');
    expect(e.hint).toContain('attach_add');
    expect(e.details).toMatchObject({ gate: 'evidence', satisfied_by: 'task_code_ref or attach_add', summary: 'no evidence' });
    expect(ok(await T.agent.call('task_get', { task_id: id })).evidence).toEqual({ required: true, met: false, code_refs: 0, attachments: 0 });
    ok(await T.agent.call('task_code_ref', { task_id: id, ref_type: 'pr', pr_number: 5 }));
    const done = ok(await T.agent.call('task_update', { task_id: id, patch: { status: 'done' } }));
    expect(done.gate).toMatchObject({ summary: 'evidence linked', checks: [{ gate: 'evidence', met: true }] });
  });

  it('a PR closed unmerged and a removed attachment are not evidence', async () => {
    const id = await gatedTask('dead ends');
    const pr = ok(await T.agent.call('task_code_ref', { task_id: id, ref_type: 'pr', pr_number: 6 }));
    ok(await T.agent.call('code_ref_update', { code_ref_id: pr.code_ref_id, patch: { pr_state: 'closed' } }));
    const att = ok(await T.agent.call('attach_add', { object_type: 'task', object_id: id, kind: 'link', url: 'https://x.example/proof' }));
    ok(await T.agent.call('attach_remove', { attachment_id: att.attachment_id }));
    fails(await T.agent.call('task_update', { task_id: id, patch: { status: 'done' } }), 'GATE_UNMET');
    ok(await T.agent.call('attach_add', { object_type: 'task', object_id: id, kind: 'link', url: 'https://x.example/proof-2' }));
    ok(await T.agent.call('task_update', { task_id: id, patch: { status: 'done' } }));
  });

  it('with criteria and review: checks run in order, the first unmet one refuses, the summary lists all', async () => {
    const id = await gatedTask('everything', { acceptance_criteria: ['parser fixed', 'tests added'], reviewer_actor_id: T.human.id });
    const first = fails(await T.agent.call('task_update', { task_id: id, patch: { status: 'done' } }), 'GATE_UNMET');
    expect(first.details).toMatchObject({ gate: 'acceptance_criteria', summary: 'criteria 0/2' });
    const crit = [{ text: 'parser fixed', met: true }, { text: 'tests added', met: true }];
    const second = fails(await T.agent.call('task_update', { task_id: id, patch: { status: 'done', acceptance_criteria: crit } }), 'GATE_UNMET');
    expect(second.details).toMatchObject({ gate: 'evidence', summary: 'criteria 2/2 · no evidence' });
    ok(await T.agent.call('task_update', { task_id: id, patch: { acceptance_criteria: crit } }));
    ok(await T.agent.call('attach_add', { object_type: 'task', object_id: id, kind: 'link', url: 'https://ci.example.com/green' }));
    const third = fails(await T.agent.call('task_update', { task_id: id, patch: { status: 'done' } }), 'GATE_UNMET');
    // the review was asked for when work started (the claim)
    expect(third.details).toMatchObject({ gate: 'review', satisfied_by: 'handoff_respond', summary: 'criteria 2/2 · evidence linked · waiting for Human attach' });
    const review = ok(await T.human.call('handoff_query', { direction: 'to_me', type: ['review'] })).handoffs.find((h: { related_task_id: string }) => h.related_task_id === id);
    ok(await T.human.call('handoff_respond', { handoff_id: review.id, response: { chosen_option: 'approve' } }));
    const done = ok(await T.agent.call('task_update', { task_id: id, patch: { status: 'done' } }));
    expect(done.gate.summary).toBe('criteria 2/2 · evidence linked · approved by Human attach');
    expect(done.gate.checks.map((c: { gate: string }) => c.gate)).toEqual(['acceptance_criteria', 'evidence', 'review']);
  });

  it('a file counts only when its bytes were stored: a row pointing at bytes never uploaded does not meet it', async () => {
    const id = await gatedTask('file proof');
    // a row as an older server let an agent write it: a storage path with no stored bytes behind it
    await db.query(
      `insert into public.attachments (tenant_id, object_type, object_id, task_id, kind, storage_path, filename, created_by_actor_id)
       values ($1, 'task', $2, $2, 'file', $3, 'proof.pdf', $4)`,
      [T.id, id, `${T.id}/00000000-0000-4000-8000-000000000000/proof.pdf`, T.agent.id],
    );
    const e = fails(await T.agent.call('task_update', { task_id: id, patch: { status: 'done' } }), 'GATE_UNMET');
    expect(e.details).toMatchObject({ gate: 'evidence', summary: 'no evidence' });
    expect(ok(await T.agent.call('task_get', { task_id: id })).evidence).toMatchObject({ met: false, attachments: 0 });
    // the real upload meets it
    const side = localStore(mkdtempSync(path.join(tmpdir(), 'bullpen-files-proof-')));
    ok(await uploadAndAttach({ db, claims: T.agent.claims }, { object_type: 'task', object_id: id, filename: 'proof.pdf', content_type: 'application/pdf' }, new TextEncoder().encode('%PDF'), side, 1024));
    expect(ok(await T.agent.call('task_get', { task_id: id })).evidence).toMatchObject({ met: true, attachments: 1 });
    ok(await T.agent.call('task_update', { task_id: id, patch: { status: 'done' } }));
  });

  it('does not apply to a task without requires_evidence', async () => {
    const t = ok(await T.agent.call('task_create', { project_id: 'EV', title: 'no proof needed' }));
    ok(await T.agent.call('task_claim', { task_id: t.task_id }));
    expect(ok(await T.agent.call('task_update', { task_id: t.task_id, patch: { status: 'done' } })).gate).toEqual({ summary: 'no checks apply', checks: [] });
  });
});

describe('files', () => {
  const who = () => ({ db, claims: T.agent.claims });

  it('stores an upload beside the data, attaches it, and serves it back to the workspace only', async () => {
    const bytes = new TextEncoder().encode('%PDF-1.4 proof');
    const env = ok(await uploadAndAttach(who(), { object_type: 'task', object_id: 'EV-1', filename: '../../etc/My Report (final).pdf', content_type: 'application/pdf; charset=binary' }, bytes, store, 1024));
    expect(env.attachment).toMatchObject({ kind: 'file', filename: 'My Report (final).pdf', mime_type: 'application/pdf', size_bytes: bytes.byteLength });
    expect(env.attachment.storage_path).toMatch(new RegExp(`^${T.id}/[0-9a-f-]{36}/My-Report-final-.pdf$`));
    expect(readdirSync(path.join(dir, T.id))).toHaveLength(1);
    ids.file = env.attachment_id;
    const res = (await downloadAttachment(who(), ids.file, store))!;
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toContain('inline');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(new TextDecoder().decode(await res.arrayBuffer())).toBe('%PDF-1.4 proof');
    // a human of the workspace reads it too; another workspace gets nothing, even with the id
    expect(await downloadAttachment({ db, claims: T.human.claims }, ids.file, store)).not.toBeNull();
    expect(await downloadAttachment({ db, claims: B.agent.claims }, ids.file, store)).toBeNull();
    expect((await handleDownload({ db, claims: B.agent.claims }, ids.file, store)).status).toBe(404);
    expect((await handleDownload(null, ids.file, store)).status).toBe(401);
    // a removed attachment is no longer served
    ok(await T.agent.call('attach_remove', { attachment_id: ids.file }));
    expect(await downloadAttachment(who(), ids.file, store)).toBeNull();
  });

  it('refuses a file over the size limit (413, naming the limit) and stores nothing', async () => {
    const before = readdirSync(path.join(dir, T.id)).length;
    const big = fails(await uploadAndAttach(who(), { object_type: 'task', object_id: 'EV-1', filename: 'big.bin' }, new Uint8Array(2048), store, 1024), 'PAYLOAD_TOO_LARGE');
    expect(big.message).toContain('1 KiB (1024 bytes)');
    expect(big.details).toEqual({ limit_bytes: 1024 });
    const declared = fails(await uploadAndAttach(who(), { object_type: 'task', object_id: 'EV-1', filename: 'big.bin', declared_bytes: 5000 }, null, store, 1024), 'PAYLOAD_TOO_LARGE');
    expect(declared.message).toContain('1024 bytes');
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < 5; i++) c.enqueue(new Uint8Array(400));
        c.close();
      },
    });
    fails(await uploadAndAttach(who(), { object_type: 'task', object_id: 'EV-1', filename: 'streamed.bin' }, stream, store, 1024), 'PAYLOAD_TOO_LARGE');
    expect(readdirSync(path.join(dir, T.id))).toHaveLength(before);
    expect(fails(await uploadAndAttach(who(), { object_type: 'task', object_id: 'EV-1', filename: 'empty.txt' }, new Uint8Array(), store, 1024), 'VALIDATION_ERROR').details).toEqual({ fields: ['file'] });
    expect(fails(await uploadAndAttach(who(), { object_type: 'task', object_id: '', filename: 'x.txt' }, new Uint8Array([1]), store, 1024), 'VALIDATION_ERROR').details).toEqual({ fields: ['object_id'] });
    // an upload's Content-Type is a media type too
    expect(fails(await uploadAndAttach(who(), { object_type: 'task', object_id: 'EV-1', filename: 'x.txt', content_type: 'text plain' }, new Uint8Array([1]), store, 1024), 'VALIDATION_ERROR').details).toEqual({ fields: ['content_type'] });
  });

  it('over HTTP: POST /api/files with a bearer key attaches (201), 413 over the limit, 404 for an unknown task', async () => {
    setDb(db);
    const key = (await mintKey(db, T.id, T.agent.id, 'files')).api_key;
    const req = (url: string, body: BodyInit, headers: Record<string, string> = {}) =>
      new Request(`http://localhost:3000/api/files${url}`, { method: 'POST', body, headers: { authorization: `Bearer ${key}`, ...headers }, duplex: 'half' } as RequestInit);
    const r1 = req('?object_type=task&object_id=EV-1', 'hello world', { 'content-type': 'text/plain', 'x-filename': encodeURIComponent('notes ü.txt') });
    const caller = await bearerCaller(r1);
    expect(caller).toMatchObject({ claims: { actor_id: T.agent.id } });
    const ok1 = await handleUpload(r1, caller as never, store, 1024);
    expect(ok1.status).toBe(201);
    const body1 = await ok1.json();
    expect(body1).toMatchObject({ ok: true, attachment: { filename: 'notes ü.txt', mime_type: 'text/plain', size_bytes: 11 } });
    const dl = await handleDownload(caller as never, body1.attachment_id, store);
    expect(dl.status).toBe(200);
    expect(await dl.text()).toBe('hello world');
    const r2 = req('?object_type=task&object_id=EV-1&filename=big.bin', new Uint8Array(4096));
    const tooBig = await handleUpload(r2, (await bearerCaller(r2)) as never, store, 1024);
    expect(tooBig.status).toBe(413);
    expect((await tooBig.json()).error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('1024 bytes') });
    const before = readdirSync(path.join(dir, T.id)).length;
    const r3 = req('?object_type=task&object_id=EV-404&filename=a.txt', 'x');
    const missing = await handleUpload(r3, (await bearerCaller(r3)) as never, store, 1024);
    expect(missing.status).toBe(404);
    expect(readdirSync(path.join(dir, T.id))).toHaveLength(before);
    const bad = new Request('http://localhost:3000/api/files?object_type=task&object_id=EV-1', { method: 'POST', body: 'x', headers: { authorization: 'Bearer bp_live_nope' } });
    expect(await bearerCaller(bad)).toBe('invalid');
    expect((await handleUpload(bad, null, store)).status).toBe(401);
    const cross = req('?object_type=task&object_id=EV-1', 'x', { origin: 'https://evil.example' });
    expect((await handleUpload(cross, (await bearerCaller(cross)) as never, store, 1024)).status).toBe(403);
  });

  it('Supabase Storage: the same calls go to the storage API with the service key', async () => {
    const objects = new Map<string, { body: Uint8Array; type: string }>();
    const buckets = new Set<string>();
    const calls: string[] = [];
    const fakeFetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
      const method = init?.method ?? 'GET';
      const headers = new Headers(init?.headers);
      calls.push(`${method} ${url.pathname} ${headers.get('authorization')}`);
      const key = decodeURIComponent(url.pathname.replace(/^\/storage\/v1\/object\//, ''));
      if (method === 'POST' && url.pathname === '/storage/v1/bucket') {
        const b = JSON.parse(String(init!.body)) as { id: string; public: boolean };
        expect(b.public).toBe(false);
        buckets.add(b.id);
        return Response.json({ name: b.id });
      }
      if (method === 'POST' && url.pathname.startsWith('/storage/v1/object/')) {
        if (!buckets.has(key.split('/')[0])) return Response.json({ statusCode: '404', error: 'Bucket not found', message: 'Bucket not found' }, { status: 400 });
        if (objects.has(key) && headers.get('x-upsert') !== 'true') return Response.json({ statusCode: '409', error: 'Duplicate', message: 'exists' }, { status: 409 });
        objects.set(key, { body: new Uint8Array(init!.body as Uint8Array), type: headers.get('content-type') ?? '' });
        return Response.json({ Key: key, Id: 'x' });
      }
      if (method === 'GET') {
        const o = objects.get(key);
        return o ? new Response(new Blob([o.body as BlobPart], { type: o.type })) : Response.json({ statusCode: '404', error: 'not_found', message: 'Object not found' }, { status: 400 });
      }
      if (method === 'DELETE') {
        const { prefixes } = JSON.parse(String(init!.body)) as { prefixes: string[] };
        for (const p of prefixes) objects.delete(`${key}/${p}`);
        return Response.json([]);
      }
      return new Response('unexpected', { status: 500 });
    }) as typeof fetch;
    const s = supabaseStore({ url: 'https://proj.supabase.co', serviceKey: 'service-key', bucket: 'attachments', fetch: fakeFetch });
    const env = ok(await uploadAndAttach(who(), { object_type: 'task', object_id: 'EV-1', filename: 'shot.png', content_type: 'image/png' }, new Uint8Array([137, 80, 78, 71]), s, 1024));
    const storagePath = env.attachment.storage_path as string;
    expect(objects.has(`attachments/${storagePath}`)).toBe(true);
    expect(objects.get(`attachments/${storagePath}`)!.type).toBe('image/png');
    const res = (await downloadAttachment(who(), env.attachment_id, s))!;
    expect(Array.from(new Uint8Array(await res.arrayBuffer()))).toEqual([137, 80, 78, 71]);
    expect(res.headers.get('content-type')).toBe('image/png');
    await s.remove(storagePath);
    expect(objects.size).toBe(0);
    expect(await s.get(storagePath)).toBeNull();
    expect(calls.every((c) => c.endsWith('Bearer service-key'))).toBe(true);
    expect(calls.map((c) => c.split(' ').slice(0, 2).join(' '))).toEqual([
      // a fresh project: the first upload finds no bucket, creates it (private) and uploads again
      `POST /storage/v1/object/attachments/${storagePath}`,
      'POST /storage/v1/bucket',
      `POST /storage/v1/object/attachments/${storagePath}`,
      `GET /storage/v1/object/attachments/${storagePath}`,
      'DELETE /storage/v1/object/attachments',
      `GET /storage/v1/object/attachments/${storagePath}`,
    ]);
    // a refused attachment takes its stored object with it
    fails(await uploadAndAttach(who(), { object_type: 'task', object_id: 'EV-404', filename: 'x.png' }, new Uint8Array([1]), s, 1024), 'NOT_FOUND');
    expect(objects.size).toBe(0);
  });

  it('a file attached under a run counts toward that run', async () => {
    const a = asRun(T.agent, { run_id: 'uploader' });
    ok(await uploadAndAttach({ db, claims: a.claims }, { object_type: 'task', object_id: 'EV-1', filename: 'x.txt' }, new TextEncoder().encode('x'), store, 1024));
    expect(ok(await a.call('run_summary', {})).counts.attachments).toBe(1);
  });
});
