import { expect } from 'vitest';
import { DataError } from '../../lib/server/export';

/** The envelope an export or import refused with; fails the test when the promise resolved or threw something else. */
export async function refusal(p: Promise<unknown>): Promise<DataError['error']> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, 'expected a refusal').toBeInstanceOf(DataError);
  return (err as DataError).error;
}
