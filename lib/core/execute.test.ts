import { describe, expect, it } from 'vitest';
import type { Db } from '../db/types';
import { execute, formatPath, inspectInput, MAX_INPUT_DEPTH } from './execute';
import { inputJsonSchema } from './json-schema';
import { getTool } from './registry';

describe('inspectInput', () => {
  it('passes ordinary input, emoji and RTL text included', () => {
    expect(inspectInput({ title: 'ship 😀 שלום', labels: ['a'], tasks: [{ depends_on: [{ batch_index: 0 }] }] })).toBeNull();
  });
  it('finds a NUL byte or an unpaired surrogate in any string or key, with its path', () => {
    expect(inspectInput({ a: { b: ['ok', 'x\u0000'] } })).toMatchObject({ path: 'a.b[1]' });
    expect(inspectInput({ t: '\ud800' })?.message).toMatch(/surrogate/);
    expect(inspectInput({ t: 'end\ud83d' })?.message).toMatch(/surrogate/);
    expect(inspectInput({ t: '\ude00start' })?.message).toMatch(/surrogate/);
    expect(inspectInput({ m: { ['k\u0000']: 1 } })).toMatchObject({ path: 'm', message: expect.stringMatching(/key/) });
  });
  it(`refuses nesting past ${MAX_INPUT_DEPTH} levels without recursing (200,000 deep is fine to inspect)`, () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(inspectInput({ note: deep })).toMatchObject({ path: 'note[0][0]', message: expect.stringMatching(/deeper/) });
  });
  it('formats paths with odd keys quoted', () => {
    expect(formatPath(['tasks', 0, 'depends_on', 1])).toBe('tasks[0].depends_on[1]');
    expect(formatPath(['', 'a b'])).toBe('""."a b"');
  });
});

// tools/list leaves the bounds to the validator, so its refusal is where a model learns them: it
// must name the field and the bound. The database is never reached: validation comes first.
describe('a refusal for a bound the advertised schema does not carry', () => {
  const ctx = { db: null as unknown as Db, claims: { sub: 'a', role: 'authenticated', tenant_id: 't', actor_id: 'a', run_id: 'r', kind: 'agent' } } as never;
  const refusal = async (tool: string, input: unknown) => {
    const env = await execute(ctx, tool, input);
    if (env.ok) throw new Error(`${tool} took ${JSON.stringify(input).slice(0, 80)}`);
    expect(env.error.code).toBe('VALIDATION_ERROR');
    return env.error as { message: string; hint: string; details?: { fields?: string[] } };
  };

  it('names the field and the length for a too-long title', async () => {
    expect(inputJsonSchema(getTool('task_create')!).properties!.title).toEqual({ type: 'string' });
    const e = await refusal('task_create', { project_id: 'PAY', title: 'x'.repeat(501) });
    expect(e.message).toBe('title: Too big: expected string to have <=500 characters');
    expect(e.details?.fields).toEqual(['title']);
    expect(e.hint).toMatch(/limit is in the message/);
  });

  it('names the field and the count for too many labels, and the item for a too-long one', async () => {
    const many = await refusal('task_update', { task_id: 'PAY-1', patch: { labels: Array.from({ length: 21 }, (_, i) => `l${i}`) } });
    expect(many.message).toBe('patch.labels: Too big: expected array to have <=20 items');
    expect(many.details?.fields).toEqual(['patch.labels']);
    const long = await refusal('task_create', { project_id: 'PAY', title: 't', labels: ['ok', 'x'.repeat(65)] });
    expect(long.message).toBe('labels[1]: Too big: expected string to have <=64 characters');
  });

  it('names the field and the range for a number and the form for a reference', async () => {
    expect((await refusal('inbox', { wait_seconds: 61 })).message).toBe('wait_seconds: Too big: expected number to be <=60');
    expect((await refusal('task_get', { task_id: 'twelve' })).message).toBe('task_id: a task uuid or KEY-N reference');
  });
});
