// Turns the runners' JSON reports into the counts of npm test's closing line. Pure functions, so
// the rules (a file that fails to load is a failure, a crashed step is a failure) are unit-tested.

/**
 * @typedef {{ passed: number, failed: number, skipped: number, flaky: number,
 *             failures: string[], flakyNames: string[] }} Counts
 */

/** @returns {Counts} */
export function emptyCounts() {
  return { passed: 0, failed: 0, skipped: 0, flaky: 0, failures: [], flakyNames: [] };
}

/** @param {Counts} into @param {Counts} more */
export function addCounts(into, more) {
  into.passed += more.passed;
  into.failed += more.failed;
  into.skipped += more.skipped;
  into.flaky += more.flaky;
  into.failures.push(...more.failures);
  into.flakyNames.push(...more.flakyNames);
  return into;
}

/**
 * Counts a vitest JSON report (`--reporter=json`). Each test counts once; a file that failed
 * without a failed test (it threw at import, or a hook failed) counts as one failure of its own.
 * (vitest's numFailedTestSuites cannot be added as is: a describe block with a failed test is a
 * failed suite too, so it would count that failure twice.)
 * @param {any} report @param {string} [root] for shorter file names @returns {Counts}
 */
export function countVitest(report, root = '') {
  const c = emptyCounts();
  const rel = (f) => (root && f.startsWith(`${root}/`) ? f.slice(root.length + 1) : f);
  for (const file of report.testResults ?? []) {
    let failedHere = 0;
    for (const t of file.assertionResults ?? []) {
      if (t.status === 'passed') c.passed += 1;
      else if (t.status === 'failed') {
        c.failed += 1;
        failedHere += 1;
        c.failures.push(`${rel(file.name)} › ${t.fullName ?? t.title}`);
      } else c.skipped += 1; // skipped, pending, todo
    }
    if (file.status === 'failed' && failedHere === 0) {
      c.failed += 1;
      c.failures.push(`${rel(file.name)} (the file failed: ${String(file.message || 'no message').split('\n')[0]})`);
    }
  }
  return c;
}

/**
 * Counts a Playwright JSON report. A flaky test failed, then passed on a retry: it counts as
 * passed and is named in `flakyNames`, so the run says which tests are unstable.
 * @param {any} report @returns {Counts}
 */
export function countPlaywright(report) {
  const c = emptyCounts();
  const walk = (suite, trail) => {
    const here = suite.title ? [...trail, suite.title] : trail;
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests ?? []) {
        const name = [...here, spec.title].join(' › ') + (t.projectName ? ` [${t.projectName}]` : '');
        if (t.status === 'expected') c.passed += 1;
        else if (t.status === 'flaky') {
          c.passed += 1;
          c.flaky += 1;
          c.flakyNames.push(name);
        } else if (t.status === 'skipped') c.skipped += 1;
        else {
          c.failed += 1;
          c.failures.push(name);
        }
      }
    }
    for (const s of suite.suites ?? []) walk(s, here);
  };
  for (const s of report.suites ?? []) walk(s, []);
  // errors outside any test (global setup, a spec that fails to load) have no test to count
  for (const e of report.errors ?? []) {
    c.failed += 1;
    c.failures.push(`e2e: ${String(e.message ?? e).split('\n')[0]}`);
  }
  return c;
}

/**
 * A step's counts, made honest against its exit code: a step that failed but whose report shows no
 * failure (the build, a runner that crashed before writing its report, an error outside the tests)
 * counts as one failure named after the step.
 * @param {string} step @param {boolean} ok the exit code was 0 @param {Counts | null} counts null when there is no report
 * @returns {Counts}
 */
export function settleStep(step, ok, counts) {
  const c = counts ?? emptyCounts();
  if (!ok && c.failed === 0) {
    c.failed += 1;
    c.failures.push(`${step} (failed${counts ? '' : ' without a report'})`);
  }
  return c;
}

/** The closing line: `N passed, N failed, N skipped`, alone on its line. */
export function closingLine(c) {
  return `${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`;
}
