import { describe, expect, it } from 'vitest';
import { addCounts, closingLine, countPlaywright, countVitest, emptyCounts, settleStep } from './test-counts.mjs';

/** The shapes below are trimmed from real vitest 4.1 and Playwright 1.64 JSON reports. */

const vitestReport = {
  numFailedTests: 1,
  numFailedTestSuites: 4, // the file with a failed test, its describe block, and the two files below
  testResults: [
    {
      name: '/repo/lib/a.test.ts',
      status: 'failed',
      message: '',
      assertionResults: [
        { fullName: 'group fails', title: 'fails', status: 'failed' },
        { fullName: 'group passes', title: 'passes', status: 'passed' },
        { fullName: 'group skipped', title: 'skipped', status: 'skipped' },
        { fullName: 'group todo', title: 'todo', status: 'todo' },
      ],
    },
    { name: '/repo/lib/b.test.ts', status: 'failed', message: 'boom at import\n    at stack', assertionResults: [] },
    { name: '/repo/lib/c.test.ts', status: 'failed', message: 'hook broke', assertionResults: [{ fullName: 'under a hook', title: 'under a hook', status: 'skipped' }] },
    { name: '/repo/lib/d.test.ts', status: 'passed', message: '', assertionResults: [{ fullName: 'ok', title: 'ok', status: 'passed' }] },
  ],
};

const playwrightReport = {
  stats: { expected: 1, skipped: 1, unexpected: 1, flaky: 1 },
  suites: [
    {
      title: 'x.spec.ts',
      specs: [],
      suites: [
        {
          title: 'grp',
          specs: [
            { title: 'flaky one', tests: [{ status: 'flaky', projectName: '' }] },
            { title: 'good', tests: [{ status: 'expected', projectName: '' }] },
            { title: 'bad', tests: [{ status: 'unexpected', projectName: '' }] },
            { title: 'skipped', tests: [{ status: 'skipped', projectName: '' }] },
          ],
        },
      ],
    },
  ],
  errors: [],
};

describe('npm test counts', () => {
  it('counts a file that fails to load, or whose hook fails, as a failure, and each failed test once', () => {
    const c = countVitest(vitestReport, '/repo');
    expect(c).toMatchObject({ passed: 2, failed: 3, skipped: 3 });
    expect(c.failures).toEqual(['lib/a.test.ts › group fails', 'lib/b.test.ts (the file failed: boom at import)', 'lib/c.test.ts (the file failed: hook broke)']);
  });

  it('counts flaky e2e tests as passed and names them; unexpected ones fail', () => {
    const c = countPlaywright(playwrightReport);
    expect(c).toMatchObject({ passed: 2, failed: 1, skipped: 1, flaky: 1 });
    expect(c.flakyNames).toEqual(['x.spec.ts › grp › flaky one']);
    expect(c.failures).toEqual(['x.spec.ts › grp › bad']);
  });

  it('counts errors outside any test (a spec that fails to load, global setup)', () => {
    const c = countPlaywright({ suites: [], errors: [{ message: 'Error: spec load boom\n    at y.spec.ts:1' }] });
    expect(c).toMatchObject({ passed: 0, failed: 1 });
    expect(c.failures).toEqual(['e2e: Error: spec load boom']);
  });

  it('a failed step with no report, or a report without failures, is one failure', () => {
    expect(settleStep('build', false, null)).toMatchObject({ failed: 1, failures: ['build (failed without a report)'] });
    expect(settleStep('vitest', false, countVitest({ testResults: [] }))).toMatchObject({ failed: 1, failures: ['vitest (failed)'] });
    expect(settleStep('vitest', false, countVitest(vitestReport)).failed).toBe(3);
    expect(settleStep('build', true, null).failed).toBe(0);
  });

  it('closes with "N passed, N failed, N skipped" and nothing else', () => {
    const total = addCounts(addCounts(emptyCounts(), countVitest(vitestReport)), countPlaywright(playwrightReport));
    expect(closingLine(total)).toBe('4 passed, 4 failed, 4 skipped');
    expect(closingLine(total)).toMatch(/^\d+ passed, \d+ failed(, \d+ skipped)?$/);
  });
});
