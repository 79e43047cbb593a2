import { stat } from 'node:fs/promises'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServices } from '../../src/compose.js'
import { buildApp } from '../../src/http/app.js'
import { createLogger } from '../../src/logger.js'
import type { XxlJobExecutor } from '../../src/scheduler/index.js'
import { createScheduler, mountScheduler } from '../../src/scheduler-wiring.js'
import { createMetrics } from '../../src/services/metrics.js'
import { withChainLock } from '../../src/storage/chain-lock.js'
import { testConfig } from '../support/config.js'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import type { TestDatabase } from '../support/test-db.js'
import { waitFor } from '../support/wait.js'
import { type FakeAdmin, startFakeAdmin } from './fake-admin.js'
import { FAST, TOKEN, triggerParam } from './harness.js'

/** A run's log lines with their step tags (`[step] text`), in order. */
async function runLines(db: TestDatabase['db'], logId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('chain_run_lines')
    .select(['step', 'text'])
    .where('log_id', '=', logId)
    .orderBy('line_no')
    .execute()
  return rows.map((r) => `[${r.step}] ${r.text}`)
}

describe('XXL-JOB dailyPlanChain with the real jobs', () => {
  let t: TestDatabase
  let demo: DemoMarket
  let admin: FakeAdmin
  let executor: XxlJobExecutor
  let app: Awaited<ReturnType<typeof buildApp>>
  const metrics = createMetrics({ defaults: false })

  beforeAll(async () => {
    ;[t, demo] = await createDemoDatabase({ history: 1, skipLast: 1 })
    admin = await startFakeAdmin(TOKEN)
    const config = testConfig({ ...demo.env, XXLJOB_ACCESS_TOKEN: TOKEN, XXLJOB_ADMIN_ADDRESSES: admin.url })
    const services = createServices(config, createLogger(config), t)
    executor = createScheduler(services, metrics, { timing: FAST })!
    app = await buildApp({
      ...services,
      metrics,
      extraPlugins: [mountScheduler(executor)],
    })
    await executor.start()
  })
  afterAll(async () => {
    await app?.close()
    await executor?.close()
    await admin?.close()
    await demo?.cleanup()
    await t?.drop()
  })

  it('runs build, plan and push-pool for the date and calls back 200 with a summary', async () => {
    const date = demo.calendar.at(-1)!
    const run = await app.inject({
      method: 'POST',
      url: '/api/v1/xxljob/run',
      headers: { 'XXL-JOB-ACCESS-TOKEN': TOKEN },
      payload: triggerParam(5001, {
        executorHandler: 'dailyPlanChain',
        executorParams: JSON.stringify({ tradeDate: date }),
      }),
    })
    expect(run.json()).toMatchObject({ code: 200 })
    const callback = await waitFor(() => admin.accepted().find((c) => c.logId === 5001), 30_000, 'callback 5001')
    expect(callback.handleCode).toBe(200)
    expect(callback.handleMsg).toMatch(new RegExp(`build ${date}.*plan ${date}.*push-pool ${date}`))
    await stat(demo.services.files.snapshotPath(date))
    await stat(demo.services.files.poolPath(date))
    const plan = await app.inject(`/plan?date=${date}`)
    expect(plan.json()).toMatchObject({ date, plan_source: 'snapshot', snapshot: 'present' })
    const log = await app.inject({
      method: 'POST',
      url: '/api/v1/xxljob/log',
      headers: { 'XXL-JOB-ACCESS-TOKEN': TOKEN },
      payload: { logId: 5001, fromLineNum: 1 },
    })
    expect(log.json().content.logContent).toMatch(/\[build\] start[\s\S]*\[plan\] ok[\s\S]*\[push-pool\] ok/)
    expect(await metrics.registry.getSingleMetricAsString('stockplan_chain_runs_total')).toMatch(/result="success"} 1/)
  })

  it('fails with 500 naming the step when the date has no bars', async () => {
    await app.inject({
      method: 'POST',
      url: '/api/v1/xxljob/run',
      headers: { 'XXL-JOB-ACCESS-TOKEN': TOKEN },
      payload: triggerParam(5002, { executorHandler: 'dailyPlanChain', executorParams: '{"tradeDate":"2001-01-02"}' }),
    })
    const callback = await waitFor(() => admin.accepted().find((c) => c.logId === 5002), 30_000, 'callback 5002')
    expect(callback.handleCode).toBe(500)
    expect(callback.handleMsg).toMatch(/^build failed: no daily bars on 2001-01-02/)
  })
  // last: it closes the executor
  it('stops a running chain at the next step boundary when the executor closes, and reports the run', async () => {
    const date = demo.calendar.at(-1)!
    // hold the date's chain lock, so the run is between steps (waiting to start) when the executor closes
    let release: (() => void) | undefined
    let closing: Promise<void> | undefined
    const holding = withChainLock(
      t.pool,
      date,
      'wait',
      new AbortController().signal,
      () =>
        new Promise<void>((r) => {
          release = r
        }),
    )
    try {
      await app.inject({
        method: 'POST',
        url: '/api/v1/xxljob/run',
        headers: { 'XXL-JOB-ACCESS-TOKEN': TOKEN },
        payload: triggerParam(5003, {
          jobId: 3,
          executorHandler: 'dailyPlanChain',
          executorParams: JSON.stringify({ tradeDate: date }),
        }),
      })
      // the chain process is up and polling for the lock the test holds: a second backend whose last statement is the
      // lock's try (the first is the holder's; this query's own text starts otherwise)
      await waitFor(
        async () => {
          const { rows } = await sql<{ n: number }>`
            select count(*)::int as n from pg_stat_activity
            where datname = current_database() and query like 'select pg_try_advisory_lock(%'`.execute(t.db)
          return rows[0]!.n >= 2
        },
        30_000,
        'the chain process polling the lock',
      )
      closing = executor.close()
      // the drain request (SIGUSR2) has reached the chain process: it says so in the run log
      await waitFor(
        async () => (await runLines(t.db, 5003)).some((l) => l.startsWith('[chain] drain')),
        30_000,
        'the drain line in the run log',
      )
    } finally {
      // the chain may go on; also when a wait above failed, so that the lock is not left held
      release?.()
    }
    await holding
    await closing
    const callback = await waitFor(() => admin.accepted().find((c) => c.logId === 5003), 30_000, 'callback 5003')
    expect(callback.handleCode).toBe(500)
    expect(callback.handleMsg).toMatch(/shutting down/)
    const lines = await runLines(t.db, 5003)
    expect(lines.join('\n')).not.toContain('[build] start')
  })
})
