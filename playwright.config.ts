import { existsSync } from 'node:fs';
import { defineConfig } from '@playwright/test';

/**
 * The console in a real Chromium: Debian's /usr/bin/chromium where installed (.ci/run installs it),
 * else Playwright's own. globalSetup starts `bullpen start` on a temp data dir, exactly as a user
 * would, and the specs drive it through the browser, the MCP SDK and the SSE route.
 */
const systemChromium = '/usr/bin/chromium';

export default defineConfig({
  testDir: 'e2e',
  testMatch: '*.spec.ts',
  globalSetup: './e2e/global-setup.ts',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  forbidOnly: true,
  reporter: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ? [['list'], ['json']] : [['list']],
  outputDir: 'test-results/e2e-artifacts',
  use: {
    headless: true,
    viewport: { width: 1920, height: 1080 },
    trace: 'retain-on-failure',
    launchOptions: {
      ...(existsSync(systemChromium) ? { executablePath: systemChromium } : {}),
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    },
  },
});
