import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SIGNAL_DEFINITIONS } from '../../src/domain/signal-definitions.js'
import { WEIGHT_RULES } from '../../src/domain/signal-weights.js'
import type { Db } from '../../src/storage/db.js'
import { createDemoDatabase, type DemoMarket, WEEKS_OF_PLANS } from '../support/demo-market.js'
import type { TestDatabase } from '../support/test-db.js'

const signal = new AbortController().signal

async function tierRows(db: Db, from: string, to: string) {
  const rows = await db
    .selectFrom('tier_scores')
    .selectAll()
    .where('trade_date', '>=', from)
    .where('trade_date', '<=', to)
    .orderBy('trade_date')
    .orderBy('code')
    .execute()
  return rows.map(({ build_id: _id, ...r }) => r)
}
/** The weights of the build whose tier rows each date holds. */
async function weightsOf(db: Db, from: string, to: string) {
  return db
    .selectFrom('builds')
    .innerJoin(
      (eb) => eb.selectFrom('tier_scores').select(['trade_date', 'build_id']).distinct().as('t'),
      (join) => join.onRef('t.build_id', '=', 'builds.build_id'),
    )
    .select(['builds.trade_date', 'builds.weights', 'builds.counts', 'builds.signal_definitions'])
    .where('builds.trade_date', '>=', from)
    .where('builds.trade_date', '<=', to)
    .orderBy('builds.trade_date')
    .execute()
}
async function signalIcRows(db: Db) {
  return db.selectFrom('signal_ic').selectAll().orderBy('trade_date').orderBy('horizon').orderBy('signal').execute()
}

describe('reproducible plans: a date built again gives the same plan', () => {
  let t: TestDatabase
  let demo: DemoMarket
  let dates: string[]
  let last: string
  beforeAll(async () => {
    // 28 chain days: the plan days of the first 23 have realised their 5-day outcomes by the last day, so its weights
    // are learned (WEIGHT_RULES.minDays is 20), and one more day of ICs changes them
    ;[t, demo] = await createDemoDatabase(WEEKS_OF_PLANS)
    dates = demo.planned
    last = dates.at(-1)!
  }, 180_000)
  afterAll(async () => {
    await demo.cleanup()
    await t.drop()
  })

  it("a rebuild after the day's outcomes step gives the first build's weights and tier rows", async () => {
    const firstRows = await tierRows(t.db, last, last)
    const [first] = await weightsOf(t.db, last, last)
    // the chain's build ran before its outcomes step wrote the ICs whose exit is this day; they are now stored
    const exitingToday = await t.db
      .selectFrom('signal_ic')
      .select('trade_date')
      .where('horizon', '=', WEIGHT_RULES.horizon)
      .where('exit_date', '=', last)
      .execute()
    expect(exitingToday.length).toBeGreaterThan(0)
    expect(first!.counts.ic_days).toBeGreaterThanOrEqual(WEIGHT_RULES.minDays)
    expect(first!.signal_definitions).toBe(SIGNAL_DEFINITIONS)

    await demo.services.steps.build({ date: last }, signal)
    const [again] = await weightsOf(t.db, last, last)
    expect(again!.weights).toEqual(first!.weights)
    expect(await tierRows(t.db, last, last)).toEqual(firstRows)
    expect(firstRows.length).toBeGreaterThan(100)
  })

  it('replay --restart over chained days gives their tier rows, weights and signal ICs again', async () => {
    const from = dates.at(-5)!
    const rows = await tierRows(t.db, from, last)
    const weights = await weightsOf(t.db, from, last)
    const ics = await signalIcRows(t.db)
    // the last three days' weights are learned: one more day of ICs would move them
    expect(weights.map((w) => w.counts.ic_days! >= WEIGHT_RULES.minDays)).toEqual([false, false, true, true, true])

    const result = await demo.services.replay({ from, to: last, restart: true }, signal)
    expect(result.replayed).toBe(5)
    expect(await tierRows(t.db, from, last)).toEqual(rows)
    expect(await weightsOf(t.db, from, last)).toEqual(weights)
    // the rebuilt days' ICs were measured again on the rebuilt rows: the same values
    expect(await signalIcRows(t.db)).toEqual(ics)
  }, 120_000)

  it('ICs measured on other signal definitions are not learned from, and a rebuilt day has its ICs measured again', async () => {
    const [learned] = await weightsOf(t.db, last, last)
    const ics = await signalIcRows(t.db)
    // as if every day had been built, and its ICs measured, by code with other signal definitions
    await t.db.updateTable('builds').set({ signal_definitions: 'r1-older' }).execute()
    await t.db.updateTable('signal_ic').set({ definitions: 'r1-older' }).execute()

    await demo.services.steps.build({ date: last }, signal)
    const [rebuilt] = await weightsOf(t.db, last, last)
    expect(rebuilt!.counts.ic_days).toBe(0)
    for (const w of Object.values(rebuilt!.weights!)) expect(w).toMatchObject({ days: 0, weight: w.prior })
    expect(rebuilt!.weights).not.toEqual(learned!.weights)

    // a day rebuilt with today's definitions loses its old ICs; the next outcomes step measures them again from the
    // stored outcomes and the rebuilt rows, under today's definitions
    const day = dates.at(-10)!
    await demo.services.steps.build({ date: day }, signal)
    expect((await signalIcRows(t.db)).filter((r) => r.trade_date === day)).toEqual([])
    await demo.services.steps.outcomes({ date: last }, signal)
    const after = await signalIcRows(t.db)
    const measured = after.filter((r) => r.trade_date === day)
    expect(measured).toEqual(
      ics.filter((r) => r.trade_date === day).map((r) => ({ ...r, definitions: SIGNAL_DEFINITIONS })),
    )
    expect(measured.length).toBeGreaterThan(0)
    // the days not rebuilt keep the ICs of their own definitions, which no build reads
    expect(after.filter((r) => r.trade_date !== day).every((r) => r.definitions === 'r1-older')).toBe(true)
  })
})
