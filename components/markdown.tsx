import { Fragment, type ReactNode } from 'react';

/**
 * A small, safe Markdown renderer for task bodies and comments: headings, paragraphs, lists (with
 * [ ] / [x] items), fenced code, quotes, rules, and inline code, bold, italic, strikethrough and
 * links. It builds React elements only (no HTML injection); links are limited to http(s) and mailto.
 */

function safeHref(href: string): string | null {
  const h = href.trim();
  return /^(https?:\/\/|mailto:|\/)/i.test(h) ? h : null;
}

const INLINE = /(`[^`]+`)|(\*\*[^*]+\*\*)|(__[^_]+__)|(\*[^*\s][^*]*\*)|(_[^_\s][^_]*_)|(~~[^~]+~~)|(\[[^\]]+\]\([^)\s]+\))|(https?:\/\/[^\s<>()]+)/g;

export function renderInline(text: string, keyBase = 'i'): ReactNode[] {
  const out: ReactNode[] = [];
  let last = 0;
  let n = 0;
  for (const m of text.matchAll(INLINE)) {
    const at = m.index ?? 0;
    if (at > last) out.push(text.slice(last, at));
    const tok = m[0];
    const key = `${keyBase}-${n++}`;
    if (m[1]) out.push(<code key={key} className="rounded bg-zinc-100 px-1 py-px font-mono text-[0.92em] text-zinc-800">{tok.slice(1, -1)}</code>);
    else if (m[2] || m[3]) out.push(<strong key={key} className="font-semibold">{renderInline(tok.slice(2, -2), key)}</strong>);
    else if (m[4] || m[5]) out.push(<em key={key}>{renderInline(tok.slice(1, -1), key)}</em>);
    else if (m[6]) out.push(<del key={key}>{renderInline(tok.slice(2, -2), key)}</del>);
    else if (m[7]) {
      const lm = /^\[([^\]]+)\]\(([^)\s]+)\)$/.exec(tok)!;
      const href = safeHref(lm[2]);
      out.push(href ? <a key={key} href={href} target="_blank" rel="noreferrer noopener" className="text-indigo-600 underline-offset-2 hover:underline">{renderInline(lm[1], key)}</a> : lm[1]);
    } else if (m[8]) out.push(<a key={key} href={tok} target="_blank" rel="noreferrer noopener" className="break-all text-indigo-600 underline-offset-2 hover:underline">{tok}</a>);
    last = at + tok.length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

type Block =
  | { t: 'h'; level: number; text: string }
  | { t: 'p'; text: string }
  | { t: 'code'; lang: string; text: string }
  | { t: 'quote'; text: string }
  | { t: 'hr' }
  | { t: 'list'; ordered: boolean; items: { text: string; check: boolean | null }[] };

export function parseBlocks(src: string): Block[] {
  const lines = src.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) {
      i++;
      continue;
    }
    const fence = /^```(\S*)/.exec(line);
    if (fence) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !/^```/.test(lines[i])) body.push(lines[i++]);
      i++;
      blocks.push({ t: 'code', lang: fence[1], text: body.join('\n') });
      continue;
    }
    const h = /^(#{1,6})\s+(.*)$/.exec(line);
    if (h) {
      blocks.push({ t: 'h', level: h[1].length, text: h[2] });
      i++;
      continue;
    }
    if (/^(\s*[-*_]){3,}\s*$/.test(line)) {
      blocks.push({ t: 'hr' });
      i++;
      continue;
    }
    if (/^>\s?/.test(line)) {
      const body: string[] = [];
      while (i < lines.length && /^>\s?/.test(lines[i])) body.push(lines[i++].replace(/^>\s?/, ''));
      blocks.push({ t: 'quote', text: body.join(' ') });
      continue;
    }
    const li = /^\s*([-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (li) {
      const ordered = /\d/.test(li[1]);
      const items: { text: string; check: boolean | null }[] = [];
      while (i < lines.length) {
        const m = /^\s*([-*+]|\d+[.)])\s+(.*)$/.exec(lines[i]);
        if (!m) {
          if (lines[i].trim() && /^\s{2,}/.test(lines[i]) && items.length) {
            items[items.length - 1].text += ` ${lines[i].trim()}`;
            i++;
            continue;
          }
          break;
        }
        const c = /^\[([ xX])\]\s+(.*)$/.exec(m[2]);
        items.push(c ? { text: c[2], check: c[1] !== ' ' } : { text: m[2], check: null });
        i++;
      }
      blocks.push({ t: 'list', ordered, items });
      continue;
    }
    const para: string[] = [];
    while (i < lines.length && lines[i].trim() && !/^(#{1,6}\s|```|>\s?|\s*([-*+]|\d+[.)])\s+)/.test(lines[i])) para.push(lines[i++]);
    blocks.push({ t: 'p', text: para.join('\n') });
  }
  return blocks;
}

function withBreaks(text: string, key: string): ReactNode[] {
  return text.split('\n').flatMap((l, j, all) => [<Fragment key={`${key}-${j}`}>{renderInline(l, `${key}-${j}`)}</Fragment>, j < all.length - 1 ? <br key={`${key}-br${j}`} /> : null]);
}

/** Renders Markdown text as React elements. */
export function Markdown({ text, className = '' }: { text: string; className?: string }) {
  const blocks = parseBlocks(text);
  return (
    <div className={`space-y-2 text-[13px] leading-relaxed text-zinc-700 ${className}`}>
      {blocks.map((b, k) => {
        const key = `b${k}`;
        switch (b.t) {
          case 'h': {
            const cls = b.level <= 2 ? 'text-[14px] font-semibold text-zinc-900' : 'text-[13px] font-semibold text-zinc-900';
            return <p key={key} role="heading" aria-level={b.level} className={cls}>{renderInline(b.text, key)}</p>;
          }
          case 'p':
            return <p key={key}>{withBreaks(b.text, key)}</p>;
          case 'code':
            return (
              <pre key={key} className="overflow-x-auto rounded-md bg-zinc-950 p-3 font-mono text-[12px] leading-normal text-zinc-100">
                <code>{b.text}</code>
              </pre>
            );
          case 'quote':
            return <blockquote key={key} className="border-l-2 border-zinc-300 pl-3 text-zinc-500">{renderInline(b.text, key)}</blockquote>;
          case 'hr':
            return <hr key={key} className="border-zinc-200" />;
          case 'list': {
            const Tag = b.ordered ? 'ol' : 'ul';
            return (
              <Tag key={key} className={`${b.ordered ? 'list-decimal' : b.items.some((x) => x.check !== null) ? 'list-none' : 'list-disc'} space-y-0.5 pl-5`}>
                {b.items.map((it, j) => (
                  <li key={j} className={it.check !== null ? '-ml-5 flex items-start gap-1.5' : ''}>
                    {it.check !== null && <input type="checkbox" checked={it.check} readOnly disabled className="mt-1 size-3 accent-emerald-600" />}
                    <span>{renderInline(it.text, `${key}-${j}`)}</span>
                  </li>
                ))}
              </Tag>
            );
          }
        }
      })}
    </div>
  );
}
