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

const base = (over: Partial<ValuationInput> = {}): ValuationInput => ({
  price: 50,
  peHistory: PE_241,
  epsTtm: 2,
  forecast: { eps_mean: 2.5, eps_low: 2, eps_high: 3 },
  bvps: 10,
  roeHistory: [0.12, 0.15, 0.18, 0.21, 0.24],
  ...over,
})

describe('percentile (linear interpolation between closest ranks, h = (n - 1) p)', () => {
  it.each([
    [[10, 20, 30, 40, 50], 0.2, 18], // h = 0.8: 10 + 0.8 x 10
    [[10, 20, 30, 40, 50], 0.5, 30], // h = 2
    [[10, 20, 30, 40, 50], 0.8, 42], // h = 3.2: 40 + 0.2 x 10
    [[50, 10, 40, 20, 30], 0.8, 42], // order does not matter
    [[1, 2, 3, 4], 0.5, 2.5], // h = 1.5
    [[1, 2, 3, 4], 0, 1],
    [[1, 2, 3, 4], 1, 4],
    [[7], 0.2, 7],
  ])('%o P%f = %f', (values, p, expected) => {
    expect(percentile(values, p)).toBeCloseTo(expected, 12)
  })

  it('is null for an empty list and ignores non-finite values', () => {
    expect(percentile([], 0.5)).toBeNull()
    expect(percentile([Number.NaN, 1, 3], 0.5)).toBe(2)
  })

  it('gives the fixture percentiles', () => {
    expect(percentile(PE_241, 0.2)).toBeCloseTo(14.8, 12)
    expect(percentile(PE_241, 0.5)).toBeCloseTo(22, 12)
    expect(percentile(PE_241, 0.8)).toBeCloseTo(29.2, 12)
  })
})

describe('VALUATION_RULES', () => {
  it('is frozen and records the DESIGN constants', () => {
    expect(Object.isFrozen(VALUATION_RULES)).toBe(true)
    expect(Object.isFrozen(VALUATION_RULES.pbRoe)).toBe(true)
    expect(VALUATION_RULES.pbRoe).toEqual({ r: 0.09, g: 0.03 })
    expect(VALUATION_RULES.peMinDays).toBe(240)
    expect(VALUATION_RULES.percentiles).toEqual({ bear: 0.2, neutral: 0.5, bull: 0.8 })
  })
})

describe('pe_band', () => {
  it('uses forecast low/mean/high x PE P20/P50/P80', () => {
    // bear 2 x 14.8 = 29.6, neutral 2.5 x 22 = 55, bull 3 x 29.2 = 87.6; price 50
    const v = computeValuation(base())
    expect(v).toEqual({
      method: 'pe_band',
      price: 50,
      scenarios: {
        bear: { value: 29.6, mos: -0.689 }, // 1 - 50/29.6 = -0.6892
        neutral: { value: 55, mos: 0.091 }, // 1 - 50/55 = 0.0909
        bull: { value: 87.6, mos: 0.429 }, // 1 - 50/87.6 = 0.4292
      },
      reference_target: 55,
      inputs: {
        eps_source: 'forecast',
        pe_days: 241,
        eps_bear: 2,
        eps_neutral: 2.5,
        eps_bull: 3,
        pe_p20: 14.8,
        pe_p50: 22,
        pe_p80: 29.2,
      },
      notes: [],
    })
  })

  it('uses TTM EPS x 0.85 / 1 / 1.15 without a forecast', () => {
    // eps 1.7 / 2 / 2.3: bear 25.16, neutral 44, bull 67.16; price 40
    const v = computeValuation(base({ price: 40, forecast: null }))
    expect(v?.method).toBe('pe_band')
    expect(v?.scenarios).toEqual({
      bear: { value: 25.16, mos: -0.59 }, // 1 - 40/25.16 = -0.5898
      neutral: { value: 44, mos: 0.091 },
      bull: { value: 67.16, mos: 0.404 }, // 1 - 40/67.16 = 0.4044
    })
    expect(v?.inputs).toMatchObject({ eps_source: 'ttm', eps_bear: 1.7, eps_neutral: 2, eps_bull: 2.3 })
  })

  it('falls back to TTM when the forecast has no mean', () => {
    const v = computeValuation(base({ price: 40, forecast: { eps_mean: null, eps_low: 1, eps_high: 3 } }))
    expect(v?.inputs.eps_source).toBe('ttm')
    expect(v?.reference_target).toBe(44)
  })

  it('fills a missing forecast low/high with 0.85 / 1.15 x mean and says so', () => {
    const v = computeValuation(base({ forecast: { eps_mean: 2, eps_low: null, eps_high: null } }))
    expect(v?.scenarios.bear.value).toBe(25.16)
    expect(v?.scenarios.bull.value).toBe(67.16)
    expect(v?.notes).toHaveLength(2)
    expect(v?.notes[0]).toContain('no low EPS')
  })

  it('ignores null days and uses at most the last 5 years (1200 days)', () => {
    const withGaps = PE_241.flatMap((pe) => [pe, null])
    expect(computeValuation(base({ peHistory: withGaps }))?.scenarios.neutral.value).toBe(55)
    const old = Array<number>(1200 - 241).fill(1000)
    // The 100 oldest days (PE 1) fall out of the window. Kept: 241 fixture days + 959 days at 1000, so
    // P20 (h = 1199 x 0.2 = 239.8) is 33.9 + 0.8 x 0.1 = 33.98; with the old days it would be 25.98.
    const long = [...Array<number>(100).fill(1), ...old, ...PE_241]
    const v = computeValuation(base({ peHistory: long }))
    expect(v?.inputs.pe_days).toBe(1200)
    expect(v?.inputs.pe_p20).toBe(33.98)
  })

  it('needs 240 non-null days: 240 is enough, 239 falls back to pb_roe', () => {
    const days240 = [...PE_241.slice(1), null, null]
    expect(computeValuation(base({ peHistory: days240 }))?.method).toBe('pe_band')
    const days239 = [...PE_241.slice(2), null, null, null]
    const v = computeValuation(base({ peHistory: days239 }))
    expect(v?.method).toBe('pb_roe')
    expect(v?.notes).toEqual(['PE band unusable: 239 days of PE(TTM) history, at least 240 needed'])
  })
})

describe('valuationFromStats (PE percentiles precomputed, e.g. by percentile_cont in SQL)', () => {
  it('peBandStats reduces a history to days and P20/P50/P80', () => {
    const stats = peBandStats([null, ...PE_241, null, -3])
    expect(stats?.days).toBe(241)
    expect(stats?.p20).toBeCloseTo(14.8, 12)
    expect(stats?.p50).toBeCloseTo(22, 12)
    expect(stats?.p80).toBeCloseTo(29.2, 12)
    expect(peBandStats([null, null])).toBeNull()
  })

  it('gives what computeValuation gives for the same history', () => {
    const { peHistory, ...rest } = base()
    expect(valuationFromStats({ ...rest, pe: peBandStats(peHistory) })).toEqual(computeValuation(base()))
  })

  it('takes SQL-shaped stats directly', () => {
    const { peHistory: _unused, ...rest } = base()
    const v = valuationFromStats({ ...rest, pe: { days: 900, p20: 14.8, p50: 22, p80: 29.2 } })
    expect(v?.method).toBe('pe_band')
    expect(v?.reference_target).toBe(55)
    expect(v?.inputs.pe_days).toBe(900)
  })

  it('falls back to pb_roe with fewer than 240 days or no stats', () => {
    const { peHistory: _unused, ...rest } = base({ price: 20 })
    expect(valuationFromStats({ ...rest, pe: { days: 239, p20: 14.8, p50: 22, p80: 29.2 } })?.method).toBe('pb_roe')
    expect(valuationFromStats({ ...rest, pe: null })?.notes).toEqual([
      'PE band unusable: 0 days of PE(TTM) history, at least 240 needed',
    ])
  })
})

describe('pb_roe', () => {
  // ROE P20 0.144, P50 0.18, P80 0.216; value = 10 x (ROE - 0.03) / 0.06 = 19 / 25 / 31; price 20
  const expected: Valuation = {
    method: 'pb_roe',
    price: 20,
    scenarios: {
      bear: { value: 19, mos: -0.053 }, // 1 - 20/19 = -0.0526
      neutral: { value: 25, mos: 0.2 },
      bull: { value: 31, mos: 0.355 }, // 1 - 20/31 = 0.3548
    },
    reference_target: 25,
    inputs: { bvps: 10, roe_points: 5, r: 0.09, g: 0.03, roe_p20: 0.144, roe_p50: 0.18, roe_p80: 0.216 },
    notes: [],
  }

  it('values a loss-maker (PE null) by BVPS x (ROE - g)/(r - g)', () => {
    const v = computeValuation(
      base({ price: 20, epsTtm: -0.5, forecast: null, peHistory: Array<null>(300).fill(null) }),
    )
    expect(v).toEqual({ ...expected, notes: ['PE band unusable: ttm EPS is not positive'] })
  })

  it('is used with less than a year of PE history', () => {
    const v = computeValuation(base({ price: 20, peHistory: PE_241.slice(0, 100) }))
    expect(v).toEqual({
      ...expected,
      notes: ['PE band unusable: 100 days of PE(TTM) history, at least 240 needed'],
    })
  })

  it('is used when the forecast EPS is negative, even with a positive TTM EPS', () => {
    const v = computeValuation(base({ price: 20, forecast: { eps_mean: -0.2, eps_low: -0.5, eps_high: 0.1 } }))
    expect(v?.method).toBe('pb_roe')
    expect(v?.notes).toEqual(['PE band unusable: forecast EPS is not positive'])
  })

  it('is used when only the forecast low is negative (no negative bear value is shown)', () => {
    const v = computeValuation(base({ price: 20, forecast: { eps_mean: 1, eps_low: -0.1, eps_high: 2 } }))
    expect(v?.method).toBe('pb_roe')
  })

  it('is used without any EPS', () => {
    const v = computeValuation(base({ price: 20, epsTtm: null, forecast: null }))
    expect(v?.method).toBe('pb_roe')
    expect(v?.notes).toEqual(['PE band unusable: no EPS (neither forecast nor TTM)'])
  })
})

describe('no valuation (never a made-up number)', () => {
  const noPe = { epsTtm: -1, forecast: null, peHistory: [] }

  it.each([
    ['no price', base({ price: null })],
    ['zero price', base({ price: 0 })],
    ['PE unusable and no BVPS', base({ ...noPe, bvps: null })],
    ['PE unusable and negative BVPS', base({ ...noPe, bvps: -3 })],
    ['PE unusable and no ROE history', base({ ...noPe, roeHistory: [] })],
    ['PE unusable and ROE P20 below g', base({ ...noPe, roeHistory: [0.01, 0.02, 0.05, 0.2] })],
  ])('%s -> null', (_name, input) => {
    expect(computeValuation(input)).toBeNull()
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

  it('shows 2 decimals below 100 yuan, negative margins and the PB-ROE label', () => {
    expect(formatValuation(computeValuation(base({ price: 20, epsTtm: null, forecast: null })))).toBe(
      'neutral 25.00 (margin 20.0%), bear 19.00, bull 31.00 · PB-ROE',
    )
    expect(formatValuation(computeValuation(base({ price: 60 })))).toBe(
      'neutral 55.00 (margin -9.1%), bear 29.60, bull 87.60 · PE band',
    )
  })

  it('is null without a valuation', () => {
    expect(formatValuation(null)).toBeNull()
  })
})
