import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { MARKDOWN_BUDGET, Markdown, safeHref, splitForMarkdown } from '../../components/markdown';

const html = (text: string) => renderToStaticMarkup(createElement(Markdown, { text }));
const hrefs = (text: string) => [...html(text).matchAll(/href="([^"]*)"/g)].map((m) => m[1]);

describe('the Markdown URL policy', () => {
  it('links http, https, mailto and paths on this origin', () => {
    expect(safeHref('https://example.com/a?b#c')).toBe('https://example.com/a?b#c');
    expect(safeHref('HTTP://example.com')).toBe('HTTP://example.com');
    expect(safeHref('mailto:ops@example.com')).toBe('mailto:ops@example.com');
    expect(safeHref('/tasks/PA-1')).toBe('/tasks/PA-1');
    expect(safeHref('  /board  ')).toBe('/board');
  });

  it('refuses other schemes, scheme-relative hosts and the spellings browsers turn into them', () => {
    for (const bad of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox(1)',
      'file:///etc/passwd',
      '//evil.example',
      '/\\evil.example',
      '/%5Cevil.example',
      '/%2f/evil.example',
      '/\t/evil.example',
      '/\n/evil.example',
      '\\\\evil.example',
      'https:evil.example',
      'https://',
      'mailto:',
      'tasks/PA-1',
      '',
      null,
    ]) {
      expect(safeHref(bad as string | null), String(bad)).toBeNull();
    }
  });

  it('renders refused links as text and allowed ones as links', () => {
    expect(hrefs('[ok](https://example.com) [mail](mailto:a@b.c) [here](/board)')).toEqual([
      'https://example.com',
      'mailto:a@b.c',
      '/board',
    ]);
    const out = html('[x](javascript:alert(1)) [y](//evil.example) [z](/\\evil.example) <a href="https://raw.example">raw</a>');
    expect([...out.matchAll(/href="([^"]*)"/g)].map((m) => m[1])).toEqual([]);
    expect(out).toContain('>x<');
    expect(out).not.toContain('javascript:');
    expect(out).not.toContain('evil.example"');
    expect(out).not.toContain('raw.example');
    expect(hrefs('<https://fine.example>')).toEqual(['https://fine.example']);
  });

  it('shows an image as a link to it, never as an image', () => {
    const out = html('![chart](https://img.example/c.png) ![x](javascript:alert(1))');
    expect(out).not.toContain('<img');
    expect(hrefs('![chart](https://img.example/c.png)')).toEqual(['https://img.example/c.png']);
    expect(out).not.toContain('javascript:');
  });

  it('renders what task bodies use: headings, task lists, code, quotes, tables, bare links', () => {
    const out = html('# Plan\n\n- [x] done\n- [ ] open\n\n```sql\nselect 1;\n```\n\n> quoted\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\nsee https://example.com/x');
    expect(out).toContain('role="heading" aria-level="1"');
    expect(out.match(/type="checkbox"/g)).toHaveLength(2);
    expect(out).toContain('select 1;');
    expect(out).toContain('<blockquote');
    expect(out).toContain('<table');
    expect(hrefs('see https://example.com/x')).toEqual(['https://example.com/x']);
  });

});

describe('the Markdown budget', () => {
  it('parses a short body whole', () => {
    expect(splitForMarkdown('# a\n\ntext')).toEqual({ markdown: '# a\n\ntext', rest: '' });
  });

  it('cuts a long body at a blank line outside code, within both budgets', () => {
    const block = 'para with [a link](https://example.com)\n\n';
    const body = block.repeat(2000);
    const { markdown, rest } = splitForMarkdown(body);
    expect(markdown + rest).toBe(body);
    expect(markdown.length).toBeLessThanOrEqual(MARKDOWN_BUDGET.chars);
    expect(markdown.match(/[[\]<>*_&`~!]/g)!.length).toBeLessThanOrEqual(MARKDOWN_BUDGET.marks);
    expect(markdown.endsWith('\n\n')).toBe(true);
    // never inside a fenced block
    const fenced = `intro\n\n\`\`\`\n${'x\n\n'.repeat(6000)}\`\`\`\n\nafter`;
    expect(splitForMarkdown(fenced).markdown).toBe('intro\n\n');
  });

  it('shows a body of marks as plain text, the rest after the parsed part', () => {
    const out = html('['.repeat(100_000));
    expect(out).toContain('data-testid="markdown-rest"');
    expect(out).not.toContain('<a');
    const mixed = html(`**bold** start\n\n${'*_'.repeat(5000)}`);
    expect(mixed).toContain('<strong');
    expect(mixed).toContain('The rest is long and shown as plain text.');
  });
});
