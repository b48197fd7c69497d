/**
 * Five-field cron expressions (minute hour day-of-month month day-of-week), evaluated in UTC, for
 * scheduled workflows. Each field takes `*`, a number, a range `a-b`, a step `*\/n` or `a-b/n`,
 * and comma lists of those; months and weekdays also take names (jan…dec, sun…sat), and weekday 7
 * is Sunday like 0. As in classic cron, when both day-of-month and day-of-week are restricted a
 * day matching either runs.
 */

export type Cron = {
  minutes: ReadonlySet<number>;
  hours: ReadonlySet<number>;
  days: ReadonlySet<number>;
  months: ReadonlySet<number>;
  weekdays: ReadonlySet<number>;
  /** day-of-month was restricted (not `*`) */
  dayRestricted: boolean;
  /** day-of-week was restricted (not `*`) */
  weekdayRestricted: boolean;
};

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

type FieldSpec = { name: string; min: number; max: number; names?: string[]; namesFrom?: number };

const FIELDS: FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS, namesFrom: 1 },
  { name: 'day-of-week', min: 0, max: 7, names: WEEKDAYS, namesFrom: 0 },
];

/** A refusal of an expression, naming the field that is wrong. */
export class CronError extends Error {}

function value(raw: string, f: FieldSpec): number {
  const lower = raw.toLowerCase();
  const named = f.names?.indexOf(lower) ?? -1;
  if (named >= 0) return named + (f.namesFrom ?? 0);
  if (!/^\d{1,2}$/.test(raw)) throw new CronError(`${f.name}: ${raw} is not a number${f.names ? ' or a name' : ''}`);
  const n = Number(raw);
  if (n < f.min || n > f.max) throw new CronError(`${f.name}: ${n} is outside ${f.min}-${f.max}`);
  return n;
}

function field(raw: string, f: FieldSpec): Set<number> {
  const out = new Set<number>();
  for (const part of raw.split(',')) {
    const m = /^([^/]+)(?:\/(\d{1,2}))?$/.exec(part);
    if (!m) throw new CronError(`${f.name}: ${part} is not a value, range or step`);
    const step = m[2] === undefined ? 1 : Number(m[2]);
    if (step < 1) throw new CronError(`${f.name}: a step must be at least 1`);
    let lo: number;
    let hi: number;
    if (m[1] === '*') {
      lo = f.min;
      hi = f.name === 'day-of-week' ? 6 : f.max;
    } else if (m[1].includes('-')) {
      const [a, b, ...rest] = m[1].split('-');
      if (rest.length) throw new CronError(`${f.name}: ${part} is not a range`);
      lo = value(a, f);
      hi = value(b, f);
      if (lo > hi) throw new CronError(`${f.name}: ${part} runs backwards`);
    } else {
      lo = value(m[1], f);
      hi = m[2] === undefined ? lo : f.name === 'day-of-week' ? 6 : f.max;
    }
    for (let v = lo; v <= hi; v += step) out.add(f.name === 'day-of-week' && v === 7 ? 0 : v);
  }
  return out;
}

/** Parses an expression; throws CronError naming the field that is wrong. */
export function parseCron(expr: string): Cron {
  const parts = expr.trim().split(/\s+/);
  if (parts.length !== 5) throw new CronError(`cron: five fields (minute hour day-of-month month day-of-week), got ${parts.length}`);
  const [minutes, hours, days, months, weekdays] = parts.map((p, i) => field(p, FIELDS[i]));
  return { minutes, hours, days, months, weekdays, dayRestricted: parts[2] !== '*', weekdayRestricted: parts[4] !== '*' };
}

/** Null when the expression parses, else what is wrong with it. */
export function cronProblem(expr: string): string | null {
  try {
    parseCron(expr);
    return null;
  } catch (e) {
    if (e instanceof CronError) return e.message;
    throw e;
  }
}

function dayMatches(c: Cron, d: Date): boolean {
  if (!c.months.has(d.getUTCMonth() + 1)) return false;
  const dom = c.days.has(d.getUTCDate());
  const dow = c.weekdays.has(d.getUTCDay());
  if (c.dayRestricted && c.weekdayRestricted) return dom || dow;
  if (c.dayRestricted) return dom;
  if (c.weekdayRestricted) return dow;
  return true;
}

const DAY = 86_400_000;
/** How far back a search looks: a little over four years, so Feb 29 schedules are found. */
const MAX_DAYS = 4 * 366 + 1;

/**
 * The latest minute at or before `at` (UTC, seconds dropped) that the expression names, or null
 * when none falls within the last four years (e.g. `0 0 31 2 *`).
 */
export function cronPrevious(expr: string | Cron, at: Date): Date | null {
  const c = typeof expr === 'string' ? parseCron(expr) : expr;
  const hours = [...c.hours].sort((a, b) => b - a);
  const minutes = [...c.minutes].sort((a, b) => b - a);
  const start = Math.floor(at.getTime() / 60_000) * 60_000;
  const day0 = Math.floor(start / DAY) * DAY;
  for (let i = 0; i <= MAX_DAYS; i++) {
    const day = new Date(day0 - i * DAY);
    if (!dayMatches(c, day)) continue;
    for (const h of hours) {
      for (const m of minutes) {
        const t = day.getTime() + h * 3_600_000 + m * 60_000;
        if (t <= start) return new Date(t);
      }
    }
  }
  return null;
}

/** The earliest minute strictly after `at` that the expression names, or null within four years. */
export function cronNext(expr: string | Cron, at: Date): Date | null {
  const c = typeof expr === 'string' ? parseCron(expr) : expr;
  const hours = [...c.hours].sort((a, b) => a - b);
  const minutes = [...c.minutes].sort((a, b) => a - b);
  const after = Math.floor(at.getTime() / 60_000) * 60_000;
  const day0 = Math.floor(after / DAY) * DAY;
  for (let i = 0; i <= MAX_DAYS; i++) {
    const day = new Date(day0 + i * DAY);
    if (!dayMatches(c, day)) continue;
    for (const h of hours) {
      for (const m of minutes) {
        const t = day.getTime() + h * 3_600_000 + m * 60_000;
        if (t > after) return new Date(t);
      }
    }
  }
  return null;
}
