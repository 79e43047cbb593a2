import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServices } from '../../src/compose.js'
import { buildApp } from '../../src/http/app.js'
import { importDirectory } from '../../src/jobs/import/import-job.js'
import { silentProgress } from '../../src/jobs/progress.js'
import { createLogger } from '../../src/logger.js'
import type { XxlJobExecutor } from '../../src/scheduler/index.js'
import { createScheduler, mountScheduler } from '../../src/scheduler-wiring.js'
import { createMetrics } from '../../src/services/metrics.js'
import { createImportStore } from '../../src/storage/import.repository.js'
import { testConfig } from '../support/config.js'
import { rows } from '../support/queries.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'
import { startTushareStandIn, type TushareStandIn } from '../support/tushare-stand-in.js'
import { waitFor } from '../support/wait.js'
import { type FakeAdmin, startFakeAdmin } from './fake-admin.js'
import { FAST, TOKEN, triggerParam } from './harness.js'

const BUNDLE = fileURLToPath(new URL('../data/tushare/bundle/', import.meta.url))
const TUSHARE_TOKEN = 'ts-token-5b1e-secret'
const STORED_THROUGH = '20240116'
const DATE = '2024-01-18'

/** The golden bundle up to STORED_THROUGH: the store as it was before the night's sync. */
async function bundleThrough(dir: string): Promise<void> {
  for (const file of ['daily', 'adj_factor', 'daily_basic', 'stk_limit', 'suspend_d', 'index_daily', 'trade_cal']) {
    const [header, ...lines] = (await readFile(path.join(BUNDLE, `${file}.csv`), 'utf8')).trim().split('\n')
    const column = header!.split(',').indexOf(file === 'trade_cal' ? 'cal_date' : 'trade_date')
    const kept = lines.filter((l) => l.split(',')[column]! <= STORED_THROUGH)
    await writeFile(path.join(dir, `${file}.csv`), `${[header, ...kept].join('\n')}\n`)
  }
  for (const file of ['stock_basic', 'namechange']) {
    await writeFile(path.join(dir, `${file}.csv`), await readFile(path.join(BUNDLE, `${file}.csv`)))
  }
}

describe('XXL-JOB dailyPlanChain with TUSHARE_TOKEN set', () => {
  let t: TestDatabase
  let standIn: TushareStandIn
  let admin: FakeAdmin
  let executor: XxlJobExecutor
  let app: Awaited<ReturnType<typeof buildApp>>
  let dir: string

  beforeAll(async () => {
    t = await createTestDatabase()
    dir = await mkdtemp(path.join(os.tmpdir(), 'stockplan-chain-sync-'))
    await bundleThrough(dir)
    const log = createLogger({ logLevel: 'silent' })
    await importDirectory(
      { imports: createImportStore(t.pool), log, progress: silentProgress },
      { dir, format: 'tushare' },
      new AbortController().signal,
    )
    standIn = await startTushareStandIn(BUNDLE)
    admin = await startFakeAdmin(TOKEN)
    const config = testConfig({
      PLAN_DATA_DIR: path.join(dir, 'plan'),
      XXLJOB_ACCESS_TOKEN: TOKEN,
      XXLJOB_ADMIN_ADDRESSES: admin.url,
      TUSHARE_TOKEN,
      TUSHARE_URL: standIn.url,
      TUSHARE_CALLS_PER_MIN: '0',
    })
    const services = createServices(config, createLogger(config), t)
    executor = createScheduler(services, createMetrics({ defaults: false }), { timing: FAST })!
    app = await buildApp({
      ...services,
      metrics: createMetrics({ defaults: false }),
      extraPlugins: [mountScheduler(executor)],
    })
    await executor.start()
  })
  afterAll(async () => {
    await app?.close()
    await executor?.close()
    await admin?.close()
    await standIn?.close()
    await t?.drop()
    await rm(dir, { recursive: true, force: true })
  })

  it('syncs the days since the last complete one, then builds, plans, pushes and scores outcomes; /log shows sync', async () => {
    const run = await app.inject({
      method: 'POST',
      url: '/api/v1/xxljob/run',
      headers: { 'XXL-JOB-ACCESS-TOKEN': TOKEN },
      payload: triggerParam(6001, {
        executorHandler: 'dailyPlanChain',
        executorParams: JSON.stringify({ tradeDate: DATE }),
      }),
    })
    expect(run.json()).toMatchObject({ code: 200 })
    const callback = await waitFor(() => admin.accepted().find((c) => c.logId === 6001), 60_000, 'callback 6001')
    expect(callback.handleCode).toBe(200)
    expect(callback.handleMsg).toMatch(/^sync 2024-01-17\.\.2024-01-18: 2 days imported/)
    expect(await rows(t, `select max(trade_date)::text as d from daily_bars`)).toEqual([{ d: DATE }])
    // the stand-in was asked for the two missing days only
    expect(standIn.calls.filter((c) => c.api === 'daily').map((c) => c.params.trade_date)).toEqual([
      '20240117',
      '20240118',
    ])
    const log = await app.inject({
      method: 'POST',
      url: '/api/v1/xxljob/log',
      headers: { 'XXL-JOB-ACCESS-TOKEN': TOKEN },
      payload: { logId: 6001, fromLineNum: 1 },
    })
    const content = log.json().content.logContent as string
    expect(content).toMatch(
      /\[sync\] start[\s\S]*\[sync\] ok sync 2024-01-17\.\.2024-01-18[\s\S]*\[build\] ok[\s\S]*\[plan\] ok[\s\S]*\[push-pool\] ok[\s\S]*\[outcomes\] ok/,
    )
    expect(content).not.toContain(TUSHARE_TOKEN)
  }, 90_000)
})
