import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { BUILD_RULES, TIER_RULES } from '../../src/domain/build-rules.js'
import { COMPONENT_NAMES } from '../../src/domain/plan-types.js'
import { type BarSeries, type BuildInput, scoreDay, scoreStocks, sumPoints } from '../../src/domain/scoring.js'
import { assignTiers } from '../../src/domain/tiers.js'
import { tierRow } from '../support/tier-rows.js'

const calendar = Array.from(
  { length: 70 },
  (_, i) => `2026-0${i < 30 ? 7 : i < 60 ? 8 : 9}-${String((i % 30) + 1).padStart(2, '0')}`,
)
const T = calendar.at(-1)!

function series(closes: number[], options: Partial<BarSeries> = {}): BarSeries {
  const dates = calendar.slice(-closes.length)
  return {
    dates,
    close: closes,
    adjFactor: closes.map(() => 1),
    amount: closes.map(() => 1e8),
    suspended: closes.map(() => false),
    preClose: closes.at(-2) ?? null,
    isSt: false,
    ...options,
  }
}

const rising = Array.from({ length: 70 }, (_, i) => 10 + i * 0.2)
const falling = Array.from({ length: 70 }, (_, i) => 30 - i * 0.2)

function input(overrides: Partial<BuildInput> = {}): BuildInput {
  return {
    date: T,
    calendar,
    securities: [
      { code: '600001.SH', name: 'Up', list_date: '2020-01-01' },
      { code: '600002.SH', name: 'Down', list_date: '2020-01-01' },
      { code: '600003.SH', name: 'New', list_date: calendar[50]! },
      { code: '600004.SH', name: 'No bar today', list_date: '2020-01-01' },
    ],
    bars: new Map([
      ['600001.SH', series(rising)],
      ['600002.SH', series(falling)],
      ['600003.SH', series(rising.slice(-20))],
      ['600004.SH', { ...series(rising.slice(0, 69)), dates: calendar.slice(0, 69) }],
    ]),
    edges: [
      { theme: 'Hot', segment: 'S1', code: '600001.SH', weight: 0.9, evidence: 'supplies X', track: 'tech' },
      { theme: 'Cold', segment: 'S2', code: '600001.SH', weight: 0.2, evidence: 'minor', track: 'tech' },
    ],
    events: calendar.slice(-10).map((d) => ({ trade_date: d, theme: 'Hot', intensity: 95 })),
    facts: new Map([
      ['600001.SH', { upside: 0.3, quality: 90, invalidated: false }],
      ['600002.SH', { upside: -0.2, quality: 40, invalidated: true }],
    ]),
    ...overrides,
  }
}

describe('scoreStocks', () => {
  it('scores every listed stock with a bar on the date and ranks best first', () => {
    const scored = scoreStocks(input())
    expect(scored.map((s) => s.code)).toEqual(['600001.SH', '600003.SH', '600002.SH'])
    expect(scored.map((s) => s.rank)).toEqual([1, 2, 3])
    const top = scored[0]!
    expect(top).toMatchObject({ theme: 'Hot', segment: 'S1', track: 'tech', upside: 0.3, invalidated: false })
    expect(top.heat).toBeGreaterThan(60)
    expect(top.graph_evidence.map((e) => e.theme)).toEqual(['Hot', 'Cold'])
    expect(scored[2]).toMatchObject({ theme: null, heat: null, transmission: null, invalidated: true })
  })

  it('stores each component’s points; the hot-theme leader’s heat points are heat x transmission x 35', () => {
    const top = scoreStocks(input())[0]!
    expect(top.components.heat).toBeCloseTo((BUILD_RULES.points.heat * (top.heat! / 100) * top.transmission!) / 1, 0)
    expect(top.components.quality).toBe(9)
    expect(scoreStocks(input())[2]!.components.heat).toBe(0)
  })

  it('gives each row its percentile in the day and the hard invalidation in words', () => {
    const facts = new Map([
      ['600001.SH', { upside: 0.3, quality: 90, invalidated: false }],
      ['600002.SH', { upside: -0.2, quality: 40, invalidated: true, invalidation: 'loss in 2026Q2 (EPS -0.3)' }],
    ])
    const scored = scoreStocks(input({ facts }))
    expect(scored.map((s) => s.score_pct)).toEqual([100, 50, 0])
    expect(scored[2]).toMatchObject({ tier: 'reject', invalidation: 'loss in 2026Q2 (EPS -0.3)' })
    expect(scored[2]!.tier_rule).toBe('hard invalidation: loss in 2026Q2 (EPS -0.3)')
  })

  it('counts listed trading days and leaves suspended days out of the mean amount', () => {
    const amounts = rising.map((_, i) => (i % 2 === 0 ? 2e8 : 0))
    const suspended = rising.map((_, i) => i % 2 === 1)
    const scored = scoreStocks(
      input({
        bars: new Map([
          ['600001.SH', series(rising, { amount: amounts, suspended })],
          ['600003.SH', series(rising.slice(-20))],
        ]),
      }),
    )
    const up = scored.find((s) => s.code === '600001.SH')!
    expect(up.amount_ma20).toBe(2e8)
    expect(up.is_suspended).toBe(true)
    expect(scored.find((s) => s.code === '600003.SH')!.listed_days).toBe(20)
    expect(up.listed_days).toBeGreaterThan(60)
  })

  it('breaks score ties by code and is deterministic', () => {
    const twin = input({
      securities: [
        { code: '600009.SH', name: 'B', list_date: '2020-01-01' },
        { code: '600008.SH', name: 'A', list_date: '2020-01-01' },
      ],
      bars: new Map([
        ['600009.SH', series(rising)],
        ['600008.SH', series(rising)],
      ]),
      edges: [],
      facts: new Map(),
    })
    const scored = scoreStocks(twin)
    expect(scored[0]!.score).toBe(scored[1]!.score)
    expect(scored.map((s) => s.code)).toEqual(['600008.SH', '600009.SH'])
    expect(scoreStocks(twin)).toEqual(scored)
  })
})

const closes = fc.array(fc.double({ min: 1, max: 200, noNaN: true }), { minLength: 1, maxLength: 70 })
const stock = fc.record({
  closes,
  amount: fc.double({ min: 0, max: 1e10, noNaN: true }),
  upside: fc.option(fc.double({ min: -0.9, max: 3, noNaN: true }), { nil: null }),
  quality: fc.option(fc.integer({ min: 0, max: 100 }), { nil: null }),
  weight: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
  intensity: fc.integer({ min: 0, max: 100 }),
})

describe('score components (property)', () => {
  it('sum to the score on every row of any market, each within 0..its maximum', () => {
    fc.assert(
      fc.property(fc.array(stock, { minLength: 1, maxLength: 25 }), fc.boolean(), (stocks, weak) => {
        const codes = stocks.map((_, i) => `6000${String(i).padStart(2, '0')}.SH`)
        const day = scoreDay({
          date: T,
          calendar,
          securities: codes.map((code) => ({ code, name: code, list_date: '2020-01-01', board: 'main' })),
          bars: new Map(stocks.map((s, i) => [codes[i]!, series(s.closes, { amount: s.closes.map(() => s.amount) })])),
          edges: stocks.flatMap((s, i) =>
            s.weight === null
              ? []
              : [{ theme: `T${i % 3}`, segment: 'S', code: codes[i]!, weight: s.weight, evidence: '', track: 'x' }],
          ),
          events: stocks.map((s, i) => ({ trade_date: T, theme: `T${i % 3}`, intensity: s.intensity })),
          facts: new Map(
            stocks.map((s, i) => [codes[i]!, { upside: s.upside, quality: s.quality, invalidated: false }]),
          ),
          weakRegime: weak,
        })
        for (const row of day.rows) {
          expect(Math.abs(sumPoints(row.components) - row.score)).toBeLessThan(1e-9)
          for (const name of COMPONENT_NAMES) {
            expect(row.components[name]).toBeGreaterThanOrEqual(0)
            expect(row.components[name]).toBeLessThanOrEqual(BUILD_RULES.points[name])
          }
        }
      }),
      { numRuns: 150 },
    )
  })
})

describe('tradability flags', () => {
  const flagsOf = (bar: Partial<BarSeries>, listDate = '2020-01-01', board = 'main') =>
    scoreStocks(
      input({
        securities: [{ code: '600001.SH', name: 'X', list_date: listDate, board }],
        bars: new Map([['600001.SH', series(rising, bar)]]),
      }),
    )[0]!.flags

  it('closed limit-up on T (10% main board and its ST names on T, 20% ChiNext)', () => {
    expect(flagsOf({ close: [...rising.slice(0, -1), 11], preClose: 10, high: 11, low: 10.2 })).toEqual([
      'limit_up_close',
    ])
    expect(flagsOf({ close: [...rising.slice(0, -1), 10.99], preClose: 10, high: 11, low: 10 })).toEqual([])
    expect(flagsOf({ close: [...rising.slice(0, -1), 11], preClose: 10 }, '2020-01-01', 'chinext')).toEqual([])
    // main-board ST names move 10% since 2026-07-06 (limit-rules.ts), so 10.5 is no longer the limit on T
    expect(flagsOf({ close: [...rising.slice(0, -1), 10.5], preClose: 10, isSt: true })).toEqual(['st'])
    expect(flagsOf({ close: [...rising.slice(0, -1), 11], preClose: 10, isSt: true })).toEqual(['limit_up_close', 'st'])
  })

  it('a one-word board: one price all day, at the limit', () => {
    expect(flagsOf({ close: [...rising.slice(0, -1), 11], preClose: 10, open: 11, high: 11, low: 11 })).toEqual([
      'limit_up_close',
      'one_word_board',
    ])
  })

  it('a new listing', () => {
    expect(flagsOf({}, calendar[40]!)).toEqual(['new_listing'])
  })
})

describe("tiers from the day's cross-section", () => {
  const day = (n: number, score: (i: number) => number) =>
    Array.from({ length: n }, (_, i) => {
      const {
        tier: _t,
        tier_rule: _r,
        ...row
      } = tierRow({ code: `6${String(i).padStart(5, '0')}.SH`, rank: i + 1, score: score(i) })
      return row
    })

  it('main = the best 5% of eligible rows at or above the floor, observe = the next 10%', () => {
    const rows = day(200, (i) => 80 - i * 0.2)
    const { rows: tiered, cuts } = assignTiers(rows, false)
    expect(tiered.filter((r) => r.tier === 'main')).toHaveLength(10)
    expect(tiered.filter((r) => r.tier === 'observe')).toHaveLength(20)
    expect(cuts).toMatchObject({ eligible: 200, main: 78.2, observe: 74.2 })
    expect(tiered[0]!.tier_rule).toBe('score 80.0 >= main cut 78.2 (top 5% of 200 eligible, floor 45)')
  })

  it('a weak day shows the whole cross-section: main stays non-empty while scores are low but above the floor', () => {
    const { rows: tiered } = assignTiers(
      day(100, (i) => 50 - i * 0.3),
      false,
    )
    expect(tiered.filter((r) => r.tier === 'main').map((r) => r.score)).toEqual([50, 49.7, 49.4, 49.1, 48.8])
  })

  it('the absolute floor: below 45 nothing is main, below 38 nothing is observe', () => {
    const { rows: tiered } = assignTiers(
      day(100, (i) => 44 - i * 0.1),
      false,
    )
    expect(tiered.filter((r) => r.tier === 'main')).toHaveLength(0)
    expect(tiered.filter((r) => r.tier === 'observe').every((r) => r.score >= TIER_RULES.observeFloor)).toBe(true)
  })

  it('a stock without a theme reaches main on its other merits', () => {
    const rows = day(40, (i) => 70 - i).map((r, i) => (i === 0 ? { ...r, theme: null, heat: null } : r))
    expect(assignTiers(rows, false).rows[0]).toMatchObject({ theme: null, tier: 'main' })
  })

  it('ineligible rows (suspended, ST, new, illiquid) neither take nor move the cut', () => {
    const rows = day(40, (i) => 70 - i).map((r, i) => (i < 5 ? { ...r, is_st: true } : r))
    const { rows: tiered, cuts } = assignTiers(rows, false)
    // 5% of 35 eligible = 1.75 -> the 2 best eligible (65, 64); the ST rows above are main-tier but screened out
    expect(cuts).toMatchObject({ eligible: 35, main: 64 })
    expect(tiered.slice(0, 8).map((r) => r.tier)).toEqual([...Array(7).fill('main'), 'observe'])
  })

  it('a weak regime halves main: the rows between the cuts are observe and counted, with the rule in words', () => {
    const rows = day(200, (i) => 80 - i * 0.2)
    const weak = assignTiers(rows, true)
    expect(weak.rows.filter((r) => r.tier === 'main')).toHaveLength(5)
    expect(weak.weakDemoted).toBe(5)
    expect(weak.rows[7]!.tier_rule).toMatch(/^weak regime: main limited to the top 2.5% \(cut 79.2\)/)
  })
})
