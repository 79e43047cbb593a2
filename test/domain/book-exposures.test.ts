import { describe, expect, it } from 'vitest'
import {
  averageExposures,
  bookDayFacts,
  type InvestableRow,
  investableFigures,
  isInvestable,
} from '../../src/domain/book-exposures.js'

const row = (code: string, industry: string | null, amountMa20: number, extra: Partial<InvestableRow> = {}) => ({
  code,
  industry,
  amountMa20,
  nextRet: null,
  beta: null,
  volatility: null,
  reversal: null,
  ...extra,
})

describe('the book per plan day: universe return and exposures', () => {
  it('investable: traded, not ST, a 20-day mean traded value of 50 M CNY or more', () => {
    expect(isInvestable({ isSuspended: false, isSt: false, amountMa20: 50e6 })).toBe(true)
    expect(isInvestable({ isSuspended: false, isSt: false, amountMa20: 49.9e6 })).toBe(false)
    expect(isInvestable({ isSuspended: true, isSt: false, amountMa20: 1e9 })).toBe(false)
    expect(isInvestable({ isSuspended: false, isSt: true, amountMa20: 1e9 })).toBe(false)
  })

  it('universe return is the mean over names with a next bar; main z-scores and industry counts by hand', () => {
    // size = ln(amount): e^18, e^19, e^20, e^21 -> 18..21, mean 19.5, sd √(5/3); main = {C, D}: z = (0.5 + 1.5) / 2 / sd
    const rows = [
      row('A', 'bank', Math.exp(18), { nextRet: 0.01, reversal: 0.1 }),
      row('B', 'bank', Math.exp(19), { nextRet: 0.03, reversal: 0.1 }),
      row('C', 'chips', Math.exp(20), { nextRet: null, reversal: 0.1 }),
      row('D', null, Math.exp(21), { nextRet: -0.01, reversal: 0.1 }),
    ]
    const facts = bookDayFacts(rows, ['C', 'D', 'X'])
    expect(facts.universeRet).toBeCloseTo(0.01, 15)
    expect(facts.universeNames).toBe(4)
    expect(facts.exposures.size).toBeCloseTo(1 / Math.sqrt(5 / 3), 12)
    // every name alike: no spread, no z-score; no values: none either
    expect(facts.exposures.reversal).toBeNull()
    expect(facts.exposures.beta).toBeNull()
    expect(facts.industries).toEqual({ main: { chips: 1, unknown: 1 }, universe: { bank: 2, chips: 1, unknown: 1 } })
  })

  it('averages over the days whose target was in the universe, industries by share, largest gap first', () => {
    const day = (size: number | null, main: Record<string, number>, universe: Record<string, number>) => ({
      universeRet: 0,
      universeNames: 4,
      exposures: { size, beta: null, volatility: 0.5, reversal: null },
      industries: { main, universe },
    })
    const avg = averageExposures([
      day(1, { bank: 2 }, { bank: 2, chips: 2 }),
      day(null, { chips: 1, bank: 1 }, { bank: 1, chips: 3 }),
      day(5, {}, { bank: 4 }), // an empty main: left out
    ])
    expect(avg.days).toBe(2)
    expect(avg.mean_z).toEqual({ size: 1, beta: null, volatility: 0.5, reversal: null })
    // bank: book (1 + 0.5) / 2 = 0.75, universe (0.5 + 0.25) / 2 = 0.375; chips: 0.25 against 0.625
    expect(avg.industries).toEqual([
      { industry: 'bank', book: 0.75, universe: 0.375 },
      { industry: 'chips', book: 0.25, universe: 0.625 },
    ])
  })

  it('figures from the traded closes: suspended days skipped, the index over the same spans', () => {
    // 70 days; the stock doubles the index's daily move plus a wiggle, and is suspended on day 60
    const n = 70
    const index = new Float64Array(n)
    const px = new Float64Array(n)
    index[0] = 100
    px[0] = 10
    for (let k = 1; k < n; k++) {
      const m = 0.01 * Math.sin(k)
      index[k] = index[k - 1]! * (1 + m)
      px[k] = px[k - 1]! * (1 + 2 * m)
    }
    px[60] = Number.NaN
    const t = 65
    const f = investableFigures(px, index, t)
    // across the suspension the stock's two-day return is not exactly twice the index's: beta near 2, not 2
    expect(f.beta).toBeGreaterThan(1.95)
    expect(f.beta).toBeLessThan(2.05)
    // five returns back: into days 65, 64, 63, 62 and 61 (from 59, across the suspension)
    expect(f.reversal).toBeCloseTo(px[65]! / px[59]! - 1, 12)
    expect(f.nextRet).toBeCloseTo(px[66]! / px[65]! - 1, 15)
    const rets = [65, 64, 63, 62, 61, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45].map((k) =>
      k === 61 ? px[61]! / px[59]! - 1 : px[k]! / px[k - 1]! - 1,
    )
    const mean = rets.reduce((a, b) => a + b, 0) / 20
    expect(f.volatility).toBeCloseTo(Math.sqrt(rets.reduce((a, r) => a + (r - mean) ** 2, 0) / 19), 12)
    // no bar on the next day: no return
    px[66] = Number.NaN
    expect(investableFigures(px, index, t).nextRet).toBeNull()
  })
})
