import { readFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_SIZES } from '../../src/domain/plan-assembly.js'
import { silentProgress } from '../../src/jobs/progress.js'
import { runReplay } from '../../src/jobs/replay.job.js'
import { createWriteBehind } from '../../src/jobs/write-behind.js'
import type { Db } from '../../src/storage/db.js'
import { createReplayRunsRepository } from '../../src/storage/replay-runs.repository.js'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import type { TestDatabase } from '../support/test-db.js'

const MARKET = { stocks: 150, days: 80, seed: 11 }
const HISTORY = 7
const signal = new AbortController().signal

async function dailyRows(db: Db) {
  return db.selectFrom('stock_daily').selectAll().orderBy('trade_date').orderBy('code').execute()
}
async function outcomeRows(db: Db) {
  return (
    await db
      .selectFrom('plan_outcomes')
      .select(['trade_date', 'horizon', 'code', 'tradable', 'reason', 'ret', 'bench_ret', 'universe_ret', 'regime'])
      .orderBy('horizon')
      .orderBy('trade_date')
      .orderBy('code')
      .execute()
  ).map((r) => ({ ...r }))
}
async function tierRows(db: Db) {
  const rows = await db.selectFrom('tier_scores').selectAll().orderBy('trade_date').orderBy('code').execute()
  return rows.map(({ build_id: _id, ...r }) => r)
}
async function signalIcRows(db: Db) {
  return db.selectFrom('signal_ic').selectAll().orderBy('trade_date').orderBy('horizon').orderBy('signal').execute()
}
async function dayStatsRows(db: Db) {
  return db
    .selectFrom('plan_day_stats')
    .select(['horizon', 'trade_date', 'entry_date', 'benchmark', 'stats'])
    .orderBy('horizon')
    .orderBy('trade_date')
    .execute()
}
async function builtWeights(db: Db) {
  return db.selectFrom('builds').select(['trade_date', 'weights', 'counts']).orderBy('trade_date').execute()
}
/** Each date's snapshot and Markdown plan as written, the generation time taken out. */
async function planFiles(demo: DemoMarket, dates: readonly string[]) {
  const { files } = demo.services
  return Promise.all(
    dates.map(async (date) => ({
      snapshot: (await readFile(files.snapshotPath(date), 'utf8')).replace(/"generated_at":"[^"]*"/g, ''),
      plan: (await readFile(files.planPath(date), 'utf8')).replace(/generated \S+/g, ''),
    })),
  )
}
async function planLists(demo: DemoMarket, date: string) {
  const plan = await demo.services.plans.getPlan({ date, sizes: DEFAULT_SIZES, nocache: true })
  return { main: plan.body.main.map((r) => r.code), observe: plan.body.observe.map((r) => r.code), source: plan.source }
}

describe('replay', () => {
  let chained: TestDatabase
  let replayed: TestDatabase
  let nightly: DemoMarket
  let replay: DemoMarket
  beforeAll(async () => {
    ;[chained, nightly] = await createDemoDatabase({ ...MARKET, history: HISTORY })
    ;[replayed, replay] = await createDemoDatabase({ ...MARKET, history: 0 })
  }, 120_000)
  afterAll(async () => {
    await nightly.cleanup()
    await replay.cleanup()
    await chained.drop()
    await replayed.drop()
  })

  it('resumes after a kill mid-day and ends with the same main, observe, daily rows and outcomes as the nightly chain', async () => {
    const dates = nightly.planned
    const from = dates[0]!
    const to = dates.at(-1)!
    const runs = createReplayRunsRepository(replayed.db)
    const calls: string[] = []
    const killAt = dates[3]!
    const controller = new AbortController()
    const steps = replay.services.steps
    // the "kill": the signal fires while day 4's outcomes step runs, after its build and plan wrote their rows
    const killing = {
      build: steps.build,
      plan: steps.plan,
      outcomes: async (args: { date?: string }, s: AbortSignal) => {
        calls.push(args.date!)
        if (args.date === killAt) {
          controller.abort(new Error('killed'))
          throw new Error('killed')
        }
        return steps.outcomes(args, s)
      },
    }
    const deps = {
      pool: replayed.pool,
      calendar: (d: string) => replay.services.market.calendar(d),
      runs,
      progress: silentProgress,
      log: replay.services.log,
    }
    await expect(runReplay({ ...deps, steps: killing }, { from, to }, controller.signal)).rejects.toThrow('killed')
    expect(await runs.doneThrough(from, to)).toBe(dates[2])
    // the kill landed mid-day: day 4's daily rows were written, its outcomes step never finished
    const half = await replayed.db.selectFrom('stock_daily').select('code').where('trade_date', '=', killAt).execute()
    expect(half.length).toBeGreaterThan(0)

    calls.length = 0
    const counting = {
      ...killing,
      outcomes: async (a: { date?: string }, s: AbortSignal) => {
        calls.push(a.date!)
        return steps.outcomes(a, s)
      },
    }
    const started: unknown[][] = []
    const progress = { ...silentProgress, start: (...args: unknown[]) => void started.push(args) }
    const resumed = await runReplay({ ...deps, progress, steps: counting }, { from, to }, signal)
    // the days done before the kill are counted as done, not into this run's days/s
    expect(started).toEqual([[`replay ${from}..${to}`, dates.length, 'days', 3]])
    expect(resumed.resumedAfter).toBe(dates[2])
    expect(calls).toEqual(dates.slice(3))
    expect(await runs.doneThrough(from, to)).toBe(to)

    expect(await dailyRows(replayed.db)).toEqual(await dailyRows(chained.db))
    expect(await outcomeRows(replayed.db)).toEqual(await outcomeRows(chained.db))
    expect((await outcomeRows(replayed.db)).length).toBeGreaterThan(0)
    for (const date of [dates[0]!, to]) expect(await planLists(replay, date)).toEqual(await planLists(nightly, date))
    const last = await planLists(replay, to)
    expect(last.main.length + last.observe.length).toBeGreaterThan(0)
  }, 120_000)

  it('reading the bars once (the replay) gives row for row what the day-by-day chain gives', async () => {
    const [fast, fastDemo] = await createDemoDatabase({ ...MARKET, history: 0 })
    try {
      const dates = nightly.planned
      await fastDemo.services.replay({ from: dates[0]!, to: dates.at(-1)! }, signal)
      expect(await tierRows(fast.db)).toEqual(await tierRows(chained.db))
      expect(await dailyRows(fast.db)).toEqual(await dailyRows(chained.db))
      expect(await outcomeRows(fast.db)).toEqual(await outcomeRows(chained.db))
      expect(await signalIcRows(fast.db)).toEqual(await signalIcRows(chained.db))
      expect(await builtWeights(fast.db)).toEqual(await builtWeights(chained.db))
      expect((await signalIcRows(fast.db)).length).toBeGreaterThan(0)
      const stats = await dayStatsRows(fast.db)
      expect(stats).toEqual(await dayStatsRows(chained.db))
      expect(stats.length).toBeGreaterThan(0)
      // the replay's plan step reads what its build just wrote from memory: the files must not tell the difference,
      // not even in the order of a jsonb object's keys
      const written = await planFiles(fastDemo, dates)
      expect(written).toEqual(await planFiles(nightly, dates))
      expect(written.every((w) => w.snapshot.includes('"components":{'))).toBe(true)
    } finally {
      await fastDemo.cleanup()
      await fast.drop()
    }
  }, 120_000)

  it('fails the day whose write ran behind and failed: the day is not counted done', async () => {
    const [t, demo] = await createDemoDatabase({ ...MARKET, history: 0 })
    try {
      const dates = nightly.planned.slice(0, 3)
      const runs = createReplayRunsRepository(t.db)
      const writes = createWriteBehind()
      const failing = {
        ...demo.services.steps,
        build: async (args: { date?: string }, s: AbortSignal) => {
          const result = await demo.services.steps.build(args, s)
          if (args.date === dates[1]) writes.defer(Promise.reject(new Error('tier rows not written')))
          return result
        },
      }
      const deps = {
        pool: t.pool,
        calendar: (d: string) => demo.services.market.calendar(d),
        steps: failing,
        flushWrites: writes.flush,
        runs,
        progress: silentProgress,
        log: demo.services.log,
      }
      await expect(runReplay(deps, { from: dates[0]!, to: dates[2]! }, signal)).rejects.toThrow('tier rows not written')
      expect(await runs.doneThrough(dates[0]!, dates[2]!)).toBe(dates[0])
    } finally {
      await demo.cleanup()
      await t.drop()
    }
  }, 120_000)

  it('refuses a reversed range and a range without trading days, changing nothing', async () => {
    const before = await dailyRows(replayed.db)
    await expect(replay.services.replay({ from: '2026-11-20', to: '2026-11-01' }, signal)).rejects.toThrow(
      '--from 2026-11-20 is after --to 2026-11-01',
    )
    await expect(replay.services.replay({ from: '1990-01-01', to: '1990-02-01' }, signal)).rejects.toThrow(
      'no trading days with bars from 1990-01-01 to 1990-02-01',
    )
    expect(await dailyRows(replayed.db)).toEqual(before)
  })
})
