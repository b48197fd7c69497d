import { describe, expect, it } from 'vitest';
import { formatPath, inspectInput, MAX_INPUT_DEPTH } from './execute';

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
