import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { computeMarket } from '../../src/domain/regime.js'
import type { BarSeries } from '../../src/domain/scoring.js'
import { loadMarketHistory, type MarketHistory } from '../../src/storage/bar-history.js'
import { createOutcomesRepository } from '../../src/storage/outcomes.repository.js'
import { createPlanInputRepository } from '../../src/storage/plan-input.repository.js'
import { loadMarketInput } from '../../src/storage/regime-input.repository.js'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import type { TestDatabase } from '../support/test-db.js'

/** The series as JS values: the history's typed views (0/1 flags, NaN for unknown) read as the store's arrays. */
function plainBars(bars: Map<string, BarSeries>) {
  return new Map(
    [...bars].map(([code, b]) => [
      code,
      {
        ...b,
        close: Array.from(b.close),
        adjFactor: Array.from(b.adjFactor),
        amount: Array.from(b.amount),
        volume: Array.from(b.volume ?? []),
        intraday: Array.from(b.intraday ?? []),
        suspended: Array.from(b.suspended, Boolean),
        turnover: Array.from(b.turnover ?? [], (t: number | null) => (t === null || Number.isNaN(t) ? null : t)),
      },
    ]),
  )
}

const byJson = <T>(rows: readonly T[]): string[] => rows.map((r) => JSON.stringify(r)).sort()

describe('a replay market history answers as the store does', () => {
  let t: TestDatabase
  let demo: DemoMarket
  let history: MarketHistory
  let dates: string[]
  beforeAll(async () => {
    ;[t, demo] = await createDemoDatabase({ stocks: 150, days: 80, seed: 11, history: 0 })
    const calendar = demo.calendar
    // a gap, a suspension, a code without any bar and a delisted code, so that every branch is exercised
    const gapDay = calendar.at(-10)!
    const [gapCode, suspendedCode] = (
      await t.db.selectFrom('securities').select('code').orderBy('code').limit(2).execute()
    ).map((r) => r.code)
    await t.db.deleteFrom('daily_bars').where('code', '=', gapCode!).where('trade_date', '=', gapDay).execute()
    await t.db
      .updateTable('daily_bars')
      .set({ is_suspended: true })
      .where('code', '=', suspendedCode!)
      .where('trade_date', '>=', calendar.at(-15)!)
      .execute()
    await t.db
      .insertInto('securities')
      .values([
        { code: '688999.SH', name: 'No Bars', exchange: 'SH', board: 'star', list_date: calendar[0]! },
        {
          code: '600999.SH',
          name: 'Gone',
          exchange: 'SH',
          board: 'main',
          list_date: calendar[0]!,
          delist_date: calendar.at(-12)!,
          list_status: 'D',
        },
      ])
      .execute()
    // a restatement announced inside the range: the dates before it see the first version, those after the new one
    const report = await t.db
      .selectFrom('financials')
      .selectAll()
      .where('ann_date', '<', calendar.at(-24)!)
      .orderBy('end_date', 'desc')
      .orderBy('code')
      .limit(1)
      .executeTakeFirstOrThrow()
    await t.db
      .insertInto('financials')
      .values({ ...report, ann_date: calendar.at(-12)!, roe: (report.roe ?? 0) + 7 })
      .execute()
    dates = [calendar.at(-24)!, calendar.at(-12)!, gapDay, calendar.at(-1)!]
    history = await loadMarketHistory(t.db, calendar.at(-45)!, calendar.at(-1)!)
  }, 120_000)
  afterAll(async () => {
    await demo.cleanup()
    await t.drop()
  })

  it('gives the same regime input, missing-bar count and bars window on every date', async () => {
    for (const date of dates) {
      const calendar = await demo.services.market.calendar(date)
      const fromMemory = await history.marketInput(date, calendar)
      const fromStore = await loadMarketInput(t.db, date, calendar)
      expect(byJson(fromMemory.stocks)).toEqual(byJson(fromStore.stocks))
      expect(fromMemory.index).toEqual(fromStore.index)
      expect(fromMemory.amountHistory).toHaveLength(fromStore.amountHistory.length)
      for (const [i, a] of fromMemory.amountHistory.entries()) expect(a).toBeCloseTo(fromStore.amountHistory[i]!, 3)
      expect(computeMarket(fromMemory)).toEqual(computeMarket(fromStore))
      expect(await history.missingBars(date)).toBe(await demo.services.market.missingBars(date))
    }
    expect(await history.missingBars(dates[2]!)).toBeGreaterThanOrEqual(2)
    const from = demo.calendar.at(-35)!
    expect(plainBars(await history.bars(from, dates[1]!))).toEqual(
      plainBars(await demo.services.market.bars(from, dates[1]!)),
    )
  })

  it('gives the same entry and exit bars and quotes, for codes with and without a bar that day', async () => {
    const repo = createOutcomesRepository(t.db)
    const inputs = createPlanInputRepository(t.db)
    const codes = (await t.db.selectFrom('securities').select('code').orderBy('code').execute()).map((r) => r.code)
    for (const date of dates) {
      const sortByCode = <R extends { code: string }>(rows: R[]) => rows.sort((a, b) => a.code.localeCompare(b.code))
      expect(sortByCode(await history.entryBars(date, codes))).toEqual(sortByCode(await repo.entryBars(date, codes)))
      expect(await history.exitBars(date, codes)).toEqual(await repo.exitBars(date, codes))
      const quotes = await history.quotes(date, codes)
      expect(quotes).toEqual(await inputs.quotes(date, codes))
      expect(quotes.size).toBeGreaterThan(100)
    }
  })

  it('gives the same PE percentiles and known financial reports as the store on every date', async () => {
    for (const date of dates) {
      const fromStore = await demo.services.market.peStats(date)
      expect(fromStore.size).toBeGreaterThan(100)
      expect(await history.peStats(date)).toEqual(fromStore)
      const reports = await demo.services.market.financials(date)
      expect(reports.size).toBeGreaterThan(100)
      expect(await history.financials(date)).toEqual(reports)
    }
  })

  it('refuses a date outside the range it read', async () => {
    await expect(history.missingBars(demo.calendar[0]!)).rejects.toThrow(/market history holds/)
    // a day whose 20-day MA window starts before the history: its figures would be short, so it is refused
    const early = demo.calendar.at(-40)!
    await expect(history.marketInput(early, await demo.services.market.calendar(early))).rejects.toThrow(/MA window/)
  })
})
