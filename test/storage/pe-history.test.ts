import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMarketDataRepository } from '../../src/storage/market-data.repository.js'
import { loadPeHistory, percentileCont, yearsBefore } from '../../src/storage/pe-history.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

const DAY_MS = 86_400_000
const addDays = (date: string, n: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10)

describe('yearsBefore and percentileCont: PostgreSQL date arithmetic and percentile_cont', () => {
  it('keeps the month and day, clipping the day to the month (a 29 February goes to the 28th)', () => {
    expect(yearsBefore('2024-02-29', 5)).toBe('2019-02-28')
    expect(yearsBefore('2024-03-31', 5)).toBe('2019-03-31')
    expect(yearsBefore('2025-01-01', 5)).toBe('2020-01-01')
  })

  it('interpolates between the two neighbouring ranks', () => {
    expect(percentileCont([10], 0.2)).toBe(10)
    expect(percentileCont([10, 20], 0.5)).toBe(15)
    expect(percentileCont([1, 2, 3, 4, 5, 6], 0.2)).toBe(2)
  })
})

describe('loadPeHistory: peStats from a window slid day by day', () => {
  let t: TestDatabase
  // every third calendar day over six years and a half, so that the five-year window drops days as it slides
  const first = '2018-01-02'
  const days = Array.from({ length: 800 }, (_, i) => addDays(first, 3 * i))
  const last = days.at(-1)!
  beforeAll(async () => {
    t = await createTestDatabase()
    let x = 7
    const next = () => {
      x = (x * 48271) % 2147483647
      return x / 2147483647
    }
    const rows = days.flatMap((trade_date, i) => [
      // spread across the winsor bounds (3, 150), with losses (negative), no PE (null), ties and a huge value
      { code: 'A.SZ', trade_date, pe_ttm: i % 17 === 0 ? null : next() * 200 - 20 },
      { code: 'B.SZ', trade_date, pe_ttm: i % 5 === 0 ? 12.5 : i % 11 === 0 ? 1e9 : next() * 60 },
      ...(i < 100 ? [{ code: 'OLD.SZ', trade_date, pe_ttm: 8 + (i % 3) }] : []),
    ])
    await t.db.insertInto('daily_basics').values(rows).execute()
  })
  afterAll(async () => t.drop())

  it('answers each date as the store does, asked in order, across a 29 February and back in time', async () => {
    const market = createMarketDataRepository(t.db)
    const from = days[650]!
    const peStats = await loadPeHistory(t.db, from, last)
    const asked = [...days.slice(650, 700), '2024-02-29', ...days.slice(700).filter((_, i) => i % 7 === 0), last]
    const dates = [...asked.filter((d) => d <= '2024-02-29').sort(), ...asked.filter((d) => d > '2024-02-29')]
    // then back to an earlier date, which starts the windows over
    for (const date of [...new Set(dates), days[660]!]) {
      const fromStore = await market.peStats(date)
      expect(fromStore.size).toBeGreaterThan(0)
      expect(await peStats(date)).toEqual(fromStore)
    }
    expect((await peStats(last)).has('OLD.SZ')).toBe(false)
  })

  it('refuses a date outside the range it read', async () => {
    const peStats = await loadPeHistory(t.db, days[700]!, last)
    await expect(peStats(days[699]!)).rejects.toThrow(/PE history holds/)
  })
})
