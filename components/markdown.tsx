import type { ReactNode } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';

/**
 * Markdown in the console (task bodies, comments, handoffs, briefs, feedback): react-markdown with
 * GitHub's extensions (tables, task lists, strikethrough, bare links). It builds React elements
 * only: raw HTML in the text is never rendered. Links pass one URL policy, safeHref.
 */

// Control characters, spaces and backslashes have no place in a link we draw: browsers drop tabs
// and newlines and read "\" as "/", which turns "/\host" or "/\t/host" into another host.
const UNSAFE_URL_CHAR = /[\u0000-\u0020\u007f-\u009f\\\u2028\u2029]/;

/**
 * The URL policy: an http, https or mailto URL, or a path on this origin ("/tasks/PA-1"). A
 * scheme-relative "//host", "/\host" and every other scheme (javascript:, data:, vbscript:, file:)
 * are not links. Returns the URL to use, or null.
 */
export function safeHref(href: string | null | undefined): string | null {
  if (!href) return null;
  const h = href.trim();
  if (!h || UNSAFE_URL_CHAR.test(h)) return null;
  // Markdown percent-encodes a backslash ("/\host" arrives as "/%5Chost"): refused in either spelling
  if (h.startsWith('/')) return /^\/(\/|%5c|%2f)/i.test(h) ? null : h;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(h)?.[1]?.toLowerCase();
  if (scheme === 'http' || scheme === 'https') return /^https?:\/\/[^/?#]/i.test(h) ? h : null;
  if (scheme === 'mailto') return h.length > 'mailto:'.length ? h : null;
  return null;
}

function Heading({ level, children }: { level: number; children?: ReactNode }) {
  const cls = level <= 2 ? 'text-[14px] font-semibold text-zinc-900' : 'text-[13px] font-semibold text-zinc-900';
  return (
    <p role="heading" aria-level={level} className={cls}>
      {children}
    </p>
  );
}

const COMPONENTS: Components = {
  h1: ({ children }) => <Heading level={1}>{children}</Heading>,
  h2: ({ children }) => <Heading level={2}>{children}</Heading>,
  h3: ({ children }) => <Heading level={3}>{children}</Heading>,
  h4: ({ children }) => <Heading level={4}>{children}</Heading>,
  h5: ({ children }) => <Heading level={5}>{children}</Heading>,
  h6: ({ children }) => <Heading level={6}>{children}</Heading>,
  a: ({ href, children }) => {
    const safe = safeHref(href);
    if (!safe) return <span data-unsafe-link="">{children}</span>;
    return (
      <a href={safe} target="_blank" rel="noreferrer noopener" className="break-words text-indigo-600 underline-offset-2 hover:underline">
        {children}
      </a>
    );
  },
  // an image is shown as a link to it: a task body must not make every reader fetch a stranger's URL
  img: ({ src, alt }) => {
    const safe = safeHref(typeof src === 'string' ? src : null);
    const label = alt || 'image';
    return safe ? (
      <a href={safe} target="_blank" rel="noreferrer noopener" className="text-indigo-600 underline-offset-2 hover:underline">
        {label}
      </a>
    ) : (
      <span>{label}</span>
    );
  },
  code: ({ className, children }) =>
    className?.startsWith('language-') || String(children).includes('\n') ? (
      <code className={className}>{children}</code>
    ) : (
      <code className="rounded bg-zinc-100 px-1 py-px font-mono text-[0.92em] text-zinc-800">{children}</code>
    ),
  pre: ({ children }) => <pre tabIndex={0} className="overflow-x-auto rounded-md bg-zinc-950 p-3 font-mono text-[12px] leading-normal text-zinc-100">{children}</pre>,
  blockquote: ({ children }) => <blockquote className="border-l-2 border-zinc-300 pl-3 text-zinc-500">{children}</blockquote>,
  hr: () => <hr className="border-zinc-200" />,
  ul: ({ className, children }) => (
    <ul className={`${className?.includes('contains-task-list') ? 'list-none pl-0' : 'list-disc pl-5'} space-y-0.5`}>{children}</ul>
  ),
  ol: ({ children, start }) => (
    <ol start={start} className="list-decimal space-y-0.5 pl-5">
      {children}
    </ol>
  ),
  li: ({ className, children }) => <li className={className?.includes('task-list-item') ? 'flex items-start gap-1.5' : ''}>{children}</li>,
  input: ({ checked, type }) =>
    type === 'checkbox' ? <input type="checkbox" checked={!!checked} readOnly disabled className="mt-1 size-3 accent-emerald-600" /> : null,
  table: ({ children }) => (
    <div className="overflow-x-auto">
      <table className="border-collapse text-[12px]">{children}</table>
    </div>
  ),
  th: ({ children }) => <th className="border border-zinc-200 bg-zinc-50 px-2 py-1 text-left font-medium">{children}</th>,
  td: ({ children }) => <td className="border border-zinc-200 px-2 py-1">{children}</td>,
  del: ({ children }) => <del>{children}</del>,
  strong: ({ children }) => <strong className="font-semibold">{children}</strong>,
};

/** The policy applied to every URL the Markdown names; a refused one leaves its text unlinked. */
function urlTransform(url: string): string {
  return safeHref(url) ?? '';
}

/**
 * How much of a body is parsed as Markdown. A Markdown parser's work grows with the text and, on
 * runs of brackets or emphasis marks, faster than the text (40,000 "[" once took 4 s), so a body
 * is parsed up to a block boundary within both budgets and the rest is shown as plain text: a
 * 100,000-character body renders within 100 ms whatever it holds (bench/markdown.ts).
 */
export const MARKDOWN_BUDGET = { chars: 5_000, marks: 500 };

// the characters whose runs make a Markdown parser look back: link and image brackets, emphasis,
// autolinks and HTML, entities, code spans, strikethrough
const MARK = /[[\]<>*_&`~!]/g;

/**
 * Splits a body where its Markdown part ends: at the last blank line outside a fenced code block
 * that keeps the part within MARKDOWN_BUDGET. {markdown, rest}; rest is '' when all of it fits.
 */
export function splitForMarkdown(text: string, budget = MARKDOWN_BUDGET): { markdown: string; rest: string } {
  if (text.length <= budget.chars && (text.match(MARK)?.length ?? 0) <= budget.marks) return { markdown: text, rest: '' };
  let cut = 0;
  let marks = 0;
  let fence: string | null = null;
  let at = 0;
  while (at < text.length) {
    const nl = text.indexOf('\n', at);
    const end = nl < 0 ? text.length : nl + 1;
    const line = text.slice(at, end);
    if (end > budget.chars) break;
    marks += line.match(MARK)?.length ?? 0;
    if (marks > budget.marks) break;
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (f && (fence === null || (f[0] === fence[0] && f.length >= fence.length))) fence = fence === null ? f : null;
    if (fence === null && !line.trim()) cut = end;
    at = end;
    if (at >= text.length && fence === null) cut = at;
  }
  return { markdown: text.slice(0, cut), rest: text.slice(cut) };
}

/** Renders Markdown text as React elements (past MARKDOWN_BUDGET, the rest as plain text). */
export function Markdown({ text, className = '' }: { text: string; className?: string }) {
  const { markdown, rest } = splitForMarkdown(text);
  return (
    <div className={`space-y-2 text-[13px] leading-relaxed text-zinc-700 ${className}`}>
      {markdown && (
        <ReactMarkdown remarkPlugins={[remarkGfm]} components={COMPONENTS} urlTransform={urlTransform} skipHtml>
          {markdown}
        </ReactMarkdown>
      )}
      {rest && (
        <>
          <p className="text-[11px] text-zinc-500" data-testid="markdown-rest-note">
            {markdown ? 'The rest is long and shown as plain text.' : 'Long text, shown as plain text.'}
          </p>
          <div className="break-words whitespace-pre-wrap" data-testid="markdown-rest">
            {rest}
          </div>
        </>
      )}
    </div>
  );
}
