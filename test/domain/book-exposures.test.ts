import { describe, expect, it } from 'vitest'
import {
  averageExposures,
  bookDayFacts,
  type InvestableRow,
  investableFigures,
  universeLegs,
} from '../../src/domain/book-exposures.js'
import { legReturn } from '../../src/domain/book-universe.js'

const row = (
  code: string,
  industry: string | null,
  amountMa20: number,
  extra: Partial<InvestableRow> = {},
): InvestableRow => ({
  code,
  industry,
  amountMa20,
  ret20: null,
  overnight: null,
  intraday: null,
  openAtLimitUp: false,
  beta: null,
  volatility: null,
  reversal: null,
  ...extra,
})

describe('the book per plan day: universe return and exposures', () => {
  it("a name's day: the gap from T's adjusted close, the day from D's open, not bought when it opens at its limit up", () => {
    // T's close 10 × adj 2 = 20; D opens 10.5 (adj 2: 21), closes 10.71
    expect(universeLegs(20, { open: 10.5, close: 10.71, adj: 2, limitUp: 11 })).toEqual({
      overnight: expect.closeTo(21 / 20 - 1, 15),
      intraday: expect.closeTo(10.71 / 10.5 - 1, 15),
      openAtLimitUp: false,
    })
    expect(universeLegs(20, { open: 11, close: 11, adj: 2, limitUp: 11 }).openAtLimitUp).toBe(true)
    expect(universeLegs(20, { open: 11, close: 11, adj: 2, limitUp: null }).openAtLimitUp).toBe(false)
    expect(universeLegs(20, null)).toEqual({ overnight: null, intraday: null, openAtLimitUp: false })
    expect(universeLegs(Number.NaN, { open: 11, close: 11, adj: 2, limitUp: null }).overnight).toBeNull()
  })

  it("universe return and legs are the book's day over the rows; main z-scores and industry counts by hand", () => {
    // size = ln(amount): e^18, e^19, e^20, e^21 -> 18..21, mean 19.5, sd √(5/3); main = {C, D}: z = (0.5 + 1.5) / 2 / sd
    const rows = [
      row('A', 'bank', Math.exp(18), { overnight: 0.01, intraday: 0.02, ret20: -0.2, reversal: 0.1 }),
      row('B', 'bank', Math.exp(19), { overnight: 0.03, intraday: 0.01, ret20: 0.1, reversal: 0.1 }),
      // opens at its limit up on D: its gap counts, its day does not
      row('C', 'chips', Math.exp(20), { overnight: 0.1, intraday: 0.05, openAtLimitUp: true, reversal: 0.1 }),
      row('D', null, Math.exp(21), { overnight: -0.01, intraday: 0, ret20: 0.3, reversal: 0.1 }),
    ]
    const facts = bookDayFacts(rows, ['C', 'D', 'X'])
    // held overnight: (0.01 + 0.03 + 0.1 − 0.01) / 4; bought at the open: A, B and D, (0.02 + 0.01 + 0) / 3
    expect(facts.universeRet).toBeCloseTo((1 + 0.13 / 4) * (1 + 0.01) - 1, 15)
    expect(facts.universeNames).toBe(4)
    // terciles of four names: {A, B} low, {C} middle, {D} high: size = A and B's leg less D's
    expect(facts.sizeFactor).toBeCloseTo(
      (1 + 0.04 / 2) * (1 + 0.03 / 2) - 1 - (-0.01 + 0), // D: (1 − 0.01) × 1 − 1
      15,
    )
    // C has no 20-day return: terciles of A, B, D by it are {A}, {B}, {D}: losers A less winners D
    expect(facts.reversalFactor).toBeCloseTo(1.01 * 1.02 - 1 - -0.01, 15)
    expect(facts.sizeFactor).toBeCloseTo(legReturn([rows[0]!, rows[1]!])! - legReturn([rows[3]!])!, 15)
    // deciles of four names hold one each: C and D matched with themselves (X is not in the universe)
    expect(facts.matchedRet).toBeCloseTo((1.1 - 1 + (0.99 - 1)) / 2, 15)
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
      sizeFactor: null,
      reversalFactor: null,
      matchedRet: null,
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
    // twenty returns back, across the suspension: into days 65..61 and 59..45, from day 44
    expect(f.ret20).toBeCloseTo(px[65]! / px[44]! - 1, 12)
    const rets = [65, 64, 63, 62, 61, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45].map((k) =>
      k === 61 ? px[61]! / px[59]! - 1 : px[k]! / px[k - 1]! - 1,
    )
    const mean = rets.reduce((a, b) => a + b, 0) / 20
    expect(f.volatility).toBeCloseTo(Math.sqrt(rets.reduce((a, r) => a + (r - mean) ** 2, 0) / 19), 12)
    // less than twenty traded returns: none
    expect(investableFigures(px, index, 19).ret20).toBeNull()
    expect(investableFigures(px, index, 20).ret20).toBeCloseTo(px[20]! / px[0]! - 1, 12)
    // no bar on the day: no return to its close
    expect(investableFigures(px, index, 60).ret20).toBeNull()
    expect(investableFigures(px, index, 60).reversal).not.toBeNull()
  })
})
