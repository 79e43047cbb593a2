import { describe, expect, it } from 'vitest'
import {
  COMPANY_REVIEW_RULES,
  type FinancialSnapshot,
  formatCompanyReview,
  hasHardInvalidation,
  reportPeriod,
  reviewCompany,
} from '../../src/domain/company-review.js'

const EMPTY: FinancialSnapshot = {
  end_date: '2026-09-30',
  roe: null,
  gross_margin: null,
  ocf_to_np: null,
  debt_to_assets: null,
  revenue_yoy: null,
  np_yoy: null,
  eps: null,
}

const snap = (over: Partial<FinancialSnapshot>): FinancialSnapshot => ({ ...EMPTY, ...over })

/** Every metric at the middle of its band: each sub-score is 50. */
const MID = snap({
  roe: 0.1,
  gross_margin: 0.3,
  ocf_to_np: 0.65,
  debt_to_assets: 0.55,
  revenue_yoy: 0.05,
  np_yoy: 0.025,
  eps: 1,
})

const STRONG = snap({
  roe: 0.31,
  gross_margin: 0.91,
  ocf_to_np: 1.05,
  debt_to_assets: 0.2,
  revenue_yoy: 0.12,
  np_yoy: 0.1,
  eps: 52.3,
})

const LOSS = snap({
  end_date: '2026-06-30',
  roe: -0.05,
  gross_margin: 0.15,
  ocf_to_np: 0.2,
  debt_to_assets: 0.85,
  revenue_yoy: -0.2,
  np_yoy: -0.8,
  eps: -0.3,
})

describe('COMPANY_REVIEW_RULES', () => {
  it('is deeply frozen and its weights sum to 1', () => {
    expect(Object.isFrozen(COMPANY_REVIEW_RULES)).toBe(true)
    expect(Object.isFrozen(COMPANY_REVIEW_RULES.bands.roe)).toBe(true)
    expect(Object.isFrozen(COMPANY_REVIEW_RULES.invalidation[0])).toBe(true)
    const sum = Object.values(COMPANY_REVIEW_RULES.weights).reduce((a, b) => a + b, 0)
    expect(sum).toBeCloseTo(1, 12)
  })
})

describe('reviewCompany: score and grade', () => {
  it('grades a strong company A', () => {
    // roe, margin, cash, leverage all 100; growth = mean(73.3, 66.7) = 70 -> 0.85 x 100 + 0.15 x 70 = 95.5
    const r = reviewCompany(STRONG)
    expect(r).toMatchObject({ grade: 'A', score: 96, report_period: '2026Q3' })
    expect(r?.metrics).toEqual({
      roe: 0.31,
      gross_margin: 0.91,
      ocf_to_np: 1.05,
      debt_to_assets: 0.2,
      revenue_yoy: 0.12,
      np_yoy: 0.1,
      eps: 52.3,
    })
    expect(r?.invalidation.every((i) => !i.triggered)).toBe(true)
    expect(r?.summary).toBe('grade A (96/100) from 5 of 5 quality measures, report 2026Q3; no invalidation triggered')
  })

  it('scores 50 with every metric mid-band (C)', () => {
    expect(reviewCompany(MID)).toMatchObject({ grade: 'C', score: 50 })
  })

  it('grades a loss-maker D and triggers loss', () => {
    // only the gross margin scores: (0.15 - 0.1)/0.4 = 12.5 x 0.2 = 2.5 -> 3
    const r = reviewCompany(LOSS)
    expect(r).toMatchObject({ grade: 'D', score: 3, report_period: '2026Q2' })
    expect(r?.invalidation.filter((i) => i.triggered).map((i) => i.id)).toEqual([
      'roe_floor',
      'cash_conversion',
      'leverage',
      'profit_collapse',
      'loss',
    ])
    expect(r?.invalidation.find((i) => i.id === 'loss')).toEqual({
      id: 'loss',
      metric: 'eps',
      op: '<',
      threshold: 0,
      current: -0.3,
      triggered: true,
    })
    expect(hasHardInvalidation(r)).toBe(true)
    expect(r?.summary).toContain('triggered: roe_floor (roe -0.05 < 0.08)')
  })

  it.each([
    [0.16, 80, 'A'],
    [0.158, 79, 'B'],
    [0.13, 65, 'B'],
    [0.128, 64, 'C'],
    [0.1, 50, 'C'],
    [0.098, 49, 'D'],
    [0.5, 100, 'A'],
    [-0.2, 0, 'D'],
  ])('ROE alone %f -> %i %s (missing metrics re-weight the rest)', (roe, score, grade) => {
    expect(reviewCompany(snap({ roe }))).toMatchObject({ score, grade })
  })

  it('re-weights the metrics that are present', () => {
    // roe 100 (w 0.3), margin 50 (w 0.2): (30 + 10)/0.5 = 80
    const r = reviewCompany(snap({ roe: 0.2, gross_margin: 0.3 }))
    expect(r).toMatchObject({ grade: 'A', score: 80 })
    expect(r?.metrics).toMatchObject({ ocf_to_np: null, debt_to_assets: null, eps: null })
    expect(r?.invalidation.filter((i) => i.current === null).every((i) => !i.triggered)).toBe(true)
    expect(r?.summary).toContain('from 2 of 5 quality measures')
  })

  it('scores growth from whichever of revenue and profit growth is present', () => {
    expect(reviewCompany(snap({ revenue_yoy: 0.2 }))?.score).toBe(100)
    expect(reviewCompany(snap({ np_yoy: 0.025 }))?.score).toBe(50)
  })

  it('falls as leverage rises', () => {
    expect(reviewCompany(snap({ debt_to_assets: 0.3 }))?.score).toBe(100)
    expect(reviewCompany(snap({ debt_to_assets: 0.55 }))?.score).toBe(50)
    expect(reviewCompany(snap({ debt_to_assets: 0.9 }))?.score).toBe(0)
  })

  it('is null without financials or without any quality metric', () => {
    expect(reviewCompany(null)).toBeNull()
    expect(reviewCompany(EMPTY)).toBeNull()
    expect(reviewCompany(snap({ eps: -1 }))).toBeNull()
  })
})

describe('invalidation boundaries', () => {
  it.each([
    ['roe_floor', { roe: 0.08 }, false],
    ['roe_floor', { roe: 0.0799 }, true],
    ['cash_conversion', { ocf_to_np: 0.5 }, false],
    ['cash_conversion', { ocf_to_np: 0.49 }, true],
    ['leverage', { debt_to_assets: 0.75 }, false],
    ['leverage', { debt_to_assets: 0.7501 }, true],
    ['profit_collapse', { np_yoy: -0.5 }, false],
    ['profit_collapse', { np_yoy: -0.51 }, true],
    ['loss', { eps: 0 }, false],
    ['loss', { eps: -0.01 }, true],
  ] as const)('%s with %o -> triggered %s', (id, over, triggered) => {
    const r = reviewCompany({ ...MID, ...over })
    const item = r?.invalidation.find((i) => i.id === id)
    expect(item?.triggered).toBe(triggered)
    expect(item?.current).toBe(Object.values(over)[0])
    // MID triggers nothing, so this is the only one
    expect(r?.invalidation.filter((i) => i.triggered).map((i) => i.id)).toEqual(triggered ? [id] : [])
  })

  it('lists every condition with metric, op and threshold', () => {
    expect(
      reviewCompany(MID)?.invalidation.map(({ id, metric, op, threshold }) => [id, metric, op, threshold]),
    ).toEqual([
      ['roe_floor', 'roe', '<', 0.08],
      ['cash_conversion', 'ocf_to_np', '<', 0.5],
      ['leverage', 'debt_to_assets', '>', 0.75],
      ['profit_collapse', 'np_yoy', '<', -0.5],
      ['loss', 'eps', '<', 0],
    ])
  })
})

describe('hasHardInvalidation', () => {
  it.each([
    [{ eps: -0.01 }, true],
    [{ np_yoy: -0.6 }, true],
    [{ roe: 0.01 }, false],
    [{ ocf_to_np: 0.1 }, false],
    [{ debt_to_assets: 0.9 }, false],
    [{}, false],
  ])('%o -> %s', (over, hard) => {
    expect(hasHardInvalidation(reviewCompany({ ...MID, ...over }))).toBe(hard)
  })

  it('is false without a review', () => {
    expect(hasHardInvalidation(null)).toBe(false)
  })
})

describe('reportPeriod', () => {
  it.each([
    ['2026-03-31', '2026Q1'],
    ['2026-06-30', '2026Q2'],
    ['2026-09-30', '2026Q3'],
    ['2025-12-31', '2025Q4'],
    ['FY2025', 'FY2025'],
    ['2026-13-01', '2026-13-01'],
  ])('%s -> %s', (endDate, period) => {
    expect(reportPeriod(endDate)).toBe(period)
  })
})

describe('formatCompanyReview', () => {
  it('renders a strong company', () => {
    expect(formatCompanyReview(reviewCompany(STRONG))).toBe(
      'A (96): ROE 31%, gross margin 91%, cash conversion 1.05 · no invalidation triggered',
    )
  })

  it('names the triggered conditions', () => {
    expect(formatCompanyReview(reviewCompany(LOSS))).toBe(
      'D (3): ROE -5%, gross margin 15%, cash conversion 0.20 · triggered: roe_floor, cash_conversion, leverage, profit_collapse, loss',
    )
  })

  it('shows n/a for missing metrics and one decimal where needed', () => {
    expect(formatCompanyReview(reviewCompany(snap({ roe: 0.125, debt_to_assets: 0.4 })))).toBe(
      'B (68): ROE 12.5%, gross margin n/a, cash conversion n/a · no invalidation triggered',
    )
  })

  it('is null without a review', () => {
    expect(formatCompanyReview(null)).toBeNull()
  })
})
