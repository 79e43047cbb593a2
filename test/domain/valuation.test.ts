import { describe, expect, it } from 'vitest'
import { percentile } from '../../src/domain/stats.js'
import {
  computeValuation,
  formatValuation,
  peBandStats,
  VALUATION_RULES,
  type Valuation,
  type ValuationInput,
  valuationFromStats,
} from '../../src/domain/valuation.js'

/** 241 daily PE values 10.0, 10.1, ..., 34.0: P20 = 14.8, P50 = 22.0, P80 = 29.2 (h = 48, 120, 192). */
const PE_241: number[] = Array.from({ length: 241 }, (_, i) => (100 + i) / 10)
const DATE = '2026-11-20'

const base = (over: Partial<ValuationInput> = {}): ValuationInput => ({
  price: 50,
  peHistory: PE_241,
  epsTtm: 2,
  forecast: { eps_mean: 2.5, eps_low: 2, eps_high: 3, as_of: '2026-10-01' },
  date: DATE,
  bvps: 10,
  roeHistory: [0.12, 0.15, 0.18, 0.21, 0.24],
  ...over,
})

describe('percentile (linear interpolation between closest ranks, h = (n - 1) p)', () => {
  it.each([
    [[10, 20, 30, 40, 50], 0.2, 18],
    [[10, 20, 30, 40, 50], 0.5, 30],
    [[10, 20, 30, 40, 50], 0.8, 42],
    [[1, 2, 3, 4], 0.5, 2.5],
    [[7], 0.2, 7],
  ])('%o P%f = %f', (values, p, expected) => {
    expect(percentile(values, p)).toBeCloseTo(expected, 12)
  })
})

describe('VALUATION_RULES', () => {
  it('is frozen and records the calibrated constants', () => {
    expect(Object.isFrozen(VALUATION_RULES)).toBe(true)
    expect(VALUATION_RULES.pbRoe).toEqual({ r: 0.08, g: 0.03 })
    expect(VALUATION_RULES).toMatchObject({ peMinDays: 60, forecastMaxAgeDays: 120, roeMinPoints: 4 })
    expect(VALUATION_RULES.peWinsor).toEqual({ lo: 3, hi: 150 })
  })
})

describe('pe_band: TTM EPS x own PE(TTM) percentiles (one horizon)', () => {
  it('spreads bear/bull by a fresh forecast’s low/mean and high/mean, neutral = TTM x P50', () => {
    // eps 2 x 0.8 / 1 / 1.2 = 1.6 / 2 / 2.4; x 14.8 / 22 / 29.2 = 23.68 / 44 / 70.08; price 50
    expect(computeValuation(base())).toEqual({
      method: 'pe_band',
      price: 50,
      scenarios: {
        bear: { value: 23.68, mos: -1.111 },
        neutral: { value: 44, mos: -0.136 },
        bull: { value: 70.08, mos: 0.287 },
      },
      reference_target: 44,
      inputs: {
        eps_horizon: 'ttm',
        pe_days: 241,
        eps_ttm: 2,
        eps_spread: 'forecast',
        eps_bear: 1.6,
        eps_neutral: 2,
        eps_bull: 2.4,
        pe_p20: 14.8,
        pe_p50: 22,
        pe_p80: 29.2,
      },
      notes: [],
    })
  })

  it('never takes the forecast’s level: a forecast mean far above TTM leaves the neutral value alone', () => {
    const v = computeValuation(base({ forecast: { eps_mean: 10, eps_low: 9, eps_high: 11, as_of: '2026-11-01' } }))
    expect(v?.reference_target).toBe(44)
  })

  it('clamps the forecast’s spread to 0.7..1 and 1..1.3', () => {
    const v = computeValuation(base({ forecast: { eps_mean: 2, eps_low: 0.5, eps_high: 9, as_of: '2026-11-01' } }))
    expect(v?.inputs).toMatchObject({ eps_bear: 1.4, eps_bull: 2.6 })
  })

  it('needs 60 positive days: 60 is enough (and says it is less than a year), 59 falls back to pb_roe', () => {
    const days60 = [...PE_241.slice(0, 60), null, -3]
    const short = computeValuation(base({ peHistory: days60 }))
    expect(short?.method).toBe('pe_band')
    expect(short?.notes).toEqual(['PE band over 60 days only (less than a year of PE(TTM) history)'])
    const v = computeValuation(base({ peHistory: PE_241.slice(0, 59) }))
    expect(v?.method).toBe('pb_roe')
    expect(v?.notes).toEqual(['PE band unusable: 59 days of PE(TTM) history, at least 60 needed'])
  })

  it('winsorises each day’s PE into [3, 150] before the percentiles', () => {
    expect(peBandStats(Array(200).fill(0.4))).toMatchObject({ days: 200, p20: 3, p50: 3, p80: 3 })
    expect(peBandStats(Array(200).fill(900))).toMatchObject({ p50: 150 })
    const mixed = peBandStats([...Array(100).fill(1), ...Array(100).fill(20), ...Array(41).fill(4000)])
    expect(mixed).toMatchObject({ p20: 3, p50: 20 })
  })

  it('peBandStats equals what valuationFromStats takes from SQL for the same history', () => {
    const { peHistory, ...rest } = base()
    expect(valuationFromStats({ ...rest, pe: peBandStats(peHistory) })).toEqual(computeValuation(base()))
  })
})

describe('pb_roe: BVPS x (ROE - g)/(r - g) on annualised ROE, r = 8%, g = 3%', () => {
  const noPe = { peHistory: [] }

  it('gives a 16%-ROE company a fair P/B of 2.6', () => {
    const v = computeValuation(base({ ...noPe, roeHistory: [0.16, 0.16, 0.16, 0.16] }))
    expect(v?.method).toBe('pb_roe')
    expect(v?.reference_target).toBe(26)
  })

  it('takes ROE P20/P50/P80 of the last 12 reports, each capped at 30%', () => {
    const v = computeValuation(base({ ...noPe, price: 20 }))
    // ROE P20 0.144, P50 0.18, P80 0.216 -> 22.8 / 30 / 37.2
    expect(v?.scenarios).toMatchObject({ bear: { value: 22.8 }, neutral: { value: 30 }, bull: { value: 37.2 } })
    const capped = computeValuation(base({ ...noPe, roeHistory: [0.6, 0.6, 0.6, 0.6] }))
    expect(capped?.reference_target).toBe(54)
  })
})

interface Case {
  readonly name: string
  readonly input: ValuationInput
  readonly method: 'pe_band' | 'pb_roe' | null
  readonly neutral?: number
  readonly note?: RegExp
}

// Growth stock: TTM EPS 1, its own history of multiples 40..64 (P50 52), price 60 (PE 60).
const GROWTH_PE = Array.from({ length: 241 }, (_, i) => 40 + i / 10)

const cases: Case[] = [
  {
    name: 'a growth stock: valued on its own high multiples, not a market average',
    input: base({ price: 60, epsTtm: 1, peHistory: GROWTH_PE, forecast: null }),
    method: 'pe_band',
    neutral: 52,
  },
  {
    name: 'a loss-making stock with a loss-making history: no valuation',
    input: base({ epsTtm: -0.5, peHistory: Array(300).fill(null), roeHistory: [-0.05, -0.04, -0.06, -0.03] }),
    method: null,
  },
  {
    name: 'a loss-making stock with a profitable past: PB-ROE, never a PE band',
    input: base({ price: 20, epsTtm: -0.5 }),
    method: 'pb_roe',
    neutral: 30,
    note: /TTM EPS is not positive/,
  },
  {
    name: 'a tiny PE (2, a one-off gain): the PE band is not used',
    input: base({ price: 5, epsTtm: 2.5 }),
    method: 'pb_roe',
    note: /PE\(TTM\) 2\.0 below 3, earnings likely one-off/,
  },
  {
    name: 'a stale forecast (203 days old): not used, fixed 0.9 / 1.1 spread, said so',
    input: base({ forecast: { eps_mean: 2.5, eps_low: 2, eps_high: 3, as_of: '2026-05-01' } }),
    method: 'pe_band',
    neutral: 44,
    note: /forecast of 2026-05-01 is 203 days old \(at most 120\): not used/,
  },
  {
    name: 'one data point (one day of PE, one report): no scenarios spread from one point',
    input: base({ peHistory: [25], roeHistory: [0.15] }),
    method: null,
  },
  { name: 'missing data: no price', input: base({ price: null }), method: null },
  {
    name: 'missing data: no EPS, no book value',
    input: base({ epsTtm: null, bvps: null }),
    method: null,
  },
  {
    name: 'missing data: no forecast at all is fine',
    input: base({ forecast: null }),
    method: 'pe_band',
    neutral: 44,
  },
]

describe('table: what a PM would check', () => {
  it.each(cases)('$name', ({ input, method, neutral, note }) => {
    const v = computeValuation(input)
    if (method === null) {
      expect(v).toBeNull()
      return
    }
    expect(v?.method).toBe(method)
    if (neutral !== undefined) expect(v?.reference_target).toBe(neutral)
    if (note) expect(v?.notes.join('; ')).toMatch(note)
    expect(v!.scenarios.bear.value).toBeLessThanOrEqual(v!.scenarios.neutral.value)
    expect(v!.scenarios.neutral.value).toBeLessThanOrEqual(v!.scenarios.bull.value)
  })

  it('the stale forecast’s spread is the fixed one', () => {
    const v = computeValuation(cases[4]!.input)
    expect(v?.inputs).toMatchObject({ eps_spread: 'fixed', eps_bear: 1.8, eps_bull: 2.2 })
  })
})

describe('formatValuation', () => {
  it('renders the DESIGN example', () => {
    const v: Valuation = {
      method: 'pe_band',
      price: 1700,
      scenarios: {
        bear: { value: 1317.2, mos: -0.29 },
        neutral: { value: 1990.8, mos: 0.146 },
        bull: { value: 2821, mos: 0.397 },
      },
      reference_target: 1990.8,
      inputs: {},
      notes: [],
    }
    expect(formatValuation(v)).toBe('neutral 1990.8 (margin 14.6%), bear 1317.2, bull 2821.0 · PE band')
  })

  it('is null without a valuation', () => {
    expect(formatValuation(null)).toBeNull()
  })
})
