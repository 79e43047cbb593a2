import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { sql } from 'kysely'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOperationalSource, createServices } from '../../src/compose.js'
import { NO_SKILL } from '../../src/domain/skill.js'
import { buildApp } from '../../src/http/app.js'
import { createLogger } from '../../src/logger.js'
import { createMetrics } from '../../src/services/metrics.js'
import { createOperationalReadings, createSkillReadings } from '../../src/services/operational-readings.js'
import { createMonitoringRepository } from '../../src/storage/monitoring.repository.js'
import { createRunStore } from '../../src/storage/run.repository.js'
import { storeRun } from '../support/chain-runs.js'
import { testConfig } from '../support/config.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

const silent = createLogger({ logLevel: 'silent' })
const at = (iso: string) => new Date(iso)

describe('the store readings behind /metrics', () => {
  let t: TestDatabase
  let nowMs = Date.parse('2026-10-09T09:00:00+08:00')
  const now = () => nowMs

  beforeAll(async () => {
    t = await createTestDatabase()
    // Thursday night's chain succeeded; Friday night's failed in plan after a build of 47 s
    await storeRun(
      t,
      1,
      [
        ['2026-10-08T12:00:00Z', 'build', 'start'],
        ['2026-10-08T12:00:40Z', 'build', 'ok 5 codes'],
        ['2026-10-08T12:00:40Z', 'plan', 'start'],
        ['2026-10-08T12:00:45Z', 'plan', 'ok written'],
      ],
      { status: 'succeeded', step: 'plan', at: '2026-10-08T12:00:46Z' },
    )
    await storeRun(
      t,
      2,
      [
        ['2026-10-09T12:00:00Z', 'build', 'start'],
        ['2026-10-09T12:00:47Z', 'build', 'ok 5 codes'],
        ['2026-10-09T12:00:47Z', 'plan', 'start'],
        ['2026-10-09T12:00:50Z', 'executor', '----------- Result: handleCode=500'],
      ],
      { status: 'failed', step: 'plan', at: '2026-10-09T12:00:51Z' },
    )
    await t.db
      .insertInto('trading_calendar')
      .values(['2026-09-29', '2026-09-30', '2026-10-09', '2026-10-12'].map((cal_date) => ({ cal_date, is_open: true })))
      .execute()
    await t.db
      .insertInto('trading_calendar')
      .values(['2026-10-01', '2026-10-05', '2026-10-08'].map((cal_date) => ({ cal_date, is_open: false })))
      .execute()
  })
  afterAll(async () => t.drop())

  it('reads per step the last start, success with its duration, and failure from the run log', async () => {
    const steps = await createMonitoringRepository(t.db).chainSteps(at('2026-09-01T00:00:00Z'))
    const byStep = Object.fromEntries(steps.map((s) => [s.step, s]))
    expect(Object.keys(byStep).sort()).toEqual(['build', 'plan'])
    expect(byStep.build).toEqual({
      step: 'build',
      lastStartAt: at('2026-10-09T12:00:00Z'),
      lastSuccessAt: at('2026-10-09T12:00:47Z'),
      lastSuccessSeconds: 47,
      lastFailureAt: undefined,
    })
    expect(byStep.plan).toEqual({
      step: 'plan',
      lastStartAt: at('2026-10-09T12:00:47Z'),
      lastSuccessAt: at('2026-10-08T12:00:45Z'),
      lastSuccessSeconds: 5,
      lastFailureAt: at('2026-10-09T12:00:51Z'),
    })
    // a run another executor closed as an orphan has no step: it failed in the step it last started
    const runs = createRunStore(t.db)
    await storeRun(t, 9, [['2026-10-09T13:00:00Z', 'sync', 'start']], {
      status: 'succeeded',
      step: 'sync',
      at: '2026-10-09T13:00:05Z',
    })
    await t.db.updateTable('chain_runs').set({ status: 'running', step: null }).where('log_id', '=', 9).execute()
    await runs.closeOrphan({ logId: 9, ownerId: 'test', logDateTime: 0 }, 'executor gone', at('2026-10-09T13:05:00Z'))
    const withOrphan = await createMonitoringRepository(t.db).chainSteps(at('2026-09-01T00:00:00Z'))
    expect(withOrphan.find((s) => s.step === 'sync')?.lastFailureAt).toEqual(at('2026-10-09T13:05:00Z'))
    await t.db.deleteFrom('chain_runs').where('log_id', '=', 9).execute()
    // runs created before the window are not read
    expect(await createMonitoringRepository(t.db).chainSteps(at('2026-10-10T00:00:00Z'))).toEqual([])
  })

  it('reads the outbox depth and its oldest callback, and the calendar window with its bounds', async () => {
    const repo = createMonitoringRepository(t.db)
    expect(await repo.outbox()).toEqual({ depth: 2, oldestCreatedAt: at('2026-10-08T12:00:46Z') })
    const window = await repo.calendarWindow('2026-09-30', '2026-10-31')
    expect([...window.open].sort()).toEqual(['2026-09-30', '2026-10-09', '2026-10-12'])
    expect([window.first, window.last]).toEqual(['2026-09-29', '2026-10-12'])
  })

  it("reads the oldest incomplete synced day by date, the sessions known ahead and a plan's row counts", async () => {
    const repo = createMonitoringRepository(t.db)
    expect(await repo.oldestIncompleteSyncedDay()).toBeUndefined()
    await sql`insert into sync_incomplete_days (trade_date, interface, missing)
      values ('2026-10-09', 'adj_factor', 1), ('2026-10-08', 'daily_basic', 5000), ('2026-10-09', 'daily_basic', 12)`.execute(
      t.db,
    )
    expect(await repo.oldestIncompleteSyncedDay()).toBe('2026-10-08')
    await sql`delete from sync_incomplete_days`.execute(t.db)
    // the open days after the day asked, however far the calendar reaches
    expect(await repo.futureSessions('2026-10-08')).toBe(2)
    expect(await repo.futureSessions('2026-10-09')).toBe(1)
    expect(await repo.futureSessions('2026-10-12')).toBe(0)
    // nothing written by the plan step for the date (a build's tier rows may be out): no counts, not zero
    expect(await repo.planRows('2026-09-30')).toBeUndefined()
    await sql`insert into stock_daily (code, trade_date, verdict, plan_version, logic_state, score_ema, state_since,
        state_rule, days_in_state, above_days, absent_days, code_version)
      values ('600009.SH', '2026-09-29', 'reject', '6', 'forming', 0, '2026-09-29', '', 0, 0, 0, 'test')`.execute(t.db)
    // written, with nothing in its lists: an empty plan, which the alert must see
    expect(await repo.planRows('2026-09-29')).toEqual({ main: 0, observe: 0 })
    await sql`insert into stock_daily (code, trade_date, verdict, plan_version, logic_state, score_ema, state_since,
        state_rule, days_in_state, above_days, absent_days, code_version)
      select code, '2026-09-30', verdict, '4', 'forming', 0, '2026-09-30', '', 0, 0, 0, 'test'
      from (values ('600000.SH', 'main'), ('600001.SH', 'main'), ('600002.SH', 'observe'), ('600003.SH', 'reject'))
        v(code, verdict)`.execute(t.db)
    expect(await repo.planRows('2026-09-30')).toEqual({ main: 2, observe: 1 })
    await sql`delete from stock_daily`.execute(t.db)
  })

  it('keeps a read for its lifetime, and on a frozen store answers within the deadline with the store down', async () => {
    const read = createOperationalReadings({
      repository: createMonitoringRepository(t.db),
      latestPlanDate: async () => '2026-09-30',
      poolSize: async () => 12,
      now,
      log: silent,
      timings: { ttlMs: 10_000, deadlineMs: 1_500 }, // generous: the suite's host is busy
    })
    const first = await read()
    expect(first).toMatchObject({
      storeUp: true,
      latestPlanDate: '2026-09-30',
      oldestIncompleteSyncedDay: undefined,
      futureSessions: 1,
      planRows: { main: undefined, observe: undefined, pool: 12 },
    })
    expect(first.due.expectedDate).toBe('2026-09-30') // Friday 2026-10-09 09:00, after the National Day holiday
    expect(first.due.nextDate).toBe('2026-09-30') // and the session that closes at 15:00 needs its own next
    expect(first.outbox.depth).toBe(2)

    // a third callback: not seen while the read is kept, seen once the clock passes its lifetime
    await storeRun(t, 3, [['2026-10-09T12:10:00Z', 'build', 'start']], {
      status: 'failed',
      step: 'build',
      at: '2026-10-09T12:10:01Z',
    })
    nowMs += 9_999
    expect((await read()).outbox.depth).toBe(2)
    nowMs += 1
    expect((await read()).outbox.depth).toBe(3)

    // a transaction holding the outbox table makes every read of it wait: the store is frozen for this read
    const locker = new pg.Client({ connectionString: t.url })
    await locker.connect()
    try {
      await locker.query('begin; lock table callback_outbox in access exclusive mode')
      nowMs += 10_000
      const started = Date.now()
      const frozen = await read()
      expect(Date.now() - started).toBeLessThan(4_000)
      expect(frozen.storeUp).toBe(false)
      expect(frozen.outbox.depth, 'the last values stand').toBe(3)
      // the next scrapes within the lifetime do not wait again
      const again = Date.now()
      expect((await read()).storeUp).toBe(false)
      expect(Date.now() - again, 'no second wait for the deadline').toBeLessThan(500)
      await locker.query('rollback')
    } finally {
      await locker.end()
    }
    nowMs += 10_000
    expect((await read()).storeUp).toBe(true)
  })

  it('serves /metrics within its deadline while the store is frozen, saying stockplan_store_up 0', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'stockplan-readings-'))
    const config = testConfig({ PLAN_DATA_DIR: dir })
    const services = createServices(config, silent, t)
    const metrics = createMetrics({ defaults: false })
    metrics.setOperationalSource(createOperationalSource(services, now))
    const app = await buildApp({ ...services, metrics })
    const locker = new pg.Client({ connectionString: t.url })
    await locker.connect()
    try {
      // up first (a read slower than its 1 s deadline on a busy host counts as down: the next one is asked later)
      let body = (await app.inject('/metrics')).body
      for (let i = 0; i < 5 && !/^stockplan_store_up 1$/m.test(body); i++) {
        nowMs += 10_000
        body = (await app.inject('/metrics')).body
      }
      expect(body).toMatch(/^stockplan_store_up 1$/m)
      await locker.query('begin; lock table trading_calendar in access exclusive mode')
      nowMs += 60_000
      const started = Date.now()
      const res = await app.inject('/metrics')
      expect(Date.now() - started, 'answered, not held until the lock goes').toBeLessThan(5_000)
      expect(res.statusCode).toBe(200)
      expect(res.body).toMatch(/^stockplan_store_up 0$/m)
      expect(res.body).toMatch(/^stockplan_chain_step_last_failure_timestamp_seconds\{step="plan"\} 1791547251$/m)
      await locker.query('rollback')
    } finally {
      await locker.end()
      await app.close()
      await services.close()
      await rm(dir, { recursive: true, force: true })
    }
  })
})

describe('the skill readings', () => {
  it('evaluate in the background at most once per lifetime, never making a scrape wait', async () => {
    let nowMs = 0
    let evaluations = 0
    let finish: (value: { rollingRankIc: number; mainDrawdown: number }) => void = () => undefined
    const skill = createSkillReadings({
      evaluate: () => {
        evaluations++
        return new Promise((resolve) => {
          finish = resolve
        })
      },
      now: () => nowMs,
      log: silent,
      ttlMs: 1000,
    })
    expect(skill()).toBe(NO_SKILL)
    expect(skill()).toBe(NO_SKILL)
    expect(evaluations).toBe(1)
    finish({ rollingRankIc: 0.04, mainDrawdown: 0.1 })
    await Promise.resolve()
    expect(skill()).toEqual({ rollingRankIc: 0.04, mainDrawdown: 0.1 })
    expect(evaluations).toBe(1)
    nowMs = 1000
    skill()
    expect(evaluations).toBe(2)
  })

  it('keep the last figures when an evaluation fails', async () => {
    let nowMs = 0
    let fail = false
    const skill = createSkillReadings({
      evaluate: async () => {
        if (fail) throw new Error('store down')
        return { rollingRankIc: -0.01, mainDrawdown: 0.3 }
      },
      now: () => nowMs,
      log: silent,
      ttlMs: 1000,
    })
    skill()
    await new Promise((r) => setImmediate(r))
    fail = true
    nowMs = 5000
    skill()
    await new Promise((r) => setImmediate(r))
    expect(skill()).toEqual({ rollingRankIc: -0.01, mainDrawdown: 0.3 })
  })
})
