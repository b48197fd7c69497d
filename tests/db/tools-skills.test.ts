import { mkdtemp, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MANIFEST, syncSkills } from '../../lib/cli/skills-sync';
import { fails, freshDb, ok, seedTenant, type Tenant, type TestDb } from '../helpers/db';

let db: TestDb;
let T: Tenant;
const missing = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  db = await freshDb();
  T = await seedTenant(db, 'skills');
  ok(await T.agent.call('project_create', { title: 'Mobile', key: 'MOB' }));
  ok(await T.agent.call('project_create', { title: 'Web', key: 'WEB' }));
});
afterAll(() => db.drop());

describe('skill_upsert', () => {
  it('creates a workspace skill at version 1 with the sha256 of its body', async () => {
    const env = ok(await T.agent.call('skill_upsert', { slug: 'release-checklist', description: 'Use when shipping a release', body: '# Release\n\n1. Tag\n2. Push', tags: ['release'] }));
    expect(env).toMatchObject({ created: true, previous_version: null });
    expect(env.skill).toMatchObject({ slug: 'release-checklist', name: 'release-checklist', scope: 'workspace', version: 1, status: 'active', tags: ['release'] });
    const { createHash } = await import('node:crypto');
    expect(env.skill.content_hash).toBe(createHash('sha256').update('# Release\n\n1. Tag\n2. Push').digest('hex'));
  });

  it('requires description and body on create, naming the field', async () => {
    expect(fails(await T.agent.call('skill_upsert', { slug: 'no-body', description: 'x' }), 'VALIDATION_ERROR').message).toContain('body');
    expect(fails(await T.agent.call('skill_upsert', { slug: 'no-desc', body: 'x' }), 'VALIDATION_ERROR').message).toContain('description');
  });

  it('refuses slugs that break the rules, with the rule in the message', async () => {
    for (const slug of ['Release', 'release_checklist', '-release', 'release-', 'release--checklist', 'a'.repeat(65), '', 'relé']) {
      const e = fails(await T.agent.call('skill_upsert', { slug, description: 'd', body: 'b' }), 'VALIDATION_ERROR');
      expect(e.message, slug).toContain('slug');
      expect(e.message, slug).toMatch(/lowercase letters a-z, digits and single hyphens, 1–64 characters/);
    }
    ok(await T.agent.call('skill_upsert', { slug: 'a', description: 'd', body: 'b' }));
    ok(await T.agent.call('skill_upsert', { slug: `a${'-b'.repeat(31)}x`.slice(0, 64).replace(/-$/, 'x'), description: 'd', body: 'b' }));
  });

  it('refuses a description over 1 KB and a body over 64 KB', async () => {
    expect(fails(await T.agent.call('skill_upsert', { slug: 'big', description: 'x'.repeat(1025), body: 'b' }), 'VALIDATION_ERROR').message).toContain('description');
    expect(fails(await T.agent.call('skill_upsert', { slug: 'big', description: 'd', body: 'é'.repeat(32_769) }), 'VALIDATION_ERROR').message).toContain('body');
    ok(await T.agent.call('skill_upsert', { slug: 'big', description: 'd'.repeat(1024), body: 'x'.repeat(65_536) }));
  });

  it('counts versions up, reports no change for the same content, and guards with expected_version', async () => {
    const v2 = ok(await T.agent.call('skill_upsert', { slug: 'release-checklist', body: '# Release\n\n1. Tag\n2. Push\n3. Announce' }));
    expect(v2).toMatchObject({ created: false, changed: ['body'], previous_version: 1, skill: { version: 2, description: 'Use when shipping a release' } });
    // the same retry replays; the same content sent differently is simply no change
    const retry = ok(await T.agent.call('skill_upsert', { slug: 'release-checklist', body: '# Release\n\n1. Tag\n2. Push\n3. Announce' }));
    expect(retry).toMatchObject({ idempotent_replay: true, skill: { version: 2 } });
    const same = ok(await T.agent.call('skill_upsert', { slug: 'release-checklist', tags: ['release'], body: '# Release\n\n1. Tag\n2. Push\n3. Announce' }));
    expect(same).toMatchObject({ changed: [], skill: { version: 2 } });
    expect(same.idempotent_replay).toBeUndefined();
    const conflict = fails(await T.human.call('skill_upsert', { slug: 'release-checklist', expected_version: 1, body: 'stale edit' }), 'CONFLICT');
    expect(conflict.message).toContain('version 2');
    expect(conflict.retryable).toBe(true);
    const v3 = ok(await T.human.call('skill_upsert', { slug: 'release-checklist', expected_version: 2, description: 'Use before every release' }));
    expect(v3.skill).toMatchObject({ version: 3, updated_by_actor_id: T.human.id });
    fails(await T.agent.call('skill_upsert', { slug: 'never-made', expected_version: 4, description: 'd', body: 'b' }), 'CONFLICT');
    ok(await T.agent.call('skill_upsert', { slug: 'made-once', expected_version: 0, description: 'd', body: 'b' }));
    fails(await T.agent.call('skill_upsert', { slug: 'made-once', expected_version: 0, body: 'again' }), 'CONFLICT');
  });

  it('answers NOT_FOUND for an unknown project', async () => {
    fails(await T.agent.call('skill_upsert', { slug: 'x', description: 'd', body: 'b', project_id: 'NOPE' }), 'NOT_FOUND');
  });
});

describe('shadowing', () => {
  beforeAll(async () => {
    ok(await T.agent.call('skill_upsert', { slug: 'code-review', description: 'Workspace review rules', body: 'Review for correctness.' }));
    ok(await T.agent.call('skill_upsert', { slug: 'code-review', project_id: 'MOB', description: 'Mobile review rules', body: 'Check both platforms.' }));
    ok(await T.agent.call('skill_upsert', { slug: 'app-store', project_id: 'MOB', description: 'Submitting builds', body: 'Upload with fastlane.' }));
  });

  it('skill_get: the project skill shadows the workspace one; without project_id the workspace one', async () => {
    const mob = ok(await T.agent.call('skill_get', { slug: 'code-review', project_id: 'MOB' }));
    expect(mob.skill).toMatchObject({ scope: 'project', project_key: 'MOB', body: 'Check both platforms.' });
    expect(mob.shadows_skill_id).toBeTruthy();
    const web = ok(await T.agent.call('skill_get', { slug: 'code-review', project_id: 'WEB' }));
    expect(web.skill).toMatchObject({ scope: 'workspace', body: 'Review for correctness.' });
    const ws = ok(await T.agent.call('skill_get', { slug: 'code-review' }));
    expect(ws.skill.id).toBe(mob.shadows_skill_id);
    const byId = ok(await T.agent.call('skill_get', { skill_id: mob.skill.id }));
    expect(byId.skill.body).toBe('Check both platforms.');
  });

  it('skill_list: workspace library, plus the project’s skills shadowing by slug', async () => {
    const ws = ok(await T.agent.call('skill_list', {}));
    expect(ws.skills.map((s: { slug: string }) => s.slug)).not.toContain('app-store');
    expect(ws.skills.find((s: { slug: string }) => s.slug === 'code-review')).toMatchObject({ scope: 'workspace' });
    expect(ws.skills[0].body).toBeUndefined();
    const mob = ok(await T.agent.call('skill_list', { project_id: 'MOB', include_body: true }));
    const review = mob.skills.filter((s: { slug: string }) => s.slug === 'code-review');
    expect(review).toHaveLength(1);
    expect(review[0]).toMatchObject({ scope: 'project', body: 'Check both platforms.' });
    expect(review[0].shadows_skill_id).toBe(ws.skills.find((s: { slug: string }) => s.slug === 'code-review').id);
    expect(mob.skills.map((s: { slug: string }) => s.slug)).toContain('app-store');
    expect(mob.skills.map((s: { slug: string }) => s.slug)).toContain('release-checklist');
  });

  it('filters by q, tag and status, and archives', async () => {
    expect(ok(await T.agent.call('skill_list', { q: 'release' })).skills.map((s: { slug: string }) => s.slug)).toEqual(['release-checklist']);
    expect(ok(await T.agent.call('skill_list', { tag: 'release' })).skills.map((s: { slug: string }) => s.slug)).toEqual(['release-checklist']);
    const archived = ok(await T.agent.call('skill_upsert', { slug: 'made-once', status: 'archived' }));
    expect(archived).toMatchObject({ changed: ['status'], skill: { status: 'archived', version: 2 } });
    expect(ok(await T.agent.call('skill_list', {})).skills.map((s: { slug: string }) => s.slug)).not.toContain('made-once');
    expect(ok(await T.agent.call('skill_list', { status: 'archived' })).skills.map((s: { slug: string }) => s.slug)).toEqual(['made-once']);
  });

  it('pages with a cursor', async () => {
    const all = ok(await T.agent.call('skill_list', { project_id: 'MOB' })).skills.map((s: { slug: string }) => s.slug);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = ok(await T.agent.call('skill_list', { project_id: 'MOB', limit: 2, ...(cursor ? { cursor } : {}) }));
      seen.push(...page.skills.map((s: { slug: string }) => s.slug));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(all);
    expect(all.length).toBeGreaterThan(4);
  });

  it('skill_get refuses both or neither of slug and skill_id, and names where a project skill lives', async () => {
    expect(fails(await T.agent.call('skill_get', {}), 'VALIDATION_ERROR').message).toContain('exactly one');
    expect(fails(await T.agent.call('skill_get', { slug: 'a', skill_id: missing }), 'VALIDATION_ERROR').message).toContain('exactly one');
    expect(fails(await T.agent.call('skill_get', { slug: 'Bad Slug' }), 'VALIDATION_ERROR').message).toContain('slug');
    const e = fails(await T.agent.call('skill_get', { slug: 'app-store' }), 'NOT_FOUND');
    expect(e.hint).toContain('MOB');
    fails(await T.agent.call('skill_get', { skill_id: missing }), 'NOT_FOUND');
    fails(await T.agent.call('skill_get', { slug: 'code-review', project_id: 'NOPE' }), 'NOT_FOUND');
  });
});

describe('bullpen skills sync', () => {
  let dir: string;
  const lines: string[] = [];
  const out = { log: (s: string) => lines.push(s), error: (s: string) => lines.push(`! ${s}`) };
  const call = (tool: string, input: unknown) => T.agent.call(tool, input);

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'bullpen-skills-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('writes <slug>/SKILL.md with frontmatter, a manifest, and leaves a foreign folder alone', async () => {
    await mkdir(path.join(dir, 'release-checklist'));
    await writeFile(path.join(dir, 'release-checklist', 'SKILL.md'), 'my own hand-written skill\n');
    await mkdir(path.join(dir, 'notes-of-mine'));
    await writeFile(path.join(dir, 'notes-of-mine', 'SKILL.md'), 'not bullpen\n');
    const res = await syncSkills({ dir, call, out });
    expect(res.created).toEqual(expect.arrayContaining(['a', 'big', 'code-review']));
    expect(res.skipped).toEqual(['release-checklist']);
    expect(await readFile(path.join(dir, 'release-checklist', 'SKILL.md'), 'utf8')).toBe('my own hand-written skill\n');
    expect(await readFile(path.join(dir, 'notes-of-mine', 'SKILL.md'), 'utf8')).toBe('not bullpen\n');
    const md = await readFile(path.join(dir, 'code-review', 'SKILL.md'), 'utf8');
    const ws = ok(await T.agent.call('skill_get', { slug: 'code-review' }));
    expect(md).toBe(
      `---\nname: code-review\ndescription: "Workspace review rules"\nmetadata:\n  bullpen_id: ${ws.skill.id}\n  bullpen_version: "1"\n---\n\nReview for correctness.\n`,
    );
    const manifest = JSON.parse(await readFile(path.join(dir, MANIFEST), 'utf8'));
    expect(Object.keys(manifest.skills).sort()).toEqual([...res.created].sort());
    expect(manifest.skills['code-review']).toMatchObject({ id: ws.skill.id, version: 1 });
    expect(lines.join('\n')).toContain('skipped release-checklist');
    // no temp files left behind
    const names = (await readdir(path.join(dir, 'code-review')));
    expect(names).toEqual(['SKILL.md']);
  });

  it('is a no-op when nothing changed, updates what did, and removes archived skills it owns', async () => {
    const again = await syncSkills({ dir, call, out });
    expect(again).toMatchObject({ created: [], updated: [], removed: [] });
    expect(again.unchanged.length).toBeGreaterThan(2);
    ok(await T.agent.call('skill_upsert', { slug: 'code-review', body: 'Review for correctness and tests.' }));
    ok(await T.agent.call('skill_upsert', { slug: 'a', status: 'archived' }));
    const before = (await stat(path.join(dir, 'big', 'SKILL.md'))).mtimeMs;
    const res = await syncSkills({ dir, call, out });
    expect(res.updated).toEqual(['code-review']);
    expect(res.removed).toEqual(['a']);
    expect(await readFile(path.join(dir, 'code-review', 'SKILL.md'), 'utf8')).toContain('bullpen_version: "2"');
    await expect(stat(path.join(dir, 'a'))).rejects.toThrow();
    expect((await stat(path.join(dir, 'big', 'SKILL.md'))).mtimeMs).toBe(before);
    expect(lines.join('\n')).toMatch(/updated code-review .*v2/);
    expect(lines.join('\n')).toContain('removed a');
  });

  it('with --project, writes the project’s skills, shadowing the workspace ones', async () => {
    const pdir = await mkdtemp(path.join(tmpdir(), 'bullpen-skills-mob-'));
    try {
      const res = await syncSkills({ dir: pdir, project: 'MOB', call, out });
      expect(res.created).toEqual(expect.arrayContaining(['app-store', 'code-review']));
      expect(await readFile(path.join(pdir, 'code-review', 'SKILL.md'), 'utf8')).toContain('Check both platforms.');
    } finally {
      await rm(pdir, { recursive: true, force: true });
    }
  });

  it('fails with the tool error when the project does not exist, writing nothing', async () => {
    const pdir = await mkdtemp(path.join(tmpdir(), 'bullpen-skills-none-'));
    try {
      await expect(syncSkills({ dir: pdir, project: 'NOPE', call, out })).rejects.toThrow(/NOT_FOUND/);
      expect(await readdir(pdir)).toEqual([]);
    } finally {
      await rm(pdir, { recursive: true, force: true });
    }
  });
});
