import { defineConfig } from 'vitest/config';

const alias = { '@': import.meta.dirname };

/**
 * One project per layer. db runs the RPC and RLS suites on embedded PGlite; pg runs the same suites
 * plus concurrency and fault tests on a real Postgres (DATABASE_URL); mcp drives the real endpoint.
 */
export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      { resolve: { alias }, test: { name: 'unit', include: ['lib/**/*.test.ts', 'scripts/**/*.test.ts'], environment: 'node' } },
      {
        resolve: { alias },
        test: { name: 'db', include: ['tests/db/**/*.test.ts'], environment: 'node', testTimeout: 60_000, hookTimeout: 120_000 },
      },
      {
        resolve: { alias },
        test: {
          name: 'pg',
          include: ['tests/db/**/*.test.ts', 'tests/pg/**/*.test.ts'],
          environment: 'node',
          env: { BULLPEN_TEST_TARGET: 'pg' },
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'mcp',
          include: ['tests/mcp/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['tests/mcp/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
