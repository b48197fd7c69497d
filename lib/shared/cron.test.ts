import { describe, expect, it } from 'vitest';
import { cronNext, cronPrevious, cronProblem, parseCron } from './cron';

const at = (s: string) => new Date(s);
const iso = (d: Date | null) => d?.toISOString() ?? null;

describe('parseCron', () => {
  it('reads values, ranges, steps, lists and names', () => {
    const c = parseCron('*/15 9-17 1,15 jan-mar mon-fri');
    expect([...c.minutes]).toEqual([0, 15, 30, 45]);
    expect([...c.hours]).toEqual([9, 10, 11, 12, 13, 14, 15, 16, 17]);
    expect([...c.days]).toEqual([1, 15]);
    expect([...c.months]).toEqual([1, 2, 3]);
    expect([...c.weekdays]).toEqual([1, 2, 3, 4, 5]);
    expect([...parseCron('0 0 * * 7').weekdays]).toEqual([0]);
    expect([...parseCron('5/20 * * * *').minutes]).toEqual([5, 25, 45]);
    expect([...parseCron('0 0 * * *').weekdays].length).toBe(7);
  });

  it('refuses what is wrong, naming the field', () => {
    expect(cronProblem('* * * *')).toMatch(/five fields/);
    expect(cronProblem('60 * * * *')).toMatch(/minute: 60 is outside 0-59/);
    expect(cronProblem('* 24 * * *')).toMatch(/hour: 24/);
    expect(cronProblem('* * 0 * *')).toMatch(/day-of-month: 0/);
    expect(cronProblem('* * * 13 *')).toMatch(/month: 13/);
    expect(cronProblem('* * * foo *')).toMatch(/month: foo is not a number or a name/);
    expect(cronProblem('* * * * 8')).toMatch(/day-of-week: 8/);
    expect(cronProblem('5-1 * * * *')).toMatch(/runs backwards/);
    expect(cronProblem('*/0 * * * *')).toMatch(/step must be at least 1/);
    expect(cronProblem('1-2-3 * * * *')).toMatch(/not a range/);
    expect(cronProblem('0 3 * * *')).toBeNull();
  });
});

describe('cronPrevious and cronNext (UTC)', () => {
  it('find the slot at or before a moment, and the next one after it', () => {
    expect(iso(cronPrevious('0 3 * * *', at('2026-11-26T20:59:30Z')))).toBe('2026-11-26T03:00:00.000Z');
    expect(iso(cronPrevious('0 3 * * *', at('2026-11-26T02:59:59Z')))).toBe('2026-11-25T03:00:00.000Z');
    expect(iso(cronPrevious('0 3 * * *', at('2026-11-26T03:00:59Z')))).toBe('2026-11-26T03:00:00.000Z');
    expect(iso(cronNext('0 3 * * *', at('2026-11-26T03:00:00Z')))).toBe('2026-11-27T03:00:00.000Z');
    expect(iso(cronNext('*/15 * * * *', at('2026-11-26T10:07:00Z')))).toBe('2026-11-26T10:15:00.000Z');
    // 2026-11-26 is a Thursday: the last Monday 09:30 before it
    expect(iso(cronPrevious('30 9 * * mon', at('2026-11-26T12:00:00Z')))).toBe('2026-11-23T09:30:00.000Z');
  });

  it('runs a day matching either day field when both are restricted, as cron does', () => {
    // the 1st, or any Friday
    expect(iso(cronNext('0 0 1 * fri', at('2026-11-26T12:00:00Z')))).toBe('2026-11-27T00:00:00.000Z');
    expect(iso(cronNext('0 0 1 * fri', at('2026-11-28T12:00:00Z')))).toBe('2026-12-01T00:00:00.000Z');
  });

  it('finds leap days and gives up on dates that never come', () => {
    expect(iso(cronNext('0 0 29 2 *', at('2026-03-01T00:00:00Z')))).toBe('2028-02-29T00:00:00.000Z');
    expect(cronPrevious('0 0 31 2 *', at('2026-03-01T00:00:00Z'))).toBeNull();
  });
});
