import { defineConfig } from 'vitest/config'

/**
 * Files that need a fresh process each: they mock modules (vi.mock), or stop and kill servers, PostgreSQL clusters
 * and browsers whose late errors ('terminating connection', a dead child's pipe) must not land in the next file.
 */
const ISOLATED = [
  'test/process/**/*.test.ts',
  'test/browser/**/*.test.ts',
  'test/security/token-compare.test.ts',
  'test/security/cross-site-writes.test.ts',
  'test/services/latest-date.test.ts',
  'test/storage/embedded-postgres.test.ts',
]

/**
 * The projects' own options. They do not `extends: true` the root: a project inherits the root's globalSetup that
 * way and runs it again, so each project started a PostgreSQL of its own and built every demo market it shares with
 * the other again. The root's one globalSetup provides its values to both projects.
 */
const PROJECT = { pool: 'forks', testTimeout: 60_000, hookTimeout: 120_000 } as const

/**
 * The shared workers' young generation at 64 MB: they allocate fast for minutes (rows, plans, JSON), and with V8's
 * default 16 MB semi-space scavenges were 14.6 s of their time. Alternating runs of each project, 2 each: `shared`
 * node CPU 108 / 116 s -> 103 / 101 s; `isolated` (a short-lived process per file) 72 / 80 s -> 75 / 84 s, so not there.
 */
const SHARED_WORKER_FLAGS = ['--max-semi-space-size=64']

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    // Vitest's default on 2 cores is 1 worker; much of the suite waits on child processes, PostgreSQL restarts and
    // a browser, so 3 workers keep both cores busy
    maxWorkers: 3,
    projects: [
      { test: { ...PROJECT, name: 'isolated', include: ISOLATED, isolate: true } },
      // the rest share a worker's module graph: importing src/, Fastify, Kysely and pg once per worker instead of
      // once per file (imports ~64 s -> ~21 s of worker time)
      {
        test: {
          ...PROJECT,
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: ISOLATED,
          isolate: false,
          execArgv: SHARED_WORKER_FLAGS,
        },
      },
    ],
    // bench/ figures are printed by `npm run bench`, never asserted here
  },
})
