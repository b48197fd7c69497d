import { z } from 'zod';
import { ERROR_CODES } from './errors';
import { DOCS_NOTE, exactInputJsonSchema, outputBranches, outputJsonSchema, type JsonSchema } from './json-schema';
import { registry } from './registry';

/**
 * The tool reference (docs/tools.md) and the README's tool table, generated from the registry by
 * `npm run docs`; a unit test keeps both current.
 */

const FORMATS: Record<string, string> = { uuid: 'uuid', 'date-time': 'datetime', date: 'date' };

/** A type as a person reads it: `uuid | null`, `TaskRow[]`, `"a" \| "b"`. Pipes are escaped for tables. */
function typeOf(s: JsonSchema): string {
  if (s.$ref) {
    const name = s.$ref.replace('#/$defs/', '');
    return `[${name}](#${name.toLowerCase()})`;
  }
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.enum) return s.enum.map((e) => JSON.stringify(e)).join(' \\| ');
  const union = s.anyOf ?? s.oneOf;
  if (union) return union.map(typeOf).join(' \\| ');
  if (Array.isArray(s.type)) return s.type.map((type) => typeOf({ ...s, type })).join(' \\| ');
  if (s.type === 'array') {
    if (s.maxItems === 0 || s.items?.not) return '[] (for now)';
    const inner = s.items ? typeOf(s.items) : 'any';
    return inner.includes('\\|') ? `(${inner})[]` : `${inner}[]`;
  }
  if (s.type === 'string' && s.format) return FORMATS[s.format] ?? s.format;
  if (s.type === 'object') {
    if (s.properties) return 'object';
    const values = typeof s.additionalProperties === 'object' ? typeOf(s.additionalProperties) : '';
    return values && values !== 'any' ? `{string: ${values}}` : 'object';
  }
  return s.type ?? 'any';
}

const cell = (text: string | undefined) => (text ?? '').replace(/\|/g, '\\|');

/**
 * An input's bounds as a person reads them (`1–200 chars`, `0–4`, `≤ 20 items`): tools/list leaves
 * them to the validator, so this table is where a person or a model finds them.
 */
function bounds(s: JsonSchema): string {
  if (s.format === 'uuid') return '';
  const range = (lo: unknown, hi: unknown, unit: string) =>
    hi === undefined ? (lo ? `≥ ${lo}${unit}` : '') : lo ? `${lo}–${hi}${unit}` : `≤ ${hi}${unit}`;
  const parts = [
    range(s.minLength, s.maxLength, ' chars'),
    range(s.minItems, s.maxItems, ' items'),
    (s.minimum !== undefined || s.maximum !== undefined) &&
    !s.description?.includes(`${s.minimum ?? ''}–${s.maximum ?? ''}`) &&
    !s.description?.startsWith(`≤ ${s.maximum}`)
      ? `${s.minimum ?? ''}–${s.maximum ?? ''}`
      : '',
    // a short pattern is its own best description; the long ones (a uuid or a reference, a
    // date-time) are said in words by the field's description or type
    typeof s.pattern === 'string' && s.pattern.length <= 40 && !s.format ? `pattern \`${s.pattern}\`` : '',
  ];
  return parts.filter(Boolean).join(', ');
}

/** The notes column of an input row: its description, its docs note (a default), then its bounds. */
function inputNotes(p: JsonSchema): string {
  const items = p.type === 'array' && p.items && !p.items.properties ? bounds(p.items) : '';
  return cell([p.description, p[DOCS_NOTE] as string | undefined, bounds(p), items && `each ${items}`].filter(Boolean).join('; '));
}

/** Input table rows; a nested object's fields (patch, tasks[]) follow it as `patch.title` rows. */
function inputRows(s: JsonSchema, prefix = ''): string[] {
  const rows: string[] = [];
  for (const [name, p] of Object.entries(s.properties ?? {})) {
    rows.push(`| \`${prefix}${name}\` | ${typeOf(p)} | ${s.required?.includes(name) ? 'yes' : ''} | ${inputNotes(p)} |`);
    const obj = [p, ...(p.anyOf ?? [])].find((x) => x.type === 'object' && x.properties);
    if (obj) rows.push(...inputRows(obj, `${prefix}${name}.`));
    else if (p.type === 'array' && p.items?.properties) rows.push(...inputRows(p.items, `${prefix}${name}[].`));
  }
  return rows;
}

/**
 * The largest shared shape whose every field `s` has, unchanged, when it makes up most of `s`
 * (Task is TaskRow plus body); a small shape that happens to fit is not worth the detour.
 */
function baseShape(s: JsonSchema, defs: Record<string, JsonSchema>): string | undefined {
  const props = s.properties ?? {};
  const size = Object.keys(props).length;
  let best: [string, number] | undefined;
  for (const [name, d] of Object.entries(defs)) {
    const keys = Object.keys(d.properties ?? {});
    if (keys.length === 0 || keys.length >= size || keys.length * 3 < size * 2) continue;
    const same = keys.every((k) => k in props && JSON.stringify(props[k]) === JSON.stringify(d.properties![k]));
    if (same && (!best || keys.length > best[1])) best = [name, keys.length];
  }
  return best?.[0];
}

/**
 * Table rows for an object's fields. Inline objects (and arrays of them) are spelled out as a.b
 * rows; an object that extends a shared shape names the shape and lists only what it adds.
 */
function fieldRows(s: JsonSchema, defs: Record<string, JsonSchema>, prefix = ''): string[] {
  const rows: string[] = [];
  const base = baseShape(s, defs);
  const inherited = new Set(base ? Object.keys(defs[base].properties ?? {}) : []);
  if (base) rows.push(`| \`${prefix}…\` | ${typeOf({ $ref: `#/$defs/${base}` })} | every field of ${base}, and: |`);
  for (const [name, p] of Object.entries(s.properties ?? {})) {
    if (name === 'idempotent_replay' || inherited.has(name)) continue;
    const path = `${prefix}${name}${s.required?.includes(name) ? '' : '?'}`;
    const plain = p.anyOf?.find((x) => x.type !== 'null') ?? p;
    const nullable = p.anyOf?.some((x) => x.type === 'null') ? ' \\| null' : '';
    if (plain.type === 'object' && plain.properties) {
      rows.push(`| \`${path}\` | object${nullable} | ${cell(p.description ?? plain.description)} |`);
      rows.push(...fieldRows(plain, defs, `${prefix}${name}.`));
    } else if (plain.type === 'array' && plain.items?.type === 'object' && plain.items.properties) {
      rows.push(`| \`${path}\` | object[]${nullable} | ${cell(p.description ?? plain.description)} |`);
      rows.push(...fieldRows(plain.items, defs, `${prefix}${name}[].`));
    } else {
      rows.push(`| \`${path}\` | ${typeOf(p)} | ${cell(p.description)} |`);
    }
  }
  return rows;
}

function outputSection(schema: JsonSchema, defs: Record<string, JsonSchema>): string[] {
  const branches = outputBranches(schema);
  const out: string[] = [];
  branches.forEach((b, i) => {
    const tag = Object.entries(b.properties ?? {}).find(([, p]) => p.const !== undefined);
    const when =
      branches.length < 2 ? '' : tag ? ` when \`${tag[0]}\` is \`${JSON.stringify(tag[1].const)}\`` : b.description ? ` ${b.description}` : ` (form ${i + 1})`;
    out.push(`Returns${when}:`, '', '| field | type | notes |', '| --- | --- | --- |', ...fieldRows(b, defs), '');
  });
  return out;
}

/** The tool reference (docs/tools.md). */
export function toolsMarkdown(): string {
  const rooms = [...new Set(registry.map((t) => t.room))];
  const shapes: Record<string, JsonSchema> = {};
  const out = [
    '# Bullpen tools',
    '',
    `Generated from \`lib/core/registry.ts\` by \`npm run docs\`; ${registry.length} tools. Inputs are snake_case and strict; camelCase is accepted as an alias. Every call returns \`{ok: true, …}\` or \`{ok: false, error: {code, message, hint, retryable}}\`; the tables under "Returns" list the fields beside \`ok\`. A field marked \`?\` may be absent. A write that replays an earlier call with the same \`idempotency_key\` (kept 24 h) answers with that call's result and \`idempotent_replay: true\`. An actor id may be \`"me"\`, the caller; \`cursor\` takes the previous page's \`next_cursor\` verbatim; a \`patch\` changes only the fields it names, and \`null\` clears one. The notes give each input's default and bounds (characters, items, numbers, short patterns) as the server checks them; tools/list shows each input's shape and leaves these to the server, whose refusal names the field and the bound. Shapes used by several tools are described once, under [Shapes](#shapes).`,
    '',
  ];
  for (const room of rooms) {
    out.push(`## ${room[0].toUpperCase()}${room.slice(1)}`, '');
    for (const t of registry.filter((x) => x.room === room)) {
      const input = exactInputJsonSchema(t);
      const output = outputJsonSchema(t);
      // shapes an input or an answer names (ObjectRef, Task…) are described once, under Shapes
      for (const [name, def] of Object.entries({ ...input.$defs, ...output.$defs })) shapes[name] ??= def;
      out.push(`### \`${t.name}\` — ${t.title}`, '', t.description, '');
      out.push(`${t.kind === 'read' ? 'Read' : 'Write'}${t.idempotency === 'explicit' ? ' · retry-safe only with an explicit idempotency_key' : t.kind === 'write' ? ' · retry-safe (derived idempotency key)' : ''}`, '');
      const props = Object.entries(input.properties ?? {});
      if (props.length) {
        out.push('| input | type | required | notes |', '| --- | --- | --- | --- |');
        out.push(...inputRows(input));
        out.push('');
      } else out.push('No inputs.', '');
      // an answer that is itself a shared shape (project_brief) is named, not spelled out twice
      const named = z.globalRegistry.get(t.output)?.id;
      if (named) {
        const { $defs: _defs, ...body } = output;
        shapes[named] ??= body;
        out.push(`Returns a ${typeOf({ $ref: `#/$defs/${named}` })}.`, '');
      } else out.push(...outputSection(output, { ...shapes, ...output.$defs }));
    }
  }
  out.push('## Shapes', '');
  for (const [name, s] of Object.entries(shapes)) {
    out.push(`### ${name}`, '');
    if (s.description) out.push(s.description, '');
    out.push('| field | type | notes |', '| --- | --- | --- |', ...fieldRows(s, shapes), '');
  }
  out.push('## Error codes', '', '| code | retryable | meaning | default hint |', '| --- | --- | --- | --- |');
  for (const [code, d] of Object.entries(ERROR_CODES)) out.push(`| \`${code}\` | ${d.retryable ? 'yes' : 'no'} | ${d.meaning} | ${d.hint} |`);
  return out.join('\n') + '\n';
}

/** The README's tool table: the registry's tools by room. */
export function readmeToolTable(): string {
  const rooms = [...new Set(registry.map((t) => t.room))];
  return [
    `${registry.length} tools today, by room (generated from the registry by \`npm run docs\`; [docs/tools.md](docs/tools.md) has each one's inputs and answer):`,
    '',
    '| room | tools |',
    '| --- | --- |',
    ...rooms.map((room) => `| ${room} | ${registry.filter((t) => t.room === room).map((t) => `\`${t.name}\``).join(', ')} |`),
  ].join('\n');
}

/** Replaces the text between `<!-- name:start -->` and `<!-- name:end -->`; throws when a marker is missing. */
export function spliceGenerated(text: string, name: string, body: string): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  if (i < 0 || j < i) throw new Error(`markers ${start} … ${end} not found`);
  return `${text.slice(0, i + start.length)}\n${body}\n${text.slice(j)}`;
}
