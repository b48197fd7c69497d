/**
 * Markdown in the console: how long the renderer (components/markdown.tsx, react-markdown with
 * remark-gfm) takes on 100,000-character bodies built to be hard for a parser: brackets (the old
 * renderer took 4 s on 40,000 of them), emphasis runs, backticks, link openers, nested quotes and
 * lists, and an ordinary long body. Each is reported beside a plain-text render of the same body
 * measured in the same run (a <p> holding the text), as a ratio, so the number says what the
 * parsing costs on this machine. Target: under 100 ms per body.
 * Prints JSON lines (bench/_common.mjs format). Needs no database.
 */
import { loadavg } from 'node:os';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { Markdown } from '../components/markdown';
import { emit, percentile } from './_common.mjs';

const SIZE = Number(process.env.BENCH_MARKDOWN_CHARS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_MARKDOWN_ROUNDS ?? 7);

const fill = (unit: string) => unit.repeat(Math.ceil(SIZE / unit.length)).slice(0, SIZE);

const BODIES: Record<string, string> = {
  brackets: fill('['),
  link_openers: fill('[a]('),
  nested_links: fill('[[a]('),
  emphasis: fill('*_'),
  backticks: fill('`'),
  angle: fill('<'),
  quotes_lists: fill('> - > 1. '),
  bare_urls: fill('https://example.com/a_b*c '),
  // the parsed part's worst case: paragraphs of marks, so the cut falls at the marks budget
  marks_in_blocks: fill(`${'*_'.repeat(50)}[a](\n\n`),
  ordinary: fill('## Plan\n\nShip the **export** with [the spec](https://example.com/spec) and `npm run bench`.\n\n- [x] one\n- [ ] two\n\n'),
};

function timeRender(render: () => unknown): number[] {
  const ms: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now();
    render();
    ms.push(performance.now() - t);
  }
  return ms.sort((a, b) => a - b);
}

// warm both paths once so the first case does not pay module start-up
renderToStaticMarkup(createElement(Markdown, { text: 'warm *up* [x](/y)' }));
renderToStaticMarkup(createElement('p', null, 'warm up'));

for (const [name, body] of Object.entries(BODIES)) {
  const md = timeRender(() => renderToStaticMarkup(createElement(Markdown, { text: body })));
  const plain = timeRender(() => renderToStaticMarkup(createElement('p', null, body)));
  const p50 = percentile(md, 50);
  const base = Math.max(percentile(plain, 50), 0.01);
  emit({
    bench: 'markdown_render',
    body: name,
    chars: body.length,
    rounds: ROUNDS,
    p50_ms: p50,
    max_ms: percentile(md, 100),
    plain_p50_ms: percentile(plain, 50),
    ratio_to_plain: Math.round((p50 / base) * 10) / 10,
    target_ms: 100,
    // this machine's load while measuring: a shared machine's numbers read against it
    load_1m: Math.round(loadavg()[0] * 10) / 10,
    within_target: percentile(md, 100) < 100,
  });
}
