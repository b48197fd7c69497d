import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * `bullpen skills sync`: materialises the workspace's skills as agent skills on disk,
 * `<dir>/<slug>/SKILL.md` with `name`/`description` frontmatter and the Bullpen id and version in
 * `metadata`. It owns only the folders it wrote (listed in MANIFEST): a folder of the same name that
 * it did not write is left alone, and owned folders whose skill was archived (or is gone) are
 * removed. Files are written to a temporary name and renamed, so a reader never sees half a file.
 */

export const MANIFEST = '.bullpen-skills.json';

type Envelope = { ok: boolean; error?: { code: string; message: string; hint?: string }; [k: string]: unknown };
export type ToolCall = (tool: string, input: unknown) => Promise<Envelope>;

type Skill = { id: string; slug: string; name: string; description: string; body: string; version: number; content_hash: string; scope: string; project_key: string | null };
type Owned = { id: string; version: number; content_hash: string; scope: string };
type Manifest = { written_by: 'bullpen skills sync'; project: string | null; skills: Record<string, Owned> };

export type SyncResult = { created: string[]; updated: string[]; removed: string[]; skipped: string[]; unchanged: string[] };

/** The SKILL.md of one skill. Frontmatter values are JSON strings, which YAML reads as quoted scalars. */
export function skillMarkdown(s: Skill): string {
  const body = s.body.endsWith('\n') ? s.body : `${s.body}\n`;
  return [
    '---',
    `name: ${s.slug}`,
    `description: ${JSON.stringify(s.description.replace(/\s+/g, ' ').trim())}`,
    'metadata:',
    `  bullpen_id: ${s.id}`,
    `  bullpen_version: "${s.version}"`,
    '---',
    '',
    body,
  ].join('\n');
}

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}

async function atomicWrite(file: string, content: string): Promise<void> {
  const tmp = `${file}.tmp-${randomBytes(4).toString('hex')}`;
  await writeFile(tmp, content, 'utf8');
  await rename(tmp, file);
}

async function readManifest(dir: string): Promise<Manifest | null> {
  try {
    const m = JSON.parse(await readFile(path.join(dir, MANIFEST), 'utf8')) as Manifest;
    return m && typeof m.skills === 'object' ? m : null;
  } catch {
    return null;
  }
}

async function listSkills(call: ToolCall, project: string | undefined): Promise<Skill[]> {
  const skills: Skill[] = [];
  let cursor: string | undefined;
  do {
    const env = await call('skill_list', { include_body: true, limit: 500, ...(project ? { project_id: project } : {}), ...(cursor ? { cursor } : {}) });
    if (!env.ok) throw new Error(`${env.error!.code}: ${env.error!.message}${env.error!.hint ? ` (${env.error!.hint})` : ''}`);
    skills.push(...(env.skills as Skill[]));
    cursor = (env.next_cursor as string | null) ?? undefined;
  } while (cursor);
  return skills;
}

/** Syncs once; returns what changed. Throws (writing nothing) when the skills cannot be listed. */
export async function syncSkills(opts: { dir: string; project?: string; call: ToolCall; out?: Pick<Console, 'log' | 'error'> }): Promise<SyncResult> {
  const out = opts.out ?? console;
  const dir = path.resolve(opts.dir);
  const skills = await listSkills(opts.call, opts.project);
  await mkdir(dir, { recursive: true });
  const previous = await readManifest(dir);
  const owned: Record<string, Owned> = { ...(previous?.skills ?? {}) };
  const result: SyncResult = { created: [], updated: [], removed: [], skipped: [], unchanged: [] };
  const live = new Set<string>();

  for (const s of skills) {
    live.add(s.slug);
    const folder = path.join(dir, s.slug);
    const file = path.join(folder, 'SKILL.md');
    const mine = owned[s.slug];
    if (!mine && (await exists(folder))) {
      result.skipped.push(s.slug);
      out.error(`skipped ${s.slug}: ${folder} exists and was not written by bullpen skills sync`);
      continue;
    }
    const content = skillMarkdown(s);
    if (mine && mine.id === s.id && mine.version === s.version && (await readFile(file, 'utf8').catch(() => null)) === content) {
      result.unchanged.push(s.slug);
      continue;
    }
    const had = !!mine && (await exists(file));
    await mkdir(folder, { recursive: true });
    await atomicWrite(file, content);
    owned[s.slug] = { id: s.id, version: s.version, content_hash: s.content_hash, scope: s.scope };
    if (had) {
      result.updated.push(s.slug);
      out.log(`updated ${s.slug} v${mine!.version} → v${s.version}`);
    } else {
      result.created.push(s.slug);
      out.log(`created ${s.slug} v${s.version}${s.scope === 'project' ? ` (project ${s.project_key})` : ''}`);
    }
  }

  for (const slug of Object.keys(owned)) {
    if (live.has(slug)) continue;
    await rm(path.join(dir, slug), { recursive: true, force: true });
    delete owned[slug];
    result.removed.push(slug);
    out.log(`removed ${slug} (archived or no longer in the library)`);
  }

  const manifest: Manifest = {
    written_by: 'bullpen skills sync',
    project: opts.project ?? null,
    skills: Object.fromEntries(Object.entries(owned).sort(([a], [b]) => (a < b ? -1 : 1))),
  };
  await atomicWrite(path.join(dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  out.log(
    `skills: ${result.created.length} created, ${result.updated.length} updated, ${result.removed.length} removed, ` +
      `${result.unchanged.length} unchanged, ${result.skipped.length} skipped → ${dir}`,
  );
  return result;
}
