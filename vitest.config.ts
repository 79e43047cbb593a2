import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    // Vitest's default on 2 cores is 1 worker; much of the suite waits on child processes, PostgreSQL restarts and
    // a browser, so 3 workers keep both cores busy (npm test: ~320 s -> ~165 s on the 2-core machine)
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // bench/ figures are printed by `npm run bench`, never asserted here
  },
})
