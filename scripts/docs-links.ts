// The relative links of README.md and docs/*.md, and the anchors their headings make, so a test can
// prove every link resolves (scripts/docs-links.test.ts).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The markdown files whose links are checked: the README and every page of the manual. */
export function docFiles(root: string): string[] {
  const docs = readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join('docs', f));
  return ['README.md', ...docs.sort()];
}

/** The text with fenced code blocks blanked and inline code spans emptied (links there are not links). */
function withoutCode(text: string): string {
  let fenced = false;
  return text
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) {
        fenced = !fenced;
        return '';
      }
      return fenced ? '' : line.replace(/`[^`]*`/g, (m) => m.replace(/[[\]()]/g, ' '));
    })
    .join('\n');
}

/** GitHub's anchor for a heading text: lowercase, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  const plain = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*_]/g, (m) => (m === '_' ? '_' : ''))
    .trim()
    .toLowerCase();
  return plain.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** Every anchor a markdown file offers: its headings' slugs (repeats numbered as GitHub does). */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The relative links of a markdown text (images included), without external and mail links. */
export function relativeLinks(text: string): string[] {
  const links: string[] = [];
  for (const m of withoutCode(text).matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = m[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    links.push(target);
  }
  return links;
}

/** Links that do not resolve, as "file: target (why)". */
export function brokenLinks(root: string): string[] {
  const broken: string[] = [];
  const cache = new Map<string, Set<string>>();
  const anchorsOf = (file: string) => {
    if (!cache.has(file)) cache.set(file, anchors(readFileSync(path.join(root, file), 'utf8')));
    return cache.get(file)!;
  };
  for (const file of docFiles(root)) {
    const text = readFileSync(path.join(root, file), 'utf8');
    for (const link of relativeLinks(text)) {
      const [target, hash] = link.split('#', 2) as [string, string | undefined];
      const resolved = target ? path.normalize(path.join(path.dirname(file), decodeURI(target))) : file;
      if (resolved.startsWith('..')) {
        broken.push(`${file}: ${link} (outside the repository)`);
        continue;
      }
      if (!existsSync(path.join(root, resolved))) {
        broken.push(`${file}: ${link} (no such file)`);
        continue;
      }
      if (hash !== undefined && resolved.endsWith('.md') && !anchorsOf(resolved).has(hash)) {
        broken.push(`${file}: ${link} (no heading #${hash} in ${resolved})`);
      }
    }
  }
  return broken;
}
