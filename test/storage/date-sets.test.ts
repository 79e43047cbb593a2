import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOutcomesRepository } from '../../src/storage/outcomes.repository.js'
import { createPlanDayStatsRepository } from '../../src/storage/plan-day-stats.repository.js'
import { replaceStockDaily } from '../../src/storage/stock-daily.repository.js'
import { stockDailyRow } from '../support/stock-daily-rows.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

const DATES = ['2026-03-02', '2026-03-03', '2026-03-04', '2026-03-05', '2026-03-06', '2026-03-09']
const CODES = ['600000.SH', '000001.SZ', '300750.SZ']

const daily = (trade_date: string, code: string) => stockDailyRow({ code, trade_date, verdict: 'main' })
const outcome = (trade_date: string, horizon: number, code: string) => ({
  trade_date,
  horizon,
  code,
  entry_date: trade_date,
  exit_date: trade_date,
  tradable: true,
  benchmark: '000300.SH',
})

describe('the published and outcome date sets (migration 0016) and the queries that read them', () => {
  let t: TestDatabase
  beforeAll(async () => {
    t = await createTestDatabase()
  })
  afterAll(async () => t.drop())

  /** Each set equals its definition over the big table, whatever was written to it. */
  async function expectSetsMatchTheirTables() {
    const [plan, planDef, out, outDef] = await Promise.all([
      sql<{ d: string }>`select trade_date::text as d from plan_dates order by 1`.execute(t.db),
      sql<{ d: string }>`select distinct trade_date::text as d from stock_daily order by 1`.execute(t.db),
      sql<{ k: string }>`select horizon || ' ' || trade_date as k from outcome_dates order by 1`.execute(t.db),
      sql<{ k: string }>`select distinct horizon || ' ' || trade_date as k from plan_outcomes order by 1`.execute(t.db),
    ])
    expect(plan.rows).toEqual(planDef.rows)
    expect(out.rows).toEqual(outDef.rows)
  }

  it('finds a published day whose outcomes were deleted mid-history, and forgets a day whose rows are gone', async () => {
    const outcomes = createOutcomesRepository(t.db)
    const stats = createPlanDayStatsRepository(t.db)
    await t.db
      .insertInto('stock_daily')
      .values(DATES.flatMap((d) => CODES.map((c) => daily(d, c))))
      .execute()
    // outcomes at h5 for all but the last day, at h1 for the first two only
    await t.db
      .insertInto('plan_outcomes')
      .values([
        ...DATES.slice(0, -1).flatMap((d) => CODES.map((c) => outcome(d, 5, c))),
        ...DATES.slice(0, 2).flatMap((d) => CODES.map((c) => outcome(d, 1, c))),
      ])
      .execute()
    await expectSetsMatchTheirTables()
    expect(await outcomes.datesWithoutOutcomes(5, DATES.at(-1)!)).toEqual([DATES[5]])
    expect(await outcomes.datesWithoutOutcomes(5, DATES[4]!)).toEqual([])
    expect(await outcomes.datesWithoutOutcomes(1, DATES[3]!)).toEqual([DATES[2], DATES[3]])

    // one code's outcome of a day deleted: the day still has outcomes; all of them: it is pending again
    await t.db.deleteFrom('plan_outcomes').where('trade_date', '=', DATES[1]!).where('code', '=', CODES[0]!).execute()
    expect(await outcomes.datesWithoutOutcomes(5, DATES.at(-1)!)).toEqual([DATES[5]])
    await t.db.deleteFrom('plan_outcomes').where('trade_date', '=', DATES[2]!).where('horizon', '=', 5).execute()
    await expectSetsMatchTheirTables()
    expect(await outcomes.datesWithoutOutcomes(5, DATES.at(-1)!)).toEqual([DATES[2], DATES[5]])
    expect(await stats.outcomeDates(5)).toEqual([DATES[0], DATES[1], DATES[3], DATES[4]])
    expect(await stats.outcomeDates(5, DATES[1], DATES[3])).toEqual([DATES[1], DATES[3]])
    expect(await stats.outcomeDates(1)).toEqual([DATES[0], DATES[1]])

    // a day's daily rows replaced (delete and COPY in one transaction) stays published; deleted, it is not
    await replaceStockDaily(
      t.pool,
      DATES[5]!,
      CODES.slice(1).map((c) => daily(DATES[5]!, c)),
    )
    expect(await outcomes.datesWithoutOutcomes(5, DATES.at(-1)!)).toEqual([DATES[2], DATES[5]])
    await t.db.deleteFrom('stock_daily').where('trade_date', '=', DATES[2]!).execute()
    await expectSetsMatchTheirTables()
    expect(await outcomes.datesWithoutOutcomes(5, DATES.at(-1)!)).toEqual([DATES[5]])
  })

  it('follows rows moved to another date or horizon, and a truncate', async () => {
    const outcomes = createOutcomesRepository(t.db)
    await t.db
      .updateTable('stock_daily')
      .set({ trade_date: '2026-03-10' })
      .where('trade_date', '=', DATES[5]!)
      .execute()
    await t.db
      .updateTable('plan_outcomes')
      .set({ horizon: 10 })
      .where('trade_date', '=', DATES[0]!)
      .where('horizon', '=', 5)
      .execute()
    await expectSetsMatchTheirTables()
    expect(await outcomes.datesWithoutOutcomes(5, '2026-03-10')).toEqual([DATES[0], '2026-03-10'])
    await sql`truncate stock_daily, plan_outcomes`.execute(t.db)
    await expectSetsMatchTheirTables()
    expect(await outcomes.datesWithoutOutcomes(5, '2026-03-10')).toEqual([])
  })
})
