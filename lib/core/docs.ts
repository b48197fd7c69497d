import { z } from 'zod';
import { ERROR_CODES } from './errors';
import { registry } from './registry';

type JsonSchema = { type?: string; properties?: Record<string, JsonSchema>; required?: string[]; description?: string; enum?: unknown[]; anyOf?: JsonSchema[]; items?: JsonSchema; const?: unknown };

function typeOf(s: JsonSchema): string {
  if (s.enum) return s.enum.map((e) => JSON.stringify(e)).join(' \\| ');
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.anyOf) return s.anyOf.map(typeOf).join(' \\| ');
  if (s.type === 'array') return `${s.items ? typeOf(s.items) : 'any'}[]`;
  return s.type ?? 'any';
}

/** The tool reference (docs/tools.md), generated from the registry; a test keeps the file current. */
export function toolsMarkdown(): string {
  const rooms = [...new Set(registry.map((t) => t.room))];
  const out = [
    '# Bullpen tools',
    '',
    `Generated from \`lib/core/registry.ts\` by \`npm run docs\`; ${registry.length} tools. Inputs are snake_case and strict; camelCase is accepted as an alias. Every call returns \`{ok: true, …}\` or \`{ok: false, error: {code, message, hint, retryable}}\`.`,
    '',
  ];
  for (const room of rooms) {
    out.push(`## ${room[0].toUpperCase()}${room.slice(1)}`, '');
    for (const t of registry.filter((x) => x.room === room)) {
      const schema = z.toJSONSchema(t.input, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
      out.push(`### \`${t.name}\` — ${t.title}`, '', t.description, '');
      out.push(`${t.kind === 'read' ? 'Read' : 'Write'}${t.idempotency === 'explicit' ? ' · retry-safe only with an explicit idempotency_key' : t.kind === 'write' ? ' · retry-safe (derived idempotency key)' : ''}`, '');
      const props = Object.entries(schema.properties ?? {});
      if (props.length) {
        out.push('| input | type | required | notes |', '| --- | --- | --- | --- |');
        for (const [name, p] of props) {
          out.push(`| \`${name}\` | ${typeOf(p)} | ${schema.required?.includes(name) ? 'yes' : ''} | ${(p.description ?? '').replace(/\|/g, '\\|')} |`);
        }
        out.push('');
      } else out.push('No inputs.', '');
    }
  }
  out.push('## Error codes', '', '| code | retryable | meaning | default hint |', '| --- | --- | --- | --- |');
  for (const [code, d] of Object.entries(ERROR_CODES)) out.push(`| \`${code}\` | ${d.retryable ? 'yes' : 'no'} | ${d.meaning} | ${d.hint} |`);
  return out.join('\n') + '\n';
}
