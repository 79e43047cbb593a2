import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { createServices, type Services } from '../../src/compose.js'
import { generateDemoMarket } from '../../src/jobs/demo/generate.js'
import { importDirectory } from '../../src/jobs/import/import-job.js'
import { silentProgress } from '../../src/jobs/progress.js'
import { createLogger } from '../../src/logger.js'
import { testConfig } from './config.js'
import type { TestDatabase } from './test-db.js'

export interface DemoMarket {
  readonly dataDir: string
  readonly planDataDir: string
  /** Trading days of the market, ascending. */
  readonly calendar: string[]
  /** The days the chain ran for, ascending. */
  readonly planned: string[]
  readonly services: Services
  readonly env: Record<string, string>
  cleanup(): Promise<void>
}

/**
 * A small deterministic demo market imported into the test database, with the chain run for its last
 * `history` days (or up to `stopBefore` days before the end). Plan files live in a temp dir.
 */
export async function seedDemoMarket(
  t: TestDatabase,
  options: { stocks?: number; days?: number; seed?: number; history?: number; skipLast?: number } = {},
): Promise<DemoMarket> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'stockplan-demo-'))
  const dataDir = path.join(root, 'market')
  const planDataDir = path.join(root, 'plan')
  const env = { PLAN_DATA_DIR: planDataDir }
  const config = testConfig(env)
  const log = createLogger(config)
  const summary = await generateDemoMarket(
    dataDir,
    { stocks: options.stocks ?? 400, days: options.days ?? 90, seed: options.seed ?? 7 },
    silentProgress,
  )
  await importDirectory(
    { db: t.db, pool: t.pool, log, progress: silentProgress },
    { dir: dataDir, format: 'native' },
    new AbortController().signal,
  )
  const services = createServices(config, log, t)
  const calendar = await services.market.calendar(summary.lastDate)
  const end = calendar.length - (options.skipLast ?? 0)
  const planned = calendar.slice(Math.max(0, end - (options.history ?? 3)), end)
  for (const date of planned) await services.chain({ date }, new AbortController().signal)
  return {
    dataDir,
    planDataDir,
    calendar,
    planned,
    services,
    env,
    async cleanup() {
      await services.close()
      await rm(root, { recursive: true, force: true })
    },
  }
}
