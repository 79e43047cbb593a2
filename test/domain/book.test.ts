import { describe, expect, it } from 'vitest'
import { type BookBar, type BookCosts, type BookMarket, type BookPlanDay, simulateBook } from '../../src/domain/book.js'
import { summariseBook } from '../../src/domain/book-summary.js'
import { DEFAULT_COSTS } from '../../src/domain/track-record.js'

/** Commission 0.1% a side and the real stamp duty; no spread or impact, so each figure can be worked by hand. */
const FLAT: BookCosts = { ...DEFAULT_COSTS, commission: 0.001, halfSpread: 0, impact: 0, advCap: 1, fallbackVol: 0 }

type Bars = Record<string, Record<string, Partial<BookBar> & { open: number; close: number }>>

function marketOf(calendar: string[], bars: Bars, universe: Record<string, number> = {}): BookMarket {
  return {
    calendar,
    bar: (code, date) => {
      const b = bars[date]?.[code]
      return b ? { adj: 1, limitUp: null, limitDown: null, amount20d: null, vol20d: null, ...b } : null
    },
    universeReturn: (date) => universe[date] ?? null,
    benchmarkReturn: () => null,
  }
}

const options = (costs: BookCosts = FLAT, depth = 2) => ({ depth, bookSize: 1e6, costs })

describe('simulateBook, a hand-worked case', () => {
  // T 08-23 [A, B] -> bought 08-24; T 08-24 [A, C]: B leaves but opens 08-25 at its limit down, C enters but opens
  // at its limit up; T 08-25 empty: A is suspended on 08-28 and carried, B is sold on 08-28 (stamp 0.05%)
  const calendar = ['2023-08-23', '2023-08-24', '2023-08-25', '2023-08-28', '2023-08-29']
  const plan: BookPlanDay[] = [
    { date: '2023-08-23', main: ['A', 'B'] },
    { date: '2023-08-24', main: ['A', 'C'] },
    { date: '2023-08-25', main: [] },
    { date: '2023-08-28', main: ['A'] },
  ]
  const bars: Bars = {
    '2023-08-24': { A: { open: 10, close: 11 }, B: { open: 20, close: 19 }, C: { open: 5, close: 5 } },
    '2023-08-25': {
      A: { open: 11, close: 11.5 },
      B: { open: 17.1, close: 17.1, limitDown: 17.1, limitUp: 20.9 },
      C: { open: 5.5, close: 5.5, limitUp: 5.5, limitDown: 4.5 },
    },
    '2023-08-28': { B: { open: 17.5, close: 18 }, C: { open: 5.6, close: 5.7 } },
    '2023-08-29': { A: { open: 12, close: 12.6 }, B: { open: 18, close: 18 }, C: { open: 5.7, close: 5.7 } },
  }
  const days = simulateBook(plan, marketOf(calendar, bars, { '2023-08-24': 0.01 }), options())

  it('buys the first list at the next open, each slot paying its own commission', () => {
    const d = days[0]!
    const each = 0.5 / 1.001
    expect(d.date).toBe('2023-08-24')
    expect(d.planDate).toBe('2023-08-23')
    expect(d.bought).toBeCloseTo(2 * each, 12)
    expect(d.cost).toBeCloseTo(1 - 2 * each, 12)
    expect(d.net).toBeCloseTo(each * 1.1 + each * 0.95 - 1, 12)
    expect(d.gross).toBeCloseTo(d.net + d.cost, 12)
    expect(d.holdings).toBe(2)
    expect(d.universe).toBe(0.01)
  })

  it('does not buy an entrant at its limit up, nor sell a leaver at its limit down', () => {
    const d = days[1]!
    const each = 0.5 / 1.001
    const before = each * 1.1 + each * 0.95
    expect(d.bought).toBe(0)
    expect(d.sold).toBe(0)
    expect(d.cost).toBe(0)
    expect(d.missed).toBe(1)
    expect(d.carried).toBe(1)
    expect(d.net).toBeCloseTo((each * 1.15 + each * 0.855) / before - 1, 12)
  })

  it('on an empty day sells what it can at the new stamp duty and carries a suspended holding', () => {
    const d = days[2]!
    const each = 0.5 / 1.001
    const before = each * 1.15 + each * 0.855
    const bAtOpen = each * 0.875
    expect(d.date).toBe('2023-08-28')
    expect(d.sold).toBeCloseTo(bAtOpen / (each * 1.15 + bAtOpen), 12)
    expect(d.cost * before).toBeCloseTo(bAtOpen * (0.001 + 0.0005), 12)
    expect(d.holdings).toBe(1)
    expect(d.carried).toBe(1)
    // A did not trade: its value stands; B's proceeds sit in cash
    expect(d.net).toBeCloseTo((each * 1.15 + bAtOpen * (1 - 0.0015)) / before - 1, 12)
  })

  it('keeps a carried name that comes back into the list without trading it', () => {
    const d = days[3]!
    expect(d.bought).toBe(0)
    expect(d.sold).toBe(0)
    expect(d.holdings).toBe(1)
    expect(d.carried).toBe(0)
  })

  it('charges the stamp duty in force on the trade date', () => {
    const sellOn = (date: string) => {
      const cal = ['2023-08-01', '2023-08-02', date]
      const market = marketOf(cal, {
        '2023-08-02': { A: { open: 10, close: 10 } },
        [date]: { A: { open: 10, close: 10 } },
      })
      const run = simulateBook(
        [
          { date: '2023-08-01', main: ['A'] },
          { date: '2023-08-02', main: [] },
        ],
        market,
        options(FLAT, 1),
      )
      return run[1]!.cost
    }
    // the whole book is sold: the day's cost is the rate itself, commission plus that day's stamp duty
    expect(sellOn('2023-08-25')).toBeCloseTo(0.001 + 0.001, 12)
    expect(sellOn('2023-08-28')).toBeCloseTo(0.001 + 0.0005, 12)
  })
})

describe('simulateBook, costs and capacity', () => {
  const calendar = ['2024-01-02', '2024-01-03', '2024-01-04']
  const bar = { open: 10, close: 10, amount20d: 10e6, vol20d: 0.02 }
  const bars: Bars = { '2024-01-03': { A: bar }, '2024-01-04': { A: bar } }
  const plan = [
    { date: '2024-01-02', main: ['A'] },
    { date: '2024-01-03', main: ['A'] },
  ]
  const costs: BookCosts = { ...FLAT, commission: 0, halfSpread: 0.0005, impact: 0.5, advCap: 0.1 }

  it('prices impact by the square root of the order share of the traded value', () => {
    const [d] = simulateBook(plan, marketOf(calendar, bars), { depth: 1, bookSize: 0.4e6, costs })
    const rate = 0.0005 + 0.5 * 0.02 * Math.sqrt(0.4e6 / 10e6)
    expect(d!.bought).toBeCloseTo(1 / (1 + rate), 9)
  })

  it('caps an order at its share of the traded value and buys the rest on later days', () => {
    const [d1, d2] = simulateBook(plan, marketOf(calendar, bars), { depth: 1, bookSize: 5e6, costs })
    // 10% of 10 M is 1 M of a 5 M book: 0.2 of the NAV a day
    expect(d1!.bought).toBeCloseTo(0.2, 9)
    expect(d1!.cash).toBeGreaterThan(0.75)
    expect(d1!.missed).toBe(0)
    expect(d2!.bought).toBeGreaterThan(0.19)
    expect(d2!.cash).toBeLessThan(d1!.cash - 0.18)
  })

  it('a larger book pays more per unit traded', () => {
    const small = simulateBook(plan, marketOf(calendar, bars), { depth: 1, bookSize: 0.1e6, costs })
    const large = simulateBook(plan, marketOf(calendar, bars), { depth: 1, bookSize: 0.9e6, costs })
    expect(large[0]!.cost / large[0]!.bought).toBeGreaterThan(small[0]!.cost / small[0]!.bought)
  })
})

describe('summariseBook', () => {
  const day = (date: string, net: number, universe: number) => ({
    date,
    planDate: date,
    gross: net + 0.001,
    net,
    cost: 0.001,
    bought: 0.1,
    sold: 0.1,
    holdings: 20,
    cash: 0,
    missed: 0,
    carried: 0,
    universe,
    benchmark: null,
  })

  it('compounds the book against its baseline and finds the worst month and the drawdown', () => {
    const days = [day('2024-01-02', 0.02, 0.01), day('2024-01-31', -0.05, 0), day('2024-02-01', 0.01, 0)]
    const s = summariseBook(days, 'universe')
    expect(s.cumulativeNetExcess).toBeCloseTo((1.02 * 0.95 * 1.01) / 1.01 - 1, 12)
    expect(s.worstMonth!.period).toBe('2024-01')
    expect(s.worstMonth!.excess).toBeCloseTo((1.02 * 0.95) / 1.01 - 1, 12)
    expect(s.maxDrawdown).toBeCloseTo(1 - 0.95, 12)
    expect(s.quarters).toHaveLength(1)
    expect(s.turnover).toBeCloseTo(0.1, 12)
    expect(s.costDrag).toBeCloseTo(0.252, 12)
    expect(summariseBook(days, 'benchmark').days).toBe(0)
  })

  it('computes the IR on daily, non-overlapping P&L', () => {
    const nets = Array.from({ length: 60 }, (_, i) => (i % 3 === 0 ? 0.004 : -0.001))
    const days = nets.map((n, i) => day(`2024-03-${String((i % 28) + 1).padStart(2, '0')}`, n, 0))
    const s = summariseBook(days, 'universe')
    const mean = nets.reduce((a, b) => a + b, 0) / nets.length
    const sd = Math.sqrt(nets.reduce((a, b) => a + (b - mean) ** 2, 0) / (nets.length - 1))
    expect(s.netIr).toBeCloseTo((mean / sd) * Math.sqrt(252), 9)
  })
})
